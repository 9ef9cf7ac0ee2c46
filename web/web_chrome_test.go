package web_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/tolk-project/tolk/internal/servertest"
)

// TestTranslateEntry: the translation, component and project pages lead
// into the editor with a visible "Translate", at the strings left to do;
// a signed-out visitor in the editor is told what they may do.
func TestTranslateEntry(t *testing.T) {
	srv, _ := servertest.DemoServer(t)
	b := newBrowser(t, srv.URL)
	todo := `/translate/demo/app/de/?q=state%3A%3Ctranslated`
	for path, want := range map[string]string{
		"/projects/demo/app/de/": `<a class="button" href="` + srv.URL + todo + `">Translate</a>`,
		"/projects/demo/app/":    `href="` + srv.URL + todo + `" class="go">Translate<span class="sr"> German</span>`,
		"/projects/demo/":        `href="` + srv.URL + todo + `" class="go">Translate<span class="sr"> App, German</span>`,
	} {
		r := b.get(path)
		if r.Status != http.StatusOK || !strings.Contains(string(r.Body), want) {
			t.Errorf("%s = %d, lacks %s:\n%s", path, r.Status, want, r.Body)
		}
	}
	// The button's address opens the editor at a string to translate.
	r := b.get(todo)
	if r.Status != http.StatusOK || !strings.Contains(string(r.Body), `<textarea name="target"`) {
		t.Fatalf("GET %s = %d\n%s", todo, r.Status, r.Body)
	}
	if !strings.Contains(string(r.Body), `You are not signed in: you may read every string here`) ||
		!strings.Contains(string(r.Body), `<a href="/accounts/login/?next=%2ftranslate%2fdemo%2fapp%2fde%2f%3fq%3dstate%253A%253Ctranslated">Sign in</a> to translate`) {
		t.Errorf("the editor does not tell a visitor what they may do:\n%s", r.Body)
	}
}
