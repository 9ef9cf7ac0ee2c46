package checks

import (
	"strconv"
	"strings"
)

// Format checks (reference §1.3, "Format strings"). Each format has a
// hand-written scanner that returns the placeholders of a string as a
// set of normalised keys, and whether the string is malformed (a lone
// brace, an odd MessageFormat quote). Scanners are single-pass, so a
// check is linear in the string's length.
//
// A check fails when the target's placeholder set differs from the
// source's, or the target is malformed where the source is not.
// Positional placeholders are normalised to their argument number
// ("%s %d" has keys 1$s and 2$d), so "%2$d %1$s" matches "%s %d" while
// "%d %s" does not; named ones are keyed by name.
//
// Plural forms are paired as eachPair does. In a plural unit a target
// form used for one count only (usually "one") may omit placeholders
// unless strict-format is set; it may not add any. Weblate decides this
// per form from the language's plural examples: singleForm does the same
// from Unit.PluralMap or the categories, and without them lets the first
// form stand for it.

// scanner extracts a string's placeholder keys and reports whether it is
// malformed.
type scanner func(s string) (keys map[string]bool, bad bool)

// formatIDs are the format checks computed here, in registry order.
var formatIDs = []string{
	"c_format", "objc_format", "php_format", "python_format", "perl_format",
	"javascript_format", "lua_format", "object_pascal_format", "scheme_format",
	"laravel_format", "java_printf_format", "java_format", "python_brace_format",
	"perl_brace_format", "c_sharp_format", "i18next_interpolation", "es_format",
	"percent_placeholders", "vue_format", "angularjs_format", "qt_format",
	"qt_plural_format", "ruby_format", "automattic_components_format",
}

// formatCheck builds a format check from its scanner.
func formatCheck(scan scanner) whole {
	return func(u Unit) bool {
		if len(u.Source) == 0 {
			return false
		}
		strict := u.Flags.Has("strict-format")
		for i, t := range u.Target {
			if t == "" {
				continue
			}
			s := u.Source[sourceIndex(&u, i)]
			sk, sbad := scan(s)
			tk, tbad := scan(t)
			if tbad && !sbad {
				return true
			}
			for k := range tk {
				if !sk[k] {
					return true // extra
				}
			}
			if !strict && singleForm(&u, i) {
				continue
			}
			for k := range sk {
				if !tk[k] {
					return true // missing
				}
			}
		}
		return false
	}
}

// printfSpec describes one printf dialect.
type printfSpec struct {
	flags    string // flag characters
	convs    string // conversion characters
	lengths  []string
	numbered bool // %1$s
	named    bool // Python %(name)s
	ruby     bool // Ruby %{name} and %<name>s
	php      bool // PHP custom padding %'x
	java     bool // Java %<s, %n, %tY
	noArg    string
}

var (
	cPrintf = printfSpec{flags: "-+#0'", convs: "diouxXeEfFgGaAcspnCS@", numbered: true,
		lengths: []string{"hh", "ll", "h", "l", "L", "q", "j", "z", "Z", "t", "I64", "I32", "I"}}
	pythonPrintf = printfSpec{flags: "-+#0", convs: "diouxXeEfFgGcrsa", named: true,
		lengths: []string{"h", "l", "L"}}
	phpPrintf        = printfSpec{flags: "-+0", convs: "bcdeEfFgGhHosuxX", numbered: true, php: true}
	javaPrintf       = printfSpec{flags: "-#+0,(", convs: "bBhHsScCdoxXeEfgGaAtTn", numbered: true, java: true}
	javascriptPrintf = printfSpec{flags: "-+0", convs: "sdifjoObxXeEgGcuT", numbered: true}
	rubyPrintf       = printfSpec{flags: "-+#0*", convs: "bBdiouxXeEfgGaAcps", numbered: true, ruby: true}
)

// scan scans printf-style placeholders: "%%" is a literal, a "%" not
// followed by a valid specification is plain text. The space flag is not
// read, so "100% sure" holds no placeholder.
func (p printfSpec) scan(s string) (map[string]bool, bool) {
	keys := map[string]bool{}
	pos := 0
	closers := closerCache{-2, -2, -2}
	for i := 0; i < len(s); i++ {
		if s[i] != '%' {
			continue
		}
		if i+1 < len(s) && s[i+1] == '%' {
			i++
			continue
		}
		key, end, ok := p.one(s, i+1, &pos, &closers)
		if ok {
			keys[key] = true
			i = end - 1
		}
	}
	return keys, false
}

