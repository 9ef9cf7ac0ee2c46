package checks

import (
	"slices"
	"strings"
	"testing"
	"time"
)

// formatFails runs Run with the flag and reports whether id failed.
func formatFails(t *testing.T, id, flags string, src, tgt []string) bool {
	t.Helper()
	u := Unit{Source: src, Target: tgt, Language: "fr", Flags: mustFlags(t, flags)}
	return slices.Contains(ids(Run(u)), id)
}

func TestFormatChecks(t *testing.T) {
	tests := []struct {
		id, src, tgt string
		fail         bool
	}{
		// c_format
		{"c_format", "%d files", "%d fichiers", false},
		{"c_format", "%d files", "fichiers", true},
		{"c_format", "files", "%d fichiers", true},
		{"c_format", "%s of %d", "%d de %s", true},
		{"c_format", "%s of %d", "%2$d de %1$s", false},
		{"c_format", "%1$s of %2$d", "%2$d de %1$s", false},
		{"c_format", "100%% done", "fait à 100%%", false},
		{"c_format", "100%% done", "fait à 100 %", false},
		{"c_format", "%5.2f MB", "%5.2f Mo", false},
		{"c_format", "%5.2f MB", "%f Mo", true},
		{"c_format", "%ld bytes", "%ld octets", false},
		{"c_format", "%ld bytes", "%d octets", true},
		{"c_format", "%s and %s", "%s", true},
		{"c_format", "%lld items", "%lld éléments", false},
		// The reference's test_locale_delimiter: the ' flag is the
		// locale's grouping, a translator's choice.
		{"c_format", "lines: %6.3f", "radky: %'6.3f", false},
		{"c_format", "%'d files", "%d fichiers", false},
		{"c_format", "%'d files", "%'s fichiers", true},
		// objc_format (Apple .strings)
		{"objc_format", "Follow %@", "Folgen %@", false},
		{"objc_format", "%@ followed %@", "%2$@ folgte %1$@", false},
		{"objc_format", "Follow %@", "Folgen", true},
		{"objc_format", "%ld posts", "%@ Beiträge", true},
		// python_format
		{"python_format", "%(count)d files", "%(count)d fichiers", false},
		{"python_format", "%(count)d files", "%(nombre)d fichiers", true},
		{"python_format", "%(a)s and %(b)s", "%(b)s et %(a)s", false},
		{"python_format", "%s is %d%%", "%s est %d %%", false},
		{"python_format", "%s is %d", "%s est", true},
		{"python_format", "100% sure", "sûr à 100 %", false},
		// python_brace_format
		{"python_brace_format", "{} of {}", "{} de {}", false},
		{"python_brace_format", "{0} of {1}", "{1} de {0}", false},
		{"python_brace_format", "{} of {}", "{1} de {0}", false},
		{"python_brace_format", "{name} is here", "{nom} est là", true},
		{"python_brace_format", "{name!r:>10} x", "{name!r:>10} y", false},
		{"python_brace_format", "{name!r:>10} x", "{name} y", true},
		{"python_brace_format", "{{literal}} {0}", "{{littéral}} {0}", false},
		{"python_brace_format", "{0}", "{0} }", true},
		{"python_brace_format", "{0}", "{0", true},
		{"python_brace_format", "{0:{width}}", "{0:{width}}", false},
		// i18next_interpolation
		{"i18next_interpolation", "Hello {{name}}", "Bonjour {{ name }}", false},
		{"i18next_interpolation", "Hello {{name}}", "Bonjour {{nom}}", true},
		{"i18next_interpolation", "Hello {{- name}}", "Bonjour {{-name}}", false},
		{"i18next_interpolation", "See $t(key.other)", "Voir $t( key.other )", false},
		{"i18next_interpolation", "See $t(key.other)", "Voir", true},
		{"i18next_interpolation", "{{a}} {{b}}", "{{b}} {{a}}", false},
		// java_printf_format
		{"java_printf_format", "%s has %d%n", "%s a %d%n", false},
		{"java_printf_format", "%s has %d", "%2$d pour %1$s", false},
		{"java_printf_format", "%s has %d", "%s a", true},
		{"java_printf_format", "%1$tY-%1$tm", "%1$tm/%1$tY", false},
		{"java_printf_format", "100%% of %s", "100 %% de %s", false},
		// java_format (MessageFormat)
		{"java_format", "{0} files", "{0} fichiers", false},
		{"java_format", "{0} files in {1}", "{1} contient {0} fichiers", false},
		{"java_format", "{0} files", "fichiers", true},
		{"java_format", "{0,number} files", "{0,number} fichiers", false},
		{"java_format", "{0,number} files", "{0,date} fichiers", true},
		{"java_format", "{0} file", "l''homme {0}", false},
		{"java_format", "{0} file", "l'homme {0}", true},
		{"java_format", "'{0}' {1}", "'{0}' {1}", false},
		{"java_format", "{0,choice,0#none|1#one {1}}", "{0,choice,0#aucun|1#un {1}}", false},
		// javascript_format
		{"javascript_format", "%s items", "%s éléments", false},
		{"javascript_format", "%s items", "éléments", true},
		{"javascript_format", "%d of %s", "%2$s : %1$d", false},
		// php_format
		{"php_format", "%s and %d", "%s et %d", false},
		{"php_format", "%1$s and %2$s", "%2$s et %1$s", false},
		{"php_format", "%s and %s", "%s et", true},
		{"php_format", "%'.10d", "%'.10d", false},
		// percent_placeholders
		{"percent_placeholders", "Hello %name%", "Bonjour %name%", false},
		{"percent_placeholders", "Hello %name%", "Bonjour %nom%", true},
		{"percent_placeholders", "100% and 50%", "100 % et 50 %", false},
		{"percent_placeholders", "%a% %b%", "%b% %a%", false},
		// qt_format
		{"qt_format", "%1 of %2", "%2 de %1", false},
		{"qt_format", "%1 of %2", "%1 de", true},
		{"qt_format", "%L1 files", "%L1 fichiers", false},
		{"qt_format", "%L1 files", "%1 fichiers", true},
		{"qt_format", "%12 x", "%12 y", false},
		// es_format
		{"es_format", "Hello ${name}", "Bonjour ${ name }", false},
		{"es_format", "Hello ${name}", "Bonjour", true},
		// vue_format
		{"vue_format", "Hello {name}", "Bonjour {name}", false},
		{"vue_format", "Hello {name}", "Bonjour {nom}", true},
		{"vue_format", "{0} and {1}", "{1} et {0}", false},
		{"vue_format", "See @:common.more", "Voir @:common.more", false},
		{"vue_format", "See @:common.more", "Voir", true},
		{"vue_format", "See @.lower:common.more", "Voir @.lower:common.more", false},
		// ruby_format
		{"ruby_format", "Hello %{name}", "Bonjour %{name}", false},
		{"ruby_format", "Hello %{name}", "Bonjour %{nom}", true},
		{"ruby_format", "%<n>d items", "%<n>d éléments", false},
		{"ruby_format", "%s items", "éléments", true},
		// c_sharp_format
		{"c_sharp_format", "{0} of {1}", "{1} de {0}", false},
		{"c_sharp_format", "{0:N2} total", "{0:N2} au total", false},
		{"c_sharp_format", "{0:N2} total", "{0} au total", true},
		{"c_sharp_format", "{{0}} {0}", "{{0}} {0}", false},
		{"c_sharp_format", "{0}", "{0} {", true},
		// angularjs_format
		{"angularjs_format", "Hello {{ user.name }}", "Bonjour {{user.name}}", false},
		{"angularjs_format", "Hello {{ user.name }}", "Bonjour {{ user }}", true},
	}
	for _, tt := range tests {
		flag := dashed(tt.id)
		if got := formatFails(t, tt.id, flag, []string{tt.src}, []string{tt.tgt}); got != tt.fail {
			t.Errorf("%s: %q → %q: fail = %v, want %v", tt.id, tt.src, tt.tgt, got, tt.fail)
		}
		// Without the flag the check does not run.
		if formatFails(t, tt.id, "", []string{tt.src}, []string{tt.tgt}) {
			t.Errorf("%s ran without its flag", tt.id)
		}
	}
}

