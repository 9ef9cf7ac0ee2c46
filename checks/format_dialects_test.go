package checks

import "testing"

// TestFormatDialects: the reference's examples for the rare dialects
// (weblate/checks/tests/test_format_checks.py), each through Run with
// the dialect's flag.
func TestFormatDialects(t *testing.T) {
	tests := []struct {
		id, src, tgt string
		fail         bool
	}{
		// perl_format and lua_format: C's tests.
		{"perl_format", "strins", "string", false},
		{"perl_format", "%s string", "%s string", false},
		{"perl_format", "%10s string", "%10s string", false},
		{"perl_format", "%s string", "string", true},
		{"perl_format", "%s string", "%c string", true},
		{"perl_format", "%10s string", "%20s string", true},
		{"perl_format", "%1$s %2$s string", "%2$s %1$s string", false},
		{"perl_format", "(%.0lf%%)", "(%%%.0lf)", false},
		{"perl_format", "%b bits", "%b bits", false},
		{"lua_format", "strins", "string", false},
		{"lua_format", "%s string", "%s string", false},
		{"lua_format", "%s string", "string", true},
		{"lua_format", "%s string", "%c string", true},
		{"lua_format", "%10s string", "%20s string", true},
		{"lua_format", "%q quoted", "%q cité", false},
		{"lua_format", "%q quoted", "%s cité", true},
		// scheme_format
		{"scheme_format", "strins", "string", false},
		{"scheme_format", "~s string", "~s string", false},
		{"scheme_format", "~0@*~s string", "~0@*~s string", false},
		{"scheme_format", "~s string", "string", true},
		{"scheme_format", "~1@*~s string", "string", true},
		{"scheme_format", "~s string", "~c string", true},
		{"scheme_format", "~s string", "~s~s string", true},
		{"scheme_format", "~1@*~s ~2@*~s string", "~2@*~s ~1@*~s string", false},
		{"scheme_format", "~1@*~s string", "~s string", true},
		{"scheme_format", "~s~~ (0.1~~)", "~s~~ (0.1~x)", true},
		{"scheme_format", "~s~~ ~~", "~s~~ tilde", false},
		{"scheme_format", "~a and ~d", "~d and ~a", true},
		{"scheme_format", "~5,'0d", "~5,'0d", false},
		// object_pascal_format
		{"object_pascal_format", "strins", "string", false},
		{"object_pascal_format", "%s string", "%s string", false},
		{"object_pascal_format", "%10s string", "%10s string", false},
		{"object_pascal_format", "%s string", "string", true},
		{"object_pascal_format", "string", "%s string", true},
		{"object_pascal_format", "%10s string", "string", true},
		{"object_pascal_format", "%s string", "%d string", true},
		{"object_pascal_format", "%d string", "%c string", true},
		{"object_pascal_format", "%c string", "%c string", false},
		{"object_pascal_format", "%6.2f%% string", "%6.2f%% string", false},
		{"object_pascal_format", "%6.2f string", "%5.3f string", true},
		{"object_pascal_format", "%*s string", "%10s string", true},
		{"object_pascal_format", "%1:s %2:d string", "%2:d %1:s string", false},
		{"object_pascal_format", "%s %d", "%1:d %0:s", false}, // Tolk reads the arguments, as Format does
		// perl_brace_format
		{"perl_brace_format", "string", "string", false},
		{"perl_brace_format", "{x} string {y}", "{x} string {y}", false},
		{"perl_brace_format", "{x} string", "{x} string {y}", true},
		{"perl_brace_format", "{x} string", "string", true},
		{"perl_brace_format", "{x} string", "{y} string", true},
		{"perl_brace_format", "{x} {x}", "{x}", true},
		// laravel_format
		{"laravel_format", "Test", "Test", false},
		{"laravel_format", "Test :name", "Test :name", false},
		{"laravel_format", "Test :name", "Test", true},
		{"laravel_format", "Test", "Test :name", true},
		{"laravel_format", "The :attribute must be :value", "The :attribute must be :value", false},
		{"laravel_format", ":name :value", ":value :name", false},
		{"laravel_format", ":attribute", ":name", true},
		{"laravel_format", ":name", ":Name", true},
		{"laravel_format", ":user_id :value2", ":user_id :value2", false},
		{"laravel_format", ":start middle :end", ":start middle :end", false},
		{"laravel_format", "Time: 10:30", "Heure : 10:30", false},
		// qt_plural_format
		{"qt_plural_format", "strins", "string", false},
		{"qt_plural_format", "%n string(s)", "%n string", false},
		{"qt_plural_format", "%Ln string(s)", "%Ln string", false},
		{"qt_plural_format", "%n string(s)", "string", true},
		{"qt_plural_format", "%n string(s)", "%Ln string", true},
		// automattic_components_format
		{"automattic_components_format", "strins", "string", false},
		{"automattic_components_format", "{{foo}} string {{/foo}}", "{{foo}} string {{/foo}}", false},
		{"automattic_components_format", "{{foo/}} string", "{{foo/}} string", false},
		{"automattic_components_format", "{{foo}} string", "string", true},
		{"automattic_components_format", "{{foo}} string {{/foo}}", "{{foo}} string", true},
		{"automattic_components_format", "{{foo}} string {{/foo}}", "{{foo}} string {{/bar}}", true},
		{"automattic_components_format", "{{foo/}} string", "{{baz/}} string", true},
		{"automattic_components_format", "{{ strong }} hello {{/strong}}", "{{ strong }} salut {{/strong}}", false},
	}
	for _, tt := range tests {
		c, ok := ByID(tt.id)
		if !ok || !c.Implemented {
			t.Fatalf("%s: not implemented", tt.id)
		}
		if got := formatFails(t, tt.id, c.Flag, []string{tt.src}, []string{tt.tgt}); got != tt.fail {
			t.Errorf("%s: %q → %q: fail = %v, want %v", tt.id, tt.src, tt.tgt, got, tt.fail)
		}
		if formatFails(t, tt.id, "", []string{tt.src}, []string{tt.tgt}) {
			t.Errorf("%s ran without its flag", tt.id)
		}
	}
}

// TestFormatDialectsTotal: the dialect scanners on short strings over
// their alphabets never panic.
func TestFormatDialectsTotal(t *testing.T) {
	alphabet := "%~{}:@*,'/$.-L019sdntvV# "
	scanners := []scanner{perlPrintf.scan, luaPrintf.scan, scanScheme, scanPascal, scanPerlBrace,
		scanLaravel, scanQtPlural, scanAutomattic}
	randomStrings(alphabet, 7, 10, func(s string) {
		for _, sc := range scanners {
			sc(s)
		}
	})
}

// randomStrings calls fn on 20,000 strings of up to maxLen-1 bytes
// drawn from alphabet by a fixed generator (the same strings each run).
func randomStrings(alphabet string, seed uint32, maxLen int, fn func(string)) {
	for n := 0; n < 20000; n++ {
		b := make([]byte, n%maxLen)
		for i := range b {
			seed = seed*1664525 + 1013904223
			b[i] = alphabet[int(seed>>16)%len(alphabet)]
		}
		fn(string(b))
	}
}