// unnamed counts the placeholders of s that name no argument: neither
// numbered ("%1$s") nor named ("%(n)s", "%{n}", "%<n>s").
func (p printfSpec) unnamed(s string) int {
	n, pos := 0, 0
	closers := closerCache{-2, -2, -2}
	for i := 0; i < len(s); i++ {
		if s[i] != '%' {
			continue
		}
		if i+1 < len(s) && s[i+1] == '%' {
			i++
			continue
		}
		before := pos
		_, end, ok := p.one(s, i+1, &pos, &closers)
		if !ok {
			continue
		}
		if pos > before { // one counted it positionally: it names no argument
			n++
		}
		i = end - 1
	}
	return n
}

// closerCache remembers, for ')', '}' and '>', where the next one is
// (-2: not looked for yet, -1: none left). Scans move forward, so the
// answer stays valid until j passes it; without it "%(" repeated
// 100,000 times would search to the end each time.
type closerCache [3]int

// next returns the offset from j of the next closer at or after j, or
// -1.
func (c *closerCache) next(s string, j, which int) int {
	at := c[which]
	if at == -1 {
		return -1
	}
	if at < j {
		k := strings.IndexByte(s[j:], ")}>"[which])
		if k < 0 {
			c[which] = -1
			return -1
		}
		at = j + k
		c[which] = at
	}
	return at - j
}

// one parses a specification starting at j (after the '%'); it returns
// the key, the index after the specification and whether one was found.
func (p printfSpec) one(s string, j int, pos *int, closers *closerCache) (string, int, bool) {
	n := len(s)
	if p.named && j < n && s[j] == '(' {
		k := closers.next(s, j, 0)
		if k < 0 {
			return "", 0, false
		}
		name := s[j+1 : j+k]
		rest, end, ok := p.spec(s, j+k+1)
		if !ok {
			return "", 0, false
		}
		return name + ")" + rest, end, true
	}
	if p.ruby && j < n && (s[j] == '{' || s[j] == '<') {
		which := 1 // '}'
		if s[j] == '<' {
			which = 2 // '>'
		}
		k := closers.next(s, j, which)
		if k < 0 {
			return "", 0, false
		}
		name := s[j+1 : j+k]
		if s[j] == '{' {
			return name + "}", j + k + 1, true
		}
		rest, end, ok := p.spec(s, j+k+1)
		if !ok {
			return "", 0, false
		}
		return name + ">" + rest, end, true
	}
	// Argument number.
	arg := ""
	if p.numbered {
		k := j
		for k < n && s[k] >= '0' && s[k] <= '9' {
			k++
		}
		if k > j && k < n && s[k] == '$' {
			arg = strings.TrimLeft(s[j:k], "0")
			j = k + 1
		}
	}
	if p.java && arg == "" && j < n && s[j] == '<' {
		arg = "<"
		j++
	}
	rest, end, ok := p.spec(s, j)
	if !ok {
		return "", 0, false
	}
	if p.java && rest == "n" {
		return "n", end, true // line separator: takes no argument
	}
	if arg == "" {
		*pos++
		arg = strconv.Itoa(*pos)
	}
	return arg + "$" + rest, end, true
}

// spec parses flags, width, precision, length and conversion from j.
func (p printfSpec) spec(s string, j int) (string, int, bool) {
	n := len(s)
	start := j
	for j < n {
		c := s[j]
		if p.php && c == '\'' && j+1 < n {
			j += 2
			continue
		}
		if !strings.ContainsRune(p.flags, rune(c)) {
			break
		}
		j++
	}
	if j < n && s[j] == '*' {
		j++
	}
	for j < n && s[j] >= '0' && s[j] <= '9' {
		j++
	}
	if j < n && s[j] == '.' {
		j++
		if j < n && s[j] == '*' {
			j++
		}
		for j < n && s[j] >= '0' && s[j] <= '9' {
			j++
		}
	}
	for _, l := range p.lengths {
		if strings.HasPrefix(s[j:], l) {
			j += len(l)
			break
		}
	}
	if j >= n || !strings.ContainsRune(p.convs, rune(s[j])) {
		return "", 0, false
	}
	j++
	if p.java && (s[j-1] == 't' || s[j-1] == 'T') {
		if j >= n {
			return "", 0, false
		}
		j++ // date/time suffix
	}
	if key := s[start:j]; !p.php && strings.IndexByte(key, '\'') >= 0 {
		// C's ' flag groups thousands the locale's way: a translation
		// may add or drop it (the reference's cleanup_string).
		return strings.ReplaceAll(key, "'", ""), j, true
	}
	return s[start:j], j, true
}

