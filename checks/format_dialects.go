package checks

import (
	"strconv"
	"strings"
)

// The rarely used format dialects (reference §1.3, "Format strings";
// weblate/checks/format.py and qt.py): Perl and Lua printf, Scheme
// (format "~a"), Object Pascal (Format "%0:s"), Perl brace ("{name}"),
// Laravel (":name"), Qt plural ("%n"), Automattic components
// ("{{tag}}…{{/tag}}"). Each is a single-pass scanner for formatCheck,
// so the checks share the printf family's pairing of plural forms and
// its rule for one-count forms.
//
// Where the reference counts named placeholders (a Counter: ":a :a"
// against ":a" is a missing one), the scanners key the n-th repeat of a
// placeholder apart ("…#2"), so a set comparison counts as it does.

var (
	// perlPrintf is Perl's sprintf: C's conversions plus %b, %B and the
	// upper-case synonyms %D, %U, %O, %F; the vector flag v.
	perlPrintf = printfSpec{flags: "-+#0v", convs: "csduoxXeEfgGbBpniDUOF", numbered: true,
		lengths: []string{"hh", "ll", "h", "l", "q", "L", "V", "j", "z", "t"}}
	// luaPrintf is Lua's string.format: C's conversions without length
	// modifiers, plus %q. The reference reads it with C's pattern, so
	// numbered arguments ("%1$s") are read too.
	luaPrintf = printfSpec{flags: "-+#0", convs: "cdiouxXeEfgGqsaA", numbered: true}
)

// repeats keys the n-th occurrence of a placeholder as key#n (n ≥ 2).
type repeats map[string]int

func (r repeats) add(keys map[string]bool, key string) {
	r[key]++
	if n := r[key]; n > 1 {
		key += "#" + strconv.Itoa(n)
	}
	keys[key] = true
}

// scanScheme scans Scheme/Lisp format directives: "~" with optional
// "N@*~" argument jump, comma-separated parameters (digits, 'c, v, #),
// ":" and "@" modifiers and a directive character. "~~" is a literal
// tilde. A directive that jumps ("~1@*~s") is keyed by its text; the
// others by their position and text ("~s ~d" ≠ "~d ~s"), as the
// reference's position-based comparison.
func scanScheme(s string) (map[string]bool, bool) {
	keys := map[string]bool{}
	pos := 0
	for i := 0; i < len(s); i++ {
		if s[i] != '~' {
			continue
		}
		j := i + 1
		jump := ""
		// N@*~ jumps to argument N.
		if k := digitsEnd(s, j); k > j && strings.HasPrefix(s[k:], "@*~") {
			jump = s[j : k+3]
			j = k + 3
		}
		start := j
		j = schemeParams(s, j)
		if j < len(s) && s[j] == ':' {
			j++
		}
		if j < len(s) && s[j] == '@' {
			j++
		}
		if j >= len(s) || !isSchemeDirective(s[j]) {
			continue // an incomplete directive is text
		}
		spec := s[start : j+1]
		i = j
		if spec == "~" && jump == "" {
			continue // "~~"
		}
		if jump != "" {
			keys[jump+spec] = true
			continue
		}
		pos++
		keys[strconv.Itoa(pos)+"$"+spec] = true
	}
	return keys, false
}

// schemeParams skips comma-separated directive parameters from j.
func schemeParams(s string, j int) int {
	for first := true; ; first = false {
		k := j
		if !first {
			if k >= len(s) || s[k] != ',' {
				return j
			}
			k++
		}
		switch {
		case k < len(s) && (s[k] == '+' || s[k] == '-') && digitsEnd(s, k+1) > k+1:
			k = digitsEnd(s, k+1)
		case digitsEnd(s, k) > k:
			k = digitsEnd(s, k)
		case k+1 < len(s) && s[k] == '\'':
			k += 2
		case k < len(s) && (s[k] == 'v' || s[k] == 'V' || s[k] == '#') && k+1 < len(s) && !isSchemeEnd(s, k+1):
			k++
		default:
			return j
		}
		j = k
	}
}

// isSchemeEnd reports whether s[k] ends a directive, so that "~v" reads
// as the directive v rather than a parameter v with nothing after it.
func isSchemeEnd(s string, k int) bool {
	return k >= len(s) || !(isSchemeDirective(s[k]) || s[k] == ',' || s[k] == ':' || s[k] == '@')
}

func isSchemeDirective(c byte) bool {
	return isLetterByte(c) || strings.IndexByte("%$?&_/|![]()~", c) >= 0
}

func digitsEnd(s string, j int) int {
	for j < len(s) && s[j] >= '0' && s[j] <= '9' {
		j++
	}
	return j
}