func TestFormatPlurals(t *testing.T) {
	src := []string{"One file", "%d files"}
	// The "one" form may omit the number; the other may not.
	if formatFails(t, "c_format", "c-format", src, []string{"Un fichier", "%d fichiers"}) {
		t.Error("one form without the number failed")
	}
	if !formatFails(t, "c_format", "c-format", src, []string{"Un fichier", "fichiers"}) {
		t.Error("other form without the number passed")
	}
	if !formatFails(t, "c_format", "c-format, strict-format", []string{"%d file", "%d files"}, []string{"Un fichier", "%d fichiers"}) {
		t.Error("strict-format allowed a missing placeholder")
	}
	if !formatFails(t, "c_format", "c-format", src, []string{"%s fichier", "%d fichiers"}) {
		t.Error("extra placeholder in the one form passed")
	}
	// A one-form language pairs with the last source form.
	if formatFails(t, "c_format", "c-format", src, []string{"%d fichiers"}) {
		t.Error("single form failed")
	}
	if !formatFails(t, "c_format", "c-format", src, []string{"fichiers"}) {
		t.Error("single form without the number passed")
	}
	if formatFails(t, "c_format", "ignore-c-format, c-format", src, []string{"fichiers"}) {
		t.Error("ignore flag did not silence")
	}
}

