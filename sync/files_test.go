package sync_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	tolksync "github.com/tolk-project/tolk/sync"

	"github.com/tolk-project/tolk/index"
)

func mustTranslation(tb testing.TB, e env, component, lang string) index.Translation {
	tb.Helper()
	t, err := e.db.FindTranslation(context.Background(), "test", component, lang)
	if err != nil {
		tb.Fatal(err)
	}
	return t
}

func pendingUnit(ctx, source, target string) index.Unit {
	return index.Unit{Context: ctx, Source: []string{source}, Target: []string{target},
		State: index.StateTranslated, Pending: true}
}

// TestParseUpload checks that an upload is read as the import reads the
// component's files: keys only in a translation, keys and values as
// source in the template, terms in a glossary; a byte order mark is
// ignored and a malformed file is a field error with line and column.
func TestParseUpload(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	e := mustEnv(t)
	app, _ := mustRepo(t, map[string]string{
		"locales/en.json": `{"hello": "Hello", "menu": {"file": "File"}}`,
		"locales/de.json": `{"hello": "Hallo"}`,
	})
	gloss, _ := mustRepo(t, map[string]string{"de.tbx": tbxDoc(`<termEntry><langSet xml:lang="en"><tig><term>apple</term></tig></langSet>
		<langSet xml:lang="de"><tig><term>Apfel</term></tig></langSet></termEntry>`)})
	e.reconcile(t, jsonComponent("app", app, "locales/*.json", "locales/en.json", "en"), tbxComponent("gloss", gloss, "*.tbx"))

	de := mustTranslation(t, e, "app", "de")
	units, err := e.svc.ParseUpload(ctx, de, []byte("\ufeff{\"menu\": {\"file\": \"Datei\"}, \"quit\": \"\"}"))
	if err != nil {
		t.Fatal(err)
	}
	want := []index.ImportUnit{
		{Context: "menu.file", Target: []string{"Datei"}, State: index.StateTranslated},
		{Context: "quit", Target: []string{""}, State: index.StateEmpty},
	}
	if !equalUnits(units, want) {
		t.Errorf("de units = %+v, want %+v", units, want)
	}

	en := mustTranslation(t, e, "app", "en")
	units, err = e.svc.ParseUpload(ctx, en, []byte(`{"bye": "Good bye"}`))
	if err != nil || len(units) != 1 || units[0].Source[0] != "Good bye" || units[0].Target[0] != "Good bye" {
		t.Errorf("template units = %+v, %v; want the value as source and target", units, err)
	}

	gde := mustTranslation(t, e, "gloss", "de")
	units, err = e.svc.ParseUpload(ctx, gde, []byte(tbxDoc(`<termEntry id="t1"><langSet xml:lang="en"><tig><term>pear</term></tig></langSet>
		<langSet xml:lang="de"><tig><term>Birne</term></tig></langSet></termEntry>`)))
	if err != nil || len(units) != 1 || units[0].Context != "t1" || units[0].Source[0] != "pear" || units[0].Target[0] != "Birne" {
		t.Errorf("glossary units = %+v, %v; want t1 pear → Birne", units, err)
	}

	_, err = e.svc.ParseUpload(ctx, de, []byte("{\"a\": \"x\",\n  \"b\": }"))
	var fe *index.FieldError
	if !errors.As(err, &fe) || !strings.HasPrefix(fe.Fields["file"].Detail, "Could not parse uploaded file: line 2, column 8: ") {
		t.Errorf("malformed upload = %v, want a field error on file at line 2, column 8", err)
	}
}

func equalUnits(got, want []index.ImportUnit) bool {
	if len(got) != len(want) {
		return false
	}
	for i := range got {
		g, w := got[i], want[i]
		if g.Context != w.Context || strings.Join(g.Target, "|") != strings.Join(w.Target, "|") ||
			strings.Join(g.Source, "|") != strings.Join(w.Source, "|") || g.State != w.State {
			return false
		}
	}
	return true
}

func tbxDoc(entries string) string {
	return `<?xml version="1.0" encoding="UTF-8"?>
<martif type="TBX" xml:lang="en">
	<text>
		<body>
		` + entries + `
		</body>
	</text>
</martif>
`
}

