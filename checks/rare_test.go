package checks

import (
	"errors"
	"strings"
	"testing"
	"time"
)

// TestRareChecks: the reference's examples (test_markup_checks.py,
// test_chars_checks.py) for bbcode, the reStructuredText checks,
// accelerator and max-size, each through Run with its flag.
func TestRareChecks(t *testing.T) {
	tests := []struct {
		id, flags, src, tgt string
		fail                bool
	}{
		// bbcode (flag bbcode-text; bbcode is Tolk's older alias)
		{"bbcode", "bbcode-text", "[a]string[/a]", "[a]string[/a]", false},
		{"bbcode", "bbcode-text", "string", "string", false},
		{"bbcode", "bbcode-text", "[a]string[/a]", "[b]string[/b]", true},
		{"bbcode", "bbcode-text", "[a]string[/a]", "string", true},
		{"bbcode", "bbcode-text", "string", "[a]string[/a]", true},
		{"bbcode", "bbcode-text", "[b]bold[/b] [i]it[/i]", "[i]it[/i] [b]gras[/b]", false},
		{"bbcode", "bbcode-text", "[url=https://x.org]x[/url]", "[url=https://x.org/fr]x[/url]", false},
		{"bbcode", "bbcode-text", "[b]a[/b] [b]b[/b]", "[b]a b[/b]", true},
		{"bbcode", "bbcode", "[a]string[/a]", "string", true},
		// rst-references
		{"rst-references", "rst-text", ":ref:`foo`", ":ref:`foo`", false},
		{"rst-references", "rst-text", ":ref:`foo`", ":ref:`bar`", true},
		{"rst-references", "rst-text", ":ref:`foo`", "foo", true},
		{"rst-references", "rst-text", ":guilabel:`Help`", ":guilabel:`Pomoc`", false},
		{"rst-references", "rst-text", ":index:`bilingual <pair: translation; bilingual>`", ":index:`vícejazyčný <pair: překlad; vícejazyčný>`", false},
		{"rst-references", "rst-text", ":index:`bilingual <pair: translation; bilingual>`", ":ndex:`vícejazyčný <pair: překlad; vícejazyčný>`", true},
		{"rst-references", "rst-text", ":ref:`acl`", ":tag:`acl`", true},
		{"rst-references", "rst-text", ":option:`wlc push`", ":option:`wlc pull`", true},
		{"rst-references", "rst-text", "Add it to :setting:`django:INSTALLED_APPS`:", "把它添加到:setting:`django:INSTALLED_APPS`:", true},
		{"rst-references", "rst-text", "Add it to :setting:`django:INSTALLED_APPS`:", "把它添加到 :setting:`django:INSTALLED_APPS`:", false},
		{"rst-references", "rst-text", ":ref:`Searching` now supports", ":ref:`Searching`agora suporta", true},
		{"rst-references", "rst-text", ":ref:`data volume <docker-volume>`", ":ref:` toirt sonraí <docker-volume>`", true},
		{"rst-references", "rst-text", ":kbd:`Ctrl+Home`", ": kbd:`Ctrl+Home`", true},
		{"rst-references", "rst-text", ":kbd:`Ctrl+Home`", ":kbd:`Ctrl+Inicio`", false},
		{"rst-references", "rst-text", ":kbd:`Ctrl+Home`", ":kbd:`Ctrl+Inicio `", true},
		{"rst-references", "rst-text", "Context [#c]_", "Kontext", true},
		{"rst-references", "rst-text", "Context [#c]_", "Kontext [#c]_", false},
		{"rst-references", "rst-text", "Context `c`_", "Kontext", true},
		{"rst-references", "rst-text", "Context `c`_", "Kontext `c`", true},
		{"rst-references", "rst-text", "Context `c`_", "Kontext `c`_", false},
		{"rst-references", "rst-text", "`Webhooks in Gitea manual <https://docs.gitea.io/en-us/webhooks/>`_", "`Webhooks în manualul Gitea<https://docs.gitea.io/en-us/webhooks/>`_", true},
		{"rst-references", "rst-text", "`backup service at weblate.org <https://weblate.org/support/#backup>`_", "`weblate.org <https://weblate.org/support/#backup> üzerinden yedekleme hizmeti`_", true},
		{"rst-references", "rst-text", "`Setup Authentication.`_", "`Авторизация <Setup Authentication.>`_", true},
		{"rst-references", "rst-text", "see :ref:`check-object-pascal-format`.", "zobacz :ref:`check-object-pascal-format``.", true},
		{"rst-references", "", ":ref:`foo`", "foo", false},
		// rst-syntax
		{"rst-syntax", "rst-text", "``foo``", "``foo``", false},
		{"rst-syntax", "rst-text", "string", "string", false},
		{"rst-syntax", "", "``foo``", "``foo`", false},
		{"rst-syntax", "rst-text", "``foo``", "``foo`", true},
		{"rst-syntax", "rst-text", "``foo``", ":ref:`foo`bar", true},
		{"rst-syntax", "rst-text", "``foo``", ":ref:`foo bar` `", true},
		{"rst-syntax", "rst-text", ":abcde:`Ctrl+Home`", ":abcde:`Ctrl+Home`", false},
		{"rst-syntax", "rst-text", ":abcde:`Ctrl+Home`", ":defgh:`Ctrl+Home`", true},
		{"rst-syntax", "rst-text", "`Webhooks in Gitea manual <https://docs.gitea.io/en-us/webhooks/>`_", "`Webhooks în manualul Gitea <https://docs.gitea.io/en-us/webhooks/>``_", true},
		{"rst-syntax", "rst-text", "`Webhooks in Gitea manual <https://docs.gitea.io/en-us/webhooks/>`_", "`Webhooks in Gitea manual <https://docs.gitea.io/en-us/webhooks/>`_", false},
		{"rst-syntax", "rst-text", "`Webhooks in Gitea manual`_", "`Webhooks in Gitea manual`_", false},
		{"rst-syntax", "rst-text", ":tag:`acl`", ":tag:`acl`", false},
		{"rst-syntax", "rst-text", ":ref:`bar`", ":ref:`bar", true},
		{"rst-syntax", "rst-text", "**bold** and *it*", "**gras** et *it*", false},
		{"rst-syntax", "rst-text", "**bold**", "**gras", true},
		{"rst-syntax", "rst-text", "5 * 3 = 15", "5 * 3 = 15", false},
		{"rst-syntax", "rst-text", "Use :literal:`x`", "Utiliser :literal:`x`", false},
		{"rst-syntax", "rst-text", `a \*b`, `a \*b`, false},
		// accelerator
		{"accelerator", "accelerator:&", "&File", "&Fichier", false},
		{"accelerator", "accelerator:&", "&File", "Fichier", true},
		{"accelerator", "accelerator:&", "File", "&Fichier", true},
		{"accelerator", "accelerator:&", "&File", "&Fi&chier", true},
		{"accelerator", "accelerator:&", "Save && &quit", "Enregistrer && &quitter", false},
		{"accelerator", "accelerator:_", "_Open", "_Ouvrir", false},
		{"accelerator", "accelerator:_", "_Open", "Ouvrir", true},
		{"accelerator", "", "&File", "Fichier", false},
		// max-size (Tolk's width table: about 6 px a lower-case letter at size 10)
		{"max-size", "max-size:100", "Save", "Enregistrer", false},
		{"max-size", "max-size:40", "Save", "Enregistrer", true},
		{"max-size", "max-size:100:2", "Save the file", "Enregistrer le fichier", false},
		{"max-size", "max-size:100", "Save the file", "Enregistrer le fichier", true},
		{"max-size", "max-size:100:2", "Save the file", "Enregistrer le fichier maintenant sur le disque", true},
		{"max-size", "max-size:100, font-size:20", "Save", "Enregistrer", true},
		{"max-size", "max-size:50, replacements:%s:Name", "Hi %s", "Salut %s", true},
		{"max-size", "max-size:50", "Hi %s", "Salut %s", false},
		{"max-size", "", "Save", "Enregistrer le fichier maintenant sur le disque", false},
	}
	for _, tt := range tests {
		c, ok := ByID(tt.id)
		if !ok || !c.Implemented {
			t.Fatalf("%s: not implemented", tt.id)
		}
		if got := formatFails(t, tt.id, tt.flags, []string{tt.src}, []string{tt.tgt}); got != tt.fail {
			t.Errorf("%s [%s]: %q → %q: fail = %v, want %v", tt.id, tt.flags, tt.src, tt.tgt, got, tt.fail)
		}
	}
}

