package checks

import (
	"strings"
	"testing"
	"time"
)

func TestText(t *testing.T) {
	runCases(t, []runCase{
		{name: "multiple_capital", src: "Hello world", tgt: "HAllo Welt", want: []string{"multiple_capital"}},
		{name: "multiple_capital THis", src: "This is it", tgt: "THis ist es", want: []string{"multiple_capital"}},
		{name: "multiple_capital plural abbreviation", src: "Edit URLs", tgt: "URLs bearbeiten"},
		{name: "multiple_capital all caps", src: "Open the PDF file", tgt: "PDF-Datei öffnen"},
		{name: "multiple_capital camel case", src: "Your iPhone", tgt: "Ihr iPhone"},
		{name: "multiple_capital from source", src: "Log in with OAuth", tgt: "Mit OAuth anmelden"},
		{name: "ignore-multiple-capital", src: "Hello world", tgt: "HAllo Welt", flags: "ignore-multiple-capital"},
		{name: "duplicate", src: "Delete the file", tgt: "Die Datei Datei löschen", want: []string{"duplicate"}},
		{name: "duplicate across punctuation", src: "Delete the file", tgt: "Datei, Datei löschen", want: []string{"duplicate"}},
		{name: "duplicate tags", src: "Line<br/><br/>break", tgt: "Zeile<br/><br/>Umbruch"},
		{name: "duplicate in source too", src: "Bora Bora island", tgt: "Insel Bora Bora"},
		{name: "duplicate case differs", src: "Delete the file", tgt: "Die die Datei"},
		{name: "duplicate one letter", src: "Type a a", tgt: "Tippe a a"},
		{name: "duplicate french nous", src: "We meet", tgt: "Nous nous rencontrons", lang: "fr"},
		{name: "duplicate french nous lower", src: "Then we meet", tgt: "alors nous nous rencontrons", lang: "fr"},
		{name: "duplicate french other word", src: "Then we meet", tgt: "alors alors nous", lang: "fr", want: []string{"duplicate"}},
		{name: "duplicate nous not ignored in de", src: "Then we meet", tgt: "dann nous nous", want: []string{"duplicate"}},
		{name: "ignore-duplicate", src: "Delete the file", tgt: "Die Datei Datei löschen", flags: "ignore-duplicate"},
		{name: "max-lines", src: "One\ntwo", tgt: "Eins\nzwei\ndrei", flags: "max-lines:2", want: []string{"newline-count", "max-lines"}},
		{name: "max-lines fits", src: "One\ntwo", tgt: "Eins\nzwei", flags: "max-lines:2"},
		{name: "max-lines trailing newline", src: "One\ntwo\n", tgt: "Eins\nzwei\n", flags: "max-lines:2"},
		{name: "max-lines crlf", src: "One\ntwo", tgt: "Eins\r\nzwei\rdrei", flags: "max-lines:2, ignore-newline-count", want: []string{"max-lines"}},
		{name: "ignore-max-lines", src: "One two", tgt: "Eins\nzwei", flags: "max-lines:1, ignore-max-lines, ignore-newline-count"},
		{name: "url", src: "https://example.com/", tgt: "see example.com", flags: "url", want: []string{"url"}},
		{name: "url ok", src: "https://example.com/", tgt: "https://example.de/de/", flags: "url"},
		{name: "url localhost", src: "http://localhost:8000/", tgt: "http://localhost:8080/x", flags: "url"},
		{name: "url javascript", src: "https://example.com/", tgt: "javascript:alert(1)", flags: "url", want: []string{"url"}},
		{name: "url no host", src: "https://example.com/", tgt: "https://example/", flags: "url", want: []string{"url"}},
		{name: "url space", src: "https://example.com/", tgt: "https://exa mple.com/", flags: "url", want: []string{"url"}},
		{name: "url not flagged", src: "https://example.com/", tgt: "example"},
		{name: "ignore-url", src: "https://example.com/", tgt: "example", flags: "url, ignore-url"},
	})
}

func init() {
	ignoreUnits = append(ignoreUnits, []struct{ id, src, tgt, flags string }{
		{"multiple_capital", "Hello world", "HAllo Welt", ""},
		{"duplicate", "Delete the file", "Die Datei Datei", ""},
		{"max-lines", "One two", "Eins\nzwei", "max-lines:1, ignore-newline-count"},
		{"url", "https://example.com/", "example", "url"},
	}...)
}

func TestTextBounded(t *testing.T) {
	long := strings.Repeat("HEllo ", 100_000/6)
	start := time.Now()
	Run(Unit{Source: []string{"Hi"}, Target: []string{long}, Language: "de", Flags: mustFlags(t, "url, max-lines:1")})
	Run(Unit{Source: []string{"Hi"}, Target: []string{strings.Repeat("\n", 100_000)}, Language: "de", Flags: mustFlags(t, "url, max-lines:1")})
	if d := time.Since(start); d > 10*time.Second {
		t.Errorf("took %v", d)
	}
}
