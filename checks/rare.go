package checks

import (
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// bbcode, accelerator and max-size (reference §1.3).

// bbcodeTags returns the tags of the BBCode pairs of s ("[b]…[/b]",
// "[url=x]…[/url]"), in order, as Weblate's BBCODE_MATCH finds them: an
// opening "[tag]" (the tag is everything up to "]", or up to an "@" when
// only that shorter tag is closed) closed by "[/tag]" later on the same
// line.
func bbcodeTags(s string) []string {
	var tags []string
	for i := 0; i < len(s); i++ {
		if s[i] != '[' {
			continue
		}
		k := strings.IndexByte(s[i+1:], ']')
		if k <= 0 {
			continue
		}
		inner := s[i+1 : i+1+k]
		if strings.ContainsAny(inner, "[\n") {
			continue
		}
		rest := s[i+2+k:]
		if nl := strings.IndexByte(rest, '\n'); nl >= 0 {
			rest = rest[:nl]
		}
		tag := inner
		at := strings.Index(rest, "[/"+tag+"]")
		if at < 0 {
			if a := strings.IndexByte(inner, '@'); a > 0 {
				tag = inner[:a]
				at = strings.Index(rest, "[/"+tag+"]")
			}
		}
		if at < 0 {
			continue
		}
		tags = append(tags, tag)
		i += 1 + k + at + len(tag) + 3
	}
	return tags
}

// bbcode: the pairs differ in number or in their set of tags.
func bbcode(src, tgt, _ string) bool {
	s, t := bbcodeTags(src), bbcodeTags(tgt)
	if len(s) != len(t) {
		return true
	}
	set := make(map[string]bool, len(s))
	for _, x := range s {
		set[x] = true
	}
	for _, x := range t {
		if !set[x] {
			return true
		}
	}
	tset := make(map[string]bool, len(t))
	for _, x := range t {
		tset[x] = true
	}
	return len(tset) != len(set)
}

// acceleratorMarker validates accelerator:C: one ASCII punctuation
// character (Python's string.punctuation), as the reference's
// validate_accelerator_marker.
func acceleratorMarker(p string) bool {
	return len(p) == 1 && strings.IndexByte("!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~", p[0]) >= 0
}

// countAccelerators counts the markers of s, a doubled marker being a
// literal one (GNU msgfmt).
func countAccelerators(s string, m byte) int {
	n := 0
	for i := 0; i < len(s); i++ {
		if s[i] != m {
			continue
		}
		if i+1 < len(s) && s[i+1] == m {
			i++
			continue
		}
		n++
	}
	return n
}

// accelerator: the translation has more than one marker, or not as many
// as the source (accelerator:&, reference's AcceleratorKeyCheck).
func accelerator(u Unit) bool {
	p := u.Flags.params["accelerator"]
	if len(p) != 1 || !acceleratorMarker(p[0]) || len(u.Source) == 0 {
		return false
	}
	m := p[0][0]
	for i, t := range u.Target {
		if t == "" {
			continue
		}
		s := u.Source[sourceIndex(&u, i)]
		if n := countAccelerators(t, m); n > 1 || n != countAccelerators(s, m) {
			return true
		}
	}
	return false
}

// max-size:WIDTH[:LINES] — the reference renders the text with Pango in
// the font the font-* flags name and fails when it needs more than LINES
// lines (1 when not given) of WIDTH pixels. Tolk renders no fonts (no
// font files, no C library): it lays the text out with a fixed table of
// advance widths that approximates a proportional sans-serif face (the
// reference's default "sans" at font-size 10), scaled by font-size,
// widened by font-weight bold and by font-spacing per character, wrapped
// at spaces and at newlines. A word wider than the box fails, as it
// would overflow. The estimate errs by a few percent against a real
// face; a project that needs pixel truth sets a margin in WIDTH.
func maxSize(u Unit) bool {
	p := u.Flags.params["max-size"]
	if len(p) == 0 {
		return false
	}
	width, err := strconv.Atoi(p[0])
	if err != nil || width <= 0 {
		return false
	}
	lines := 1
	if len(p) > 1 {
		if n, err := strconv.Atoi(p[1]); err == nil && n > 0 {
			lines = n
		}
	}
	size := 10.0
	if n, ok := u.Flags.Int("font-size"); ok && n > 0 {
		size = float64(n)
	}
	spacing := 0.0
	if n, ok := u.Flags.Int("font-spacing"); ok {
		spacing = float64(n)
	}
	bold := false
	if w := u.Flags.params["font-weight"]; len(w) == 1 {
		switch strings.ToLower(w[0]) {
		case "bold", "heavy", "black", "ultrabold", "semibold", "700", "800", "900":
			bold = true
		}
	}
	r := u.Flags.replacer()
	for _, t := range u.Target {
		if r != nil {
			t = r.Replace(t)
		}
		if layoutLines(t, float64(width), size, spacing, bold) > lines {
			return true
		}
	}
	return false
}

// layoutLines wraps s greedily into lines of width pixels and returns
// how many it takes; a word wider than a line counts as overflowing
// (lines+1 beyond any limit).
func layoutLines(s string, width, size, spacing float64, bold bool) int {
	n := 0
	for _, para := range strings.Split(s, "\n") {
		n++
		line := 0.0
		for i, word := range strings.Split(para, " ") {
			w := textWidth(word, size, spacing, bold)
			if w > width {
				return 1 << 20
			}
			space := 0.0
			if i > 0 {
				space = runeWidth(' ', size, spacing, bold)
			}
			if i > 0 && line+space+w > width {
				n++
				line = w
				continue
			}
			line += space + w
		}
	}
	return n
}

func textWidth(s string, size, spacing float64, bold bool) float64 {
	w := 0.0
	for _, r := range s {
		w += runeWidth(r, size, spacing, bold)
	}
	return w
}

// runeWidth is the approximate advance of r in ems of a sans-serif face
// (DejaVu Sans-like proportions), times size.
func runeWidth(r rune, size, spacing float64, bold bool) float64 {
	var em float64
	switch {
	case unicode.Is(unicode.Mn, r) || unicode.Is(unicode.Me, r) || r == '\u200b':
		return 0
	case r == ' ':
		em = 0.32
	case strings.ContainsRune("iljI.,:;!|'`", r):
		em = 0.28
	case strings.ContainsRune("ftr()[]{}\"-/\\", r):
		em = 0.38
	case strings.ContainsRune("mwMW@%", r):
		em = 0.92
	case r >= '0' && r <= '9':
		em = 0.64
	case unicode.IsUpper(r):
		em = 0.7
	case r < utf8.RuneSelf:
		em = 0.6
	case isWide(r):
		em = 1.0
	default:
		em = 0.62
	}
	if bold {
		em *= 1.1
	}
	return em*size + spacing
}

// isWide: East Asian wide and full-width characters take a full em.
func isWide(r rune) bool {
	return unicode.In(r, unicode.Han, unicode.Hiragana, unicode.Katakana, unicode.Hangul) ||
		r >= 0xFF01 && r <= 0xFF60 || r >= 0x3000 && r <= 0x303F
}

var _ = register(map[string]single{
	"bbcode": bbcode,
}, map[string]whole{
	"accelerator": accelerator,
	"max-size":    maxSize,
})