// TestRenderTranslation checks that a download shows pending edits on the
// committed file and changes nothing else: an edited value is replaced in
// place, a key the file lacks is inserted in the file's style, an
// untranslated unit the file lacks and a key holding an object are left
// alone, and with nothing pending the committed bytes come back as they
// are.
func TestRenderTranslation(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	e := mustEnv(t)
	deJSON := "{\r\n\t\"hello\": \"Hallo\",\r\n\r\n\t\"menu\": {\r\n\t\t\"file\": \"Datei\"\r\n\t}\r\n}"
	deTBX := tbxDoc(`<termEntry><langSet xml:lang="en"><tig><term>apple</term></tig></langSet>
			<langSet xml:lang="de"><tig><term/></tig></langSet></termEntry>`)
	app, _ := mustRepo(t, map[string]string{
		"locales/en.json": `{"hello": "Hello", "bye": "Bye", "menu": {"file": "File", "quit": "Quit"}}`,
		"locales/de.json": deJSON,
	})
	gloss, _ := mustRepo(t, map[string]string{"de.tbx": deTBX})
	e.reconcile(t, jsonComponent("app", app, "locales/*.json", "locales/en.json", "en"), tbxComponent("gloss", gloss, "*.tbx"))

	de := mustTranslation(t, e, "app", "de")
	got, err := e.svc.RenderTranslation(ctx, de, nil)
	if err != nil || string(got) != deJSON {
		t.Fatalf("nothing pending: %q, %v; want the committed file", got, err)
	}
	got, err = e.svc.RenderTranslation(ctx, de, []index.Unit{
		pendingUnit("hello", "Hello", "Servus"),
		pendingUnit("bye", "Bye", ""),       // untranslated and absent: nothing to write
		pendingUnit("menu", "Menu", "Menü"), // an object in this file: cannot be a string
		pendingUnit("menu.quit", "Quit", "Beenden"),
	})
	want := "{\r\n\t\"hello\": \"Servus\",\r\n\r\n\t\"menu\": {\r\n\t\t\"file\": \"Datei\",\r\n\t\t\"quit\": \"Beenden\"\r\n\t}\r\n}"
	if err != nil || string(got) != want {
		t.Errorf("rendered de.json =\n%q, %v\nwant\n%q", got, err, want)
	}

	// A translation whose file is not committed yet starts from {}.
	missing := de
	missing.Filename = "locales/fr.json"
	got, err = e.svc.RenderTranslation(ctx, missing, []index.Unit{pendingUnit("hello", "Hello", "Bonjour")})
	if err != nil || string(got) != "{\n    \"hello\": \"Bonjour\"\n}\n" {
		t.Errorf("rendered new file = %q, %v", got, err)
	}
	if _, err := e.svc.RenderTranslation(ctx, missing, nil); !errors.Is(err, index.ErrNotFound) {
		t.Errorf("missing file with nothing pending = %v, want ErrNotFound", err)
	}

	gde := mustTranslation(t, e, "gloss", "de")
	got, err = e.svc.RenderTranslation(ctx, gde, []index.Unit{
		pendingUnit("", "apple", "Apfel"),
		pendingUnit("", "pear", "Birne"), // not in the file: a new entry
	})
	want = strings.Replace(deTBX, "<term/>", "<term>Apfel</term>", 1)
	want = strings.Replace(want, "</termEntry>", "</termEntry>\n\t\t<termEntry><langSet xml:lang=\"en\"><tig><term>pear</term></tig></langSet>"+
		"<langSet xml:lang=\"de\"><tig><term>Birne</term></tig></langSet></termEntry>", 1)
	if err != nil || string(got) != want {
		t.Errorf("rendered de.tbx =\n%s, %v\nwant\n%s", got, err, want)
	}
}

// TestReadFileDuringCommit: a download reads the file at HEAD while a
// commit holds the component (here, stopped between git and the index):
// it does not wait for it.
func TestReadFileDuringCommit(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	e := mustCommitEnv(t)
	e.edit(t, "de", "bye", "Tschüss", e.ann)
	inside, release := make(chan struct{}), make(chan struct{})
	tolksync.SetAfterGitCommit(e.svc, func() error {
		close(inside)
		<-release
		return nil
	})
	done := make(chan error, 1)
	go func() {
		_, err := e.svc.Commit(ctx, e.c, &e.ann)
		done <- err
	}()
	<-inside
	read := make(chan error, 1)
	go func() {
		_, err := e.svc.ReadFile(ctx, e.c, "locales/de.json")
		read <- err
	}()
	select {
	case err := <-read:
		if err != nil {
			t.Errorf("ReadFile during a commit: %v", err)
		}
	case <-time.After(5 * time.Second):
		t.Error("ReadFile waited for the commit")
	}
	close(release)
	if err := <-done; err != nil {
		t.Fatal(err)
	}
}
