package checks

import (
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"
)

// Flags is a parsed, merged set of translation flags: a name maps to its
// parameters (none for a plain flag). The zero value is an empty set.
// Flags is a value: Set and Merge return new sets.
type Flags struct {
	names  []string            // in the order first given
	params map[string][]string // name → parameters
	// rx marks the parameters written r"…" (regular expressions), for
	// the names that have any.
	rx           map[string][]bool
	regex        *regexp.Regexp  // compiled regex: parameter, if any
	placeholders *placeholderSet // compiled placeholders: parameters, if any
}

// FlagError reports a flag that cannot be parsed or is not allowed.
type FlagError struct {
	Flag   string // the flag's name, or the raw text when no name was read
	Reason string
}

func (e *FlagError) Error() string {
	return fmt.Sprintf("checks: invalid translation flag %q: %s", e.Flag, e.Reason)
}

// flagKind says what parameters a flag takes.
type flagKind int

const (
	plain    flagKind = iota // no parameter
	intParam                 // exactly one integer
	oneParam                 // exactly one value
	anyParam                 // one or more values
)

// plainFlags are the plain flags that are not a check's enable or ignore
// flag (reference §1.5).
var plainFlags = []string{
	"read-only", "strict-same", "strict-format", "forbidden", "terminology",
	"ignore-all-checks", "case-insensitive", "rst-text", "md-text",
	"markdown-text", "xml-text", "url", "auto-safe-html",
	"auto-java-messageformat", "safe-html", "safe-mdx", "bbcode",
	"check-glossary", "csharp-format", "bbcode-text",
}

// flagAliases are other names of an enable flag: the reference's
// extra_enable_strings (csharp-format) and its older spellings (Tolk
// read bbcode before the reference's bbcode-text).
var flagAliases = map[string]string{
	"bbcode":        "bbcode-text",
	"markdown-text": "md-text",
	"csharp-format": "c-sharp-format",
}

// typedFlags are the flags that take parameters (reference §1.5).
var typedFlags = map[string]flagKind{
	"max-length":     intParam,
	"max-lines":      intParam,
	"max-size":       anyParam,
	"font-family":    oneParam,
	"font-size":      intParam,
	"font-weight":    oneParam,
	"font-spacing":   intParam,
	"priority":       intParam,
	"replacements":   anyParam,
	"variant":        oneParam,
	"placeholders":   anyParam,
	"regex":          oneParam,
	"accelerator":    oneParam,
	"icu-flags":      anyParam,
	"icu-tag-prefix": oneParam,
	"fluent-type":    oneParam,
	"discard":        anyParam, // repeated discard: flags accumulate
}

// kindOf returns how the named flag takes parameters, or false when the
// name is unknown. Every check's enable flag ("end-stop") and ignore flag
// ("ignore-end-stop") is known.
func kindOf(name string) (flagKind, bool) {
	if k, ok := typedFlags[name]; ok {
		return k, true
	}
	if slices.Contains(plainFlags, name) {
		return plain, true
	}
	for _, c := range registry {
		if name == c.EnableFlag() || name == c.IgnoreFlag() {
			return plain, true
		}
	}
	return plain, false
}

// ParseFlags parses Weblate's flag syntax: comma-separated flags, each a
// name optionally followed by colon-separated parameters, as in
//
//	max-length:80, placeholders:$URL$:"%s":r"\{\d\}", regex:^[A-Z]
//
// Single or double quotes allow spaces, commas and colons in a parameter;
// a backslash escapes a quote inside them; an r prefix (r"…") marks a
// regular expression and is dropped. A regex: parameter given unquoted
// may contain colons: they are kept. Unknown names, parameters on plain
// flags, typed flags without a value, a non-integer where a number is
// wanted and a regex that does not compile are errors (*FlagError).
// The empty string parses to an empty set.
func ParseFlags(s string) (Flags, error) {
	var f Flags
	items, err := split(s)
	if err != nil {
		return Flags{}, err
	}
	for _, it := range items {
		if len(it) == 0 || it[0].text == "" {
			continue
		}
		name := it[0].text
		params := make([]string, len(it)-1)
		var rx []bool
		for i, p := range it[1:] {
			params[i] = p.text
			if p.regex {
				if rx == nil {
					rx = make([]bool, len(params))
				}
				rx[i] = true
			}
		}
		if name == "regex" && len(params) > 1 {
			params, rx = []string{strings.Join(params, ":")}, nil
		}
		if f, err = f.set(name, params, rx); err != nil {
			return Flags{}, err
		}
	}
	return f, nil
}