// scanPascal scans Object Pascal Format specifiers:
// %[index:][-][width][.precision]type, index/width/precision digits or
// "*". "%%" is a literal. An unindexed specifier takes the argument
// after the previous one, as Format does, so "%s %d" and "%0:s %1:d"
// are the same arguments.
func scanPascal(s string) (map[string]bool, bool) {
	keys := map[string]bool{}
	next := 0
	for i := 0; i < len(s); i++ {
		if s[i] != '%' {
			continue
		}
		j := i + 1
		arg := -1
		if k := digitsEnd(s, j); k < len(s) && s[k] == ':' && k > j {
			arg, _ = strconv.Atoi(s[j:k])
			j = k + 1
		} else if j+1 < len(s) && s[j] == '*' && s[j+1] == ':' {
			arg = -2 // taken from the arguments: keyed by text
			j += 2
		}
		start := j
		if j < len(s) && s[j] == '-' {
			j++
		}
		j = starOrDigits(s, j)
		if j < len(s) && s[j] == '.' {
			j = starOrDigits(s, j+1)
		}
		if j >= len(s) || strings.IndexByte("defgmnpsuxDEFGMNPSUX%", s[j]) < 0 {
			continue
		}
		spec := strings.ToLower(s[start : j+1])
		i = j
		if spec == "%" {
			continue
		}
		switch {
		case arg == -2:
			keys["*:"+spec] = true
		case arg >= 0:
			keys[strconv.Itoa(arg)+":"+spec] = true
			next = arg + 1
		default:
			keys[strconv.Itoa(next)+":"+spec] = true
			next++
		}
	}
	return keys, false
}

func starOrDigits(s string, j int) int {
	if j < len(s) && s[j] == '*' {
		return j + 1
	}
	return digitsEnd(s, j)
}

// scanPerlBrace scans Perl brace placeholders {name} (letters, digits,
// underscore), counted.
func scanPerlBrace(s string) (map[string]bool, bool) {
	keys, seen := map[string]bool{}, repeats{}
	for i := 0; i < len(s); i++ {
		if s[i] != '{' {
			continue
		}
		j := i + 1
		for j < len(s) && isWordByte(s[j]) {
			j++
		}
		if j > i+1 && j < len(s) && s[j] == '}' {
			seen.add(keys, s[i:j+1])
			i = j
		}
	}
	return keys, false
}

// scanLaravel scans Laravel replacements :name (a letter, then letters,
// digits, underscores), counted; case matters (":Name" capitalises the
// value in Laravel, so it is another placeholder).
func scanLaravel(s string) (map[string]bool, bool) {
	keys, seen := map[string]bool{}, repeats{}
	for i := 0; i < len(s); i++ {
		if s[i] != ':' || i+1 >= len(s) || !isLetterByte(s[i+1]) {
			continue
		}
		j := i + 2
		for j < len(s) && isWordByte(s[j]) {
			j++
		}
		seen.add(keys, s[i:j])
		i = j - 1
	}
	return keys, false
}

// scanQtPlural scans Qt's plural count %n and %Ln; their order counts
// (the reference compares them by position).
func scanQtPlural(s string) (map[string]bool, bool) {
	keys := map[string]bool{}
	n := 0
	for i := 0; i+1 < len(s); i++ {
		if s[i] != '%' {
			continue
		}
		j := i + 1
		if s[j] == 'L' {
			j++
		}
		if j < len(s) && s[j] == 'n' {
			n++
			keys[strconv.Itoa(n)+":"+s[i+1:j+1]] = true
			i = j
		}
	}
	return keys, false
}

// scanAutomattic scans Automattic interpolate-components tags {{name}},
// {{/name}} and {{name/}} (white space allowed inside the braces),
// counted and keyed by their exact text, as the reference.
func scanAutomattic(s string) (map[string]bool, bool) {
	keys, seen := map[string]bool{}, repeats{}
	for {
		i := strings.Index(s, "{{")
		if i < 0 {
			return keys, false
		}
		j := i + 2
		if j < len(s) && s[j] == '/' {
			j++
		}
		j = skipSpaces(s, j)
		k := j
		for k < len(s) && isWordByte(s[k]) {
			k++
		}
		if k > j {
			e := skipSpaces(s, k)
			if e < len(s) && s[e] == '/' {
				e++
			}
			if strings.HasPrefix(s[e:], "}}") {
				seen.add(keys, s[i:e+2])
				s = s[e+2:]
				continue
			}
		}
		s = s[i+2:]
	}
}

func skipSpaces(s string, j int) int {
	for j < len(s) && isSpaceByte(s[j]) {
		j++
	}
	return j
}

func isWordByte(c byte) bool {
	return isLetterByte(c) || c >= '0' && c <= '9' || c == '_'
}

// The dialects, each behind its flag (perl-format, lua-format, …).
var _ = register(nil, map[string]whole{
	"perl_format":                  formatCheck(perlPrintf.scan),
	"lua_format":                   formatCheck(luaPrintf.scan),
	"scheme_format":                formatCheck(scanScheme),
	"object_pascal_format":         formatCheck(scanPascal),
	"perl_brace_format":            formatCheck(scanPerlBrace),
	"laravel_format":               formatCheck(scanLaravel),
	"qt_plural_format":             formatCheck(scanQtPlural),
	"automattic_components_format": formatCheck(scanAutomattic),
})