// TestRareFlagsValidate: a bad accelerator marker or max-size is a
// *FlagError naming the flag, as a malformed flag on write must be a 400
// naming the field.
func TestRareFlagsValidate(t *testing.T) {
	for _, bad := range []string{"accelerator:ab", "accelerator:x", "accelerator", "max-size:wide",
		"max-size:100:0", "max-size:-5", "max-size:1:2:3"} {
		_, err := ParseFlags(bad)
		var fe *FlagError
		if !errors.As(err, &fe) || !strings.HasPrefix(bad, fe.Flag) {
			t.Errorf("ParseFlags(%q) = %v, want a FlagError naming the flag", bad, err)
		}
	}
	for _, good := range []string{"accelerator:&", "accelerator:_", "max-size:120", "max-size:120:3, font-size:12",
		"bbcode-text", "bbcode", "rst-text", "perl-format", "lua-format", "scheme-format", "laravel-format",
		"qt-plural-format", "automattic-components-format", "object-pascal-format", "perl-brace-format",
		"ignore-bbcode", "ignore-rst-syntax", "ignore-accelerator", "ignore-max-size"} {
		if _, err := ParseFlags(good); err != nil {
			t.Errorf("ParseFlags(%q): %v", good, err)
		}
	}
}

// TestRareBounded: 100,000 hostile characters under every new check
// finish quickly (the markup scanners skip over their bound).
func TestRareBounded(t *testing.T) {
	hostile := []string{strings.Repeat(":a:`x ", 20000), strings.Repeat("[a]", 33000), strings.Repeat("``*`", 25000),
		strings.Repeat("&&&", 33000), strings.Repeat("word ", 20000)}
	flags := "bbcode-text, rst-text, accelerator:&, max-size:100:1000"
	for _, h := range hostile {
		for _, n := range []int{9000, len(h)} {
			s := h[:n]
			start := time.Now()
			RunDetailed(Unit{Source: []string{s}, Target: []string{s + "x"}, Language: "fr", Flags: mustFlags(t, flags)})
			if d := time.Since(start); d > 2*time.Second {
				t.Errorf("%q… (%d bytes) took %v", s[:12], n, d)
			}
		}
	}
}