// token is one name or parameter read by split.
type token struct {
	text  string
	regex bool // written r"…"
}

// split tokenizes s into flags, each a list whose first element is the
// name and the rest its parameters.
func split(s string) ([][]token, error) {
	var (
		out   [][]token
		cur   []token
		tok   strings.Builder
		quote rune // the open quote, or 0
		raw   bool // the open quote is an r"…"
		rx    bool // the current token was written r"…"
	)
	flush := func() {
		cur = append(cur, token{strings.TrimSpace(tok.String()), rx})
		tok.Reset()
		rx = false
	}
	runes := []rune(s)
	for i := 0; i < len(runes); i++ {
		r := runes[i]
		switch {
		case quote != 0 && r == '\\' && i+1 < len(runes) && (runes[i+1] == quote || !raw && runes[i+1] == '\\'):
			// In r"…" only the quote is escaped: a regex's \\ stays.
			i++
			tok.WriteRune(runes[i])
		case quote != 0 && r == quote:
			quote = 0
		case quote != 0:
			tok.WriteRune(r)
		case r == '"' || r == '\'':
			quote, raw = r, false
		case r == 'r' && i+1 < len(runes) && (runes[i+1] == '"' || runes[i+1] == '\'') && strings.TrimSpace(tok.String()) == "":
			// r"…": a regular expression.
			quote, raw, rx = runes[i+1], true, true
			i++
		case r == ':':
			flush()
		case r == ',':
			flush()
			out = append(out, cur)
			cur = nil
		default:
			tok.WriteRune(r)
		}
	}
	if quote != 0 {
		return nil, &FlagError{Flag: s, Reason: "unterminated quote"}
	}
	flush()
	out = append(out, cur)
	return out, nil
}

// Set returns f with the named flag set to params, replacing any earlier
// value. It validates the name and parameters as ParseFlags does. The
// parameters are text; SetRegex marks placeholders: entries as regular
// expressions.
func (f Flags) Set(name string, params ...string) (Flags, error) {
	return f.set(name, params, nil)
}

// SetRegex is Set for a flag whose parameters are regular expressions,
// as ParseFlags reads r"…": placeholders:r"\{\d\}". It is an error
// (*FlagError naming the flag) when one does not compile.
func (f Flags) SetRegex(name string, params ...string) (Flags, error) {
	rx := make([]bool, len(params))
	for i := range rx {
		rx[i] = true
	}
	return f.set(name, params, rx)
}

func (f Flags) set(name string, params []string, rx []bool) (Flags, error) {
	kind, ok := kindOf(name)
	if !ok {
		return f, &FlagError{Flag: name, Reason: "unknown flag"}
	}
	var re *regexp.Regexp
	switch kind {
	case plain:
		if len(params) > 0 {
			return f, &FlagError{Flag: name, Reason: "takes no parameter"}
		}
	case intParam, oneParam:
		if len(params) != 1 || params[0] == "" {
			return f, &FlagError{Flag: name, Reason: "needs exactly one value"}
		}
		if kind == intParam {
			if _, err := strconv.Atoi(params[0]); err != nil {
				return f, &FlagError{Flag: name, Reason: fmt.Sprintf("%q is not an integer", params[0])}
			}
		}
		if name == "accelerator" && !acceleratorMarker(params[0]) {
			return f, &FlagError{Flag: name, Reason: "the accelerator marker must be a single punctuation character"}
		}
		if name == "regex" {
			var err error
			if re, err = regexp.Compile(params[0]); err != nil {
				return f, &FlagError{Flag: name, Reason: err.Error()}
			}
		}
	case anyParam:
		if len(params) == 0 {
			return f, &FlagError{Flag: name, Reason: "needs a value"}
		}
		if name == "max-size" {
			if len(params) > 2 {
				return f, &FlagError{Flag: name, Reason: "takes a width and optionally a number of lines"}
			}
			for _, p := range params {
				if n, err := strconv.Atoi(p); err != nil || n <= 0 {
					return f, &FlagError{Flag: name, Reason: fmt.Sprintf("%q is not a positive integer", p)}
				}
			}
		}
	}
	var ps *placeholderSet
	if name == "placeholders" {
		var err error
		if ps, err = compilePlaceholders(params, rx); err != nil {
			return f, &FlagError{Flag: name, Reason: err.Error()}
		}
	}
	if !slices.Contains(rx, true) {
		rx = nil
	}
	g := f.clone()
	if _, had := g.params[name]; !had {
		g.names = append(g.names, name)
	}
	if name == "discard" {
		params = append(slices.Clone(g.params[name]), params...)
	}
	g.params[name] = slices.Clone(params)
	g.setRx(name, slices.Clone(rx))
	switch name {
	case "regex":
		g.regex = re
	case "placeholders":
		g.placeholders = ps
	}
	return g, nil
}