func TestFormatBounded(t *testing.T) {
	long := strings.Repeat("%{{${%(a", 100_000/8)
	for _, id := range formatIDs {
		c, _ := ByID(id)
		if _, ok := implemented[id]; !ok {
			t.Errorf("%s not implemented", id)
		}
		start := time.Now()
		formatFails(t, id, c.Flag, []string{long}, []string{long + "{"})
		if d := time.Since(start); d > 10*time.Second {
			t.Errorf("%s took %v on 100,000 characters", id, d)
		}
	}
}

func TestPlaceholders(t *testing.T) {
	tests := []struct {
		flags, src, tgt string
		fail            bool
	}{
		{`placeholders:$URL$:"%s"`, "Open $URL$ now", "Ouvrir $URL$", false},
		{`placeholders:$URL$:"%s"`, "Open $URL$ now", "Ouvrir maintenant", true},
		{`placeholders:$URL$:"%s"`, "Open it", "Ouvrir $URL$", true}, // extra, as in Weblate
		{`placeholders:$URL$:"%s"`, "Hi %s", "Salut", true},
		{`placeholders:$URL$`, "Open $URL$", "Ouvrir $url$", true},
		{`placeholders:$URL$, case-insensitive`, "Open $URL$", "Ouvrir $url$", false},
		{`placeholders:"{user name}"`, "Hi {user name}", "Salut {user name}", false},
		{`placeholders:r"\{\d\}"`, "Item {0}", "Élément", true},
		{`placeholders:r"\{\d\}"`, "Item {0}", "Élément {0}", false},
		{`placeholders:r"\{\d\}"`, "Item {0}", "Élément {1}", true},
		{`placeholders:r"\{\d\}"`, "Item", "Élément {1}", true},
		{`placeholders:r"\{\d\}"`, `Item \{0}`, `Élément \{0}`, false},
		{`placeholders:$URL$:r"%\w+%"`, "Open $URL$ as %user%", "%user% ouvre $URL$", false},
		{`placeholders:r"<x\s[^>]*/>"`, `Quota <x id="A"/> par jour`, `Quota par jour`, true},
		{`placeholders:r"\$[a-z]+\$", case-insensitive`, "Open $url$", "Ouvrir $URL$", false},
		{`placeholders:r"\$[a-z]+\$"`, "Open $url$", "Ouvrir $URL$", true},
	}
	for _, tt := range tests {
		if got := formatFails(t, "placeholders", tt.flags, []string{tt.src}, []string{tt.tgt}); got != tt.fail {
			t.Errorf("%s: %q → %q: fail = %v, want %v", tt.flags, tt.src, tt.tgt, got, tt.fail)
		}
	}
	if formatFails(t, "placeholders", "", []string{"Open $URL$"}, []string{"Ouvrir"}) {
		t.Error("placeholders ran without its flag")
	}
}

// TestFormatScannersTotal feeds every scanner short strings over the
// syntax's alphabet: none may panic.
func TestFormatScannersTotal(t *testing.T) {
	alphabet := "%{}'$()<>@:.,!L019sdtn- "
	scanners := []scanner{cPrintf.scan, pythonPrintf.scan, phpPrintf.scan, javaPrintf.scan,
		javascriptPrintf.scan, rubyPrintf.scan, scanBrace, scanCSharp, scanMessageFormat,
		scanI18next, scanAngular, scanES, scanPercent, scanQt, scanVue}
	seed := uint32(1)
	for n := 0; n < 20000; n++ {
		b := make([]byte, n%9)
		for i := range b {
			seed = seed*1664525 + 1013904223
			b[i] = alphabet[int(seed>>16)%len(alphabet)]
		}
		for _, sc := range scanners {
			sc(string(b))
		}
	}
}