// scanBrace scans Python's str.format fields: "{{" and "}}" are
// literals, "{}" takes the next automatic number, a field's key is its
// name (or number) plus conversion and spec. A lone brace is malformed.
func scanBrace(s string) (map[string]bool, bool) {
	auto := 0
	return braceFields(s, func(inner string) (string, bool) {
		name, rest := inner, ""
		if k := strings.IndexAny(inner, "!:"); k >= 0 {
			name, rest = inner[:k], inner[k:]
		}
		if name == "" {
			name = strconv.Itoa(auto)
			auto++
		}
		return name + rest, true
	})
}

// braceFields scans {…} fields, "{{" and "}}" being literals, keying
// each field's content by field; a lone brace, or a field that field
// rejects, makes the string malformed.
func braceFields(s string, field func(inner string) (string, bool)) (map[string]bool, bool) {
	keys := map[string]bool{}
	bad := false
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c != '{' && c != '}' {
			continue
		}
		if i+1 < len(s) && s[i+1] == c {
			i++
			continue
		}
		if c == '}' {
			bad = true
			continue
		}
		end := matchBrace(s, i)
		if end < 0 {
			return keys, true
		}
		if key, ok := field(s[i+1 : end]); ok {
			keys[key] = true
		} else {
			bad = true
		}
		i = end
	}
	return keys, bad
}

// matchBrace returns the index of the '}' closing the '{' at i, allowing
// one level of nesting ("{0:{width}}"), or -1.
func matchBrace(s string, i int) int {
	depth := 0
	for j := i; j < len(s); j++ {
		switch s[j] {
		case '{':
			depth++
		case '}':
			depth--
			if depth == 0 {
				return j
			}
		}
	}
	return -1
}

// scanCSharp scans .NET composite format items: {index[,alignment][:format]};
// "{{" and "}}" are literals, an index that is not a number is malformed.
func scanCSharp(s string) (map[string]bool, bool) {
	return braceFields(s, func(inner string) (string, bool) {
		idx := inner
		if c := strings.IndexAny(inner, ",:"); c >= 0 {
			idx = inner[:c]
		}
		_, err := strconv.Atoi(strings.TrimSpace(idx))
		return strings.TrimSpace(inner), err == nil
	})
}

// scanMessageFormat scans Java MessageFormat: "”" is an apostrophe,
// text between single quotes is literal, {index[,type[,style]]} is an
// argument keyed by index and type. An unclosed quote or brace is
// malformed.
func scanMessageFormat(s string) (map[string]bool, bool) {
	keys := map[string]bool{}
	quoted := false
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c == '\'' {
			if i+1 < len(s) && s[i+1] == '\'' {
				i++
				continue
			}
			quoted = !quoted
			continue
		}
		if quoted || c != '{' {
			continue
		}
		end := matchBrace(s, i)
		if end < 0 {
			return keys, true
		}
		parts := strings.SplitN(s[i+1:end], ",", 3)
		key := strings.TrimSpace(parts[0])
		if len(parts) > 1 {
			key += "," + strings.TrimSpace(parts[1])
		}
		keys[key] = true
		i = end
	}
	return keys, quoted
}

// scanDelimited finds open…close spans (no nesting) and keys them by
// their content with all white space removed; "keep" spans starting
// with a prefix other than open are not used.
func scanDelimited(s, open, close string, keys map[string]bool) {
	for {
		i := strings.Index(s, open)
		if i < 0 {
			return
		}
		k := strings.Index(s[i+len(open):], close)
		if k < 0 {
			return
		}
		inner := s[i+len(open) : i+len(open)+k]
		keys[open+strings.Join(strings.Fields(inner), "")+close] = true
		s = s[i+len(open)+k+len(close):]
	}
}