// setRx records which of name's parameters are regular expressions; g
// must be a fresh clone.
func (g *Flags) setRx(name string, rx []bool) {
	if rx == nil {
		delete(g.rx, name)
		return
	}
	if g.rx == nil {
		g.rx = map[string][]bool{}
	}
	g.rx[name] = rx
}

func (f Flags) clone() Flags {
	g := Flags{names: slices.Clone(f.names), params: make(map[string][]string, len(f.params)+1),
		regex: f.regex, placeholders: f.placeholders}
	for k, v := range f.params {
		g.params[k] = v
	}
	if f.rx != nil {
		g.rx = make(map[string][]bool, len(f.rx))
		for k, v := range f.rx {
			g.rx[k] = v
		}
	}
	return g
}

func (f Flags) remove(name string) Flags {
	if !f.Has(name) {
		return f
	}
	g := f.clone()
	delete(g.params, name)
	g.names = slices.DeleteFunc(g.names, func(n string) bool { return n == name })
	delete(g.rx, name)
	switch name {
	case "regex":
		g.regex = nil
	case "placeholders":
		g.placeholders = nil
	}
	return g
}

// Has reports whether the named flag is set.
func (f Flags) Has(name string) bool {
	_, ok := f.params[name]
	return ok
}

// Params returns the named flag's parameters (nil for a plain flag or one
// not set).
func (f Flags) Params(name string) []string { return slices.Clone(f.params[name]) }

// Int returns the named flag's integer parameter.
func (f Flags) Int(name string) (int, bool) {
	p := f.params[name]
	if len(p) != 1 {
		return 0, false
	}
	n, err := strconv.Atoi(p[0])
	return n, err == nil
}

// Names returns the flags set, in the order they were first given.
func (f Flags) Names() []string { return slices.Clone(f.names) }

// String formats f in the flag syntax ParseFlags reads, quoting
// parameters that need it.
func (f Flags) String() string {
	var b strings.Builder
	for i, n := range f.names {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(n)
		rx := f.rx[n]
		for i, p := range f.params[n] {
			b.WriteByte(':')
			if i < len(rx) && rx[i] {
				b.WriteString(`r"` + strings.ReplaceAll(p, `"`, `\"`) + `"`)
			} else if strings.ContainsAny(p, `:,"' \`) || p == "" {
				b.WriteString(`"` + strings.NewReplacer(`\`, `\\`, `"`, `\"`).Replace(p) + `"`)
			} else {
				b.WriteString(p)
			}
		}
	}
	return b.String()
}

// Merge combines flag layers in Weblate's order (reference §1.5,
// Unit.get_all_flags), lowest first:
//
//  1. the project's or category's check_flags;
//  2. the file format's built-in flags;
//  3. the component's check_flags;
//  4. the translation's check_flags;
//  5. the flags the file gives the unit;
//  6. the source unit's extra_flags;
//  7. this unit's extra_flags.
//
// A later layer's value wins for typed flags; discard:NAME in a layer
// removes NAME as inherited from the layers before it (a layer may
// discard several: discard:a, discard:b); discard itself is not kept.
func Merge(layers ...Flags) Flags {
	var out Flags
	for _, l := range layers {
		for _, d := range l.params["discard"] {
			out = out.remove(d)
		}
		if len(l.names) == 0 {
			continue
		}
		g := out.clone()
		for _, n := range l.names {
			if n == "discard" {
				continue
			}
			if _, had := g.params[n]; !had {
				g.names = append(g.names, n)
			}
			g.params[n] = l.params[n]
			g.setRx(n, l.rx[n])
			switch n {
			case "regex":
				g.regex = l.regex
			case "placeholders":
				g.placeholders = l.placeholders
			}
		}
		out = g
	}
	return out
}