// scanI18next: {{name}}, {{- name}}, {{name, format}} and $t(key)
// nesting; white space inside is ignored.
func scanI18next(s string) (map[string]bool, bool) {
	keys := map[string]bool{}
	scanDelimited(s, "{{", "}}", keys)
	scanDelimited(s, "$t(", ")", keys)
	return keys, false
}

// scanAngular: {{ expr }}, white space ignored.
func scanAngular(s string) (map[string]bool, bool) {
	keys := map[string]bool{}
	scanDelimited(s, "{{", "}}", keys)
	return keys, false
}

// scanES: ECMAScript template substitutions ${expr}.
func scanES(s string) (map[string]bool, bool) {
	keys := map[string]bool{}
	scanDelimited(s, "${", "}", keys)
	return keys, false
}

// scanPercent: %name%, the name free of white space and '%'.
func scanPercent(s string) (map[string]bool, bool) {
	keys := map[string]bool{}
	for i := 0; i < len(s); i++ {
		if s[i] != '%' {
			continue
		}
		j := i + 1
		for j < len(s) && s[j] != '%' && !isSpaceByte(s[j]) {
			j++
		}
		if j < len(s) && s[j] == '%' && j > i+1 {
			keys[s[i:j+1]] = true
			i = j
		} else if j < len(s) && s[j] == '%' {
			i = j // "%%"
		}
	}
	return keys, false
}

func isSpaceByte(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }

// scanQt: %1 … %99 and the localised %L1 forms.
func scanQt(s string) (map[string]bool, bool) {
	keys := map[string]bool{}
	for i := 0; i < len(s); i++ {
		if s[i] != '%' {
			continue
		}
		j := i + 1
		if j < len(s) && s[j] == 'L' {
			j++
		}
		k := j
		for k < len(s) && k < j+2 && s[k] >= '0' && s[k] <= '9' {
			k++
		}
		if k > j && s[j] != '0' {
			keys[s[i:k]] = true
			i = k - 1
		}
	}
	return keys, false
}

// scanVue: {name}, {0}, %{name} and linked messages @:key, @.mod:key,
// @:(key).
func scanVue(s string) (map[string]bool, bool) {
	keys := map[string]bool{}
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '{':
			k := strings.IndexByte(s[i:], '}')
			if k < 0 {
				return keys, false
			}
			keys["{"+strings.TrimSpace(s[i+1:i+k])+"}"] = true
			i += k
		case '@':
			j := i + 1
			if j < len(s) && s[j] == '.' {
				j++
				for j < len(s) && isLetterByte(s[j]) {
					j++
				}
			}
			if j >= len(s) || s[j] != ':' {
				continue
			}
			j++
			k := j
			if k < len(s) && s[k] == '(' {
				if e := strings.IndexByte(s[k:], ')'); e >= 0 {
					k += e + 1
				}
			} else {
				for k < len(s) && (isLetterByte(s[k]) || s[k] >= '0' && s[k] <= '9' || strings.IndexByte("_.-", s[k]) >= 0) {
					k++
				}
			}
			if k > j {
				keys[s[i:k]] = true
				i = k - 1
			}
		}
	}
	return keys, false
}

func isLetterByte(c byte) bool { return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' }

// The format checks, each behind its flag (c-format, python-format, …).
var _ = register(nil, map[string]whole{
	"c_format":              formatCheck(cPrintf.scan),
	"objc_format":           formatCheck(cPrintf.scan), // C's conversions include %@
	"python_format":         formatCheck(pythonPrintf.scan),
	"python_brace_format":   formatCheck(scanBrace),
	"i18next_interpolation": formatCheck(scanI18next),
	"java_printf_format":    formatCheck(javaPrintf.scan),
	"java_format":           formatCheck(scanMessageFormat),
	"javascript_format":     formatCheck(javascriptPrintf.scan),
	"php_format":            formatCheck(phpPrintf.scan),
	"percent_placeholders":  formatCheck(scanPercent),
	"qt_format":             formatCheck(scanQt),
	"es_format":             formatCheck(scanES),
	"vue_format":            formatCheck(scanVue),
	"ruby_format":           formatCheck(rubyPrintf.scan),
	"c_sharp_format":        formatCheck(scanCSharp),
	"angularjs_format":      formatCheck(scanAngular),
})
