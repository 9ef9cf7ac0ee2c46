package main

import (
	"encoding/json"
	"net/http"
	neturl "net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"
)

// chromium finds Debian's chromium. The browser test skips without it
// only outside CI: .ci/run installs it.
func chromium(t *testing.T) string {
	t.Helper()
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	if os.Getenv("CI") == "" {
		t.Skip("no chromium on PATH (apt-get install chromium); CI installs it")
	}
	t.Fatal("CI is set but chromium is not on PATH")
	return ""
}

// screenshotDir is where the editor's screenshot goes: $TOLK_SCREENSHOT_DIR
// when set, else the test's artifact directory (kept with go test
// -artifacts).
func screenshotDir(t *testing.T) string {
	if d := os.Getenv("TOLK_SCREENSHOT_DIR"); d != "" {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
		return d
	}
	return t.ArtifactDir()
}

// apiGet decodes a JSON answer of the API, read with the demo
// administrator's token.
func apiGet(t *testing.T, p *tolkProcess, path string) map[string]any {
	t.Helper()
	req, _ := http.NewRequest("GET", p.base+path, nil)
	req.Header.Set("Authorization", "Token "+p.token)
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	var out map[string]any
	if err := json.NewDecoder(res.Body).Decode(&out); err != nil || res.StatusCode != http.StatusOK {
		t.Fatalf("GET %s = %d %v", path, res.StatusCode, err)
	}
	return out
}

// TestBrowserEditor drives headless Chromium against tolk serve: sign
// in, open a translation, filter to the untranslated strings, translate
// two with the keyboard alone, and check the statistics moved and the
// API shows both changes by the translator.
func TestBrowserEditor(t *testing.T) {
	p, ctx := demoBrowser(t) // browser_workspace_test.go
	before := apiGet(t, p, "/api/translations/demo/app/de/statistics/")

	css := func(s string) chromedp.CSS { return chromedp.CSS(s) }
	text := func(sel string) string {
		t.Helper()
		v, err := chromedp.Run(ctx, chromedp.Text(css(sel)))
		if err != nil {
			t.Fatalf("text of %s: %v", sel, err)
		}
		return strings.TrimSpace(v)
	}
	do := func(what string, steps ...chromedp.Action[chromedp.Void]) {
		t.Helper()
		if err := chromedp.Do(ctx, steps...); err != nil {
			t.Fatalf("%s: %v", what, err)
		}
	}
	ctrl := chromedp.KeyModifiers(chromedp.ModifierCtrl)
	// keyChanged waits until the editor shows another string than key.
	keyChanged := func(key string) chromedp.Action[chromedp.Void] {
		return chromedp.Poll[chromedp.Void](`document.querySelector(".meta code") && document.querySelector(".meta code").textContent !== ` + jsString(key))
	}

	do("sign in",
		chromedp.Navigate(p.base+"/accounts/login/?next=/projects/demo/app/de/"),
		chromedp.WaitVisible(css(`input[name=username]`)),
		chromedp.SendKeys(css(`input[name=username]`), "anna"),
		chromedp.SendKeys(css(`input[name=password]`), "correct horse battery\r"),
		chromedp.WaitVisible(css(`.user`)))
	if who := text(".user"); who != "anna" {
		t.Fatalf("signed in as %q", who)
	}
	// The translation page links to its untranslated strings.
	do("filter untranslated",
		chromedp.Click(css(`a[href*="state%3Aempty"]`)),
		chromedp.WaitVisible(css(`textarea[name=target]`)))
	translatedBefore, key1 := text("#translated"), text(".meta code")
	url, err := chromedp.Run(ctx, chromedp.Location())
	if err != nil || !strings.Contains(url, "q=state%3Aempty") {
		t.Fatalf("editor at %q, %v", url, err)
	}
	// Type, then Ctrl+Enter: saved, and the next string replaces this
	// one without a page load.
	do("first string",
		chromedp.Evaluate[chromedp.Void](`window.tolkNoReload = true`),
		chromedp.SendKeys(css(`textarea[name=target]`), "Auf Wiedersehen"),
		chromedp.KeyEvent("\r", ctrl),
		keyChanged(key1))
	key2 := text(".meta code")
	do("second string",
		chromedp.SendKeys(css(`textarea[name=target]`), "{count} Artikel"),
		chromedp.KeyEvent("\r", ctrl),
		keyChanged(key2))
	key3, translatedAfter := text(".meta code"), text("#translated")
	noReload, err := chromedp.Run(ctx, chromedp.Evaluate[bool](`window.tolkNoReload === true`))
	if err != nil || !noReload {
		t.Errorf("the page reloaded between strings (%v)", err)
	}
	if translatedAfter == translatedBefore {
		t.Errorf("translated stays %s after two saves", translatedAfter)
	}
	// Ctrl+Down and Ctrl+Up move without saving.
	do("move down and up",
		chromedp.SendKeys(css(`textarea[name=target]`), "unsaved"),
		chromedp.KeyEvent(kb.ArrowDown, ctrl),
		keyChanged(key3),
		chromedp.KeyEvent(kb.ArrowUp, ctrl),
		chromedp.Poll[chromedp.Void](`document.querySelector(".meta code").textContent === `+jsString(key3)))
	if v, err := chromedp.Run(ctx, chromedp.Value(css(`textarea[name=target]`))); err != nil || v != "" {
		t.Errorf("after moving away and back, %s holds %q (%v), want nothing saved", key3, v, err)
	}

	// A target that drops a placeholder of the source is warned about
	// as it is typed; the screenshot shows it.
	do("placeholder warning",
		chromedp.Navigate(p.base+"/translate/demo/app/de/?q="+neturl.QueryEscape("key:items.count")),
		chromedp.WaitVisible(css(`textarea[name=target]`)),
		chromedp.WaitVisible(css(`mark.ph`)),
		chromedp.Clear(css(`textarea[name=target]`)),
		chromedp.SendKeys(css(`textarea[name=target]`), "Artikel im Warenkorb"),
		chromedp.WaitVisible(css(`#missing`)))
	if missing := text("#missing"); !strings.Contains(missing, "{count}") {
		t.Errorf("placeholder warning = %q", missing)
	}

	// Suggest sends the text as a suggestion (a form post, not the
	// script's save), and the string lists it; its text stays unsaved.
	do("suggest",
		chromedp.Click(css(`#suggest`)),
		chromedp.WaitVisible(css(`ul.suggestions`)))
	if got := text("ul.suggestions q"); got != "Artikel im Warenkorb" {
		t.Errorf("suggestion listed = %q", got)
	}

	shot, err := chromedp.Run(ctx, chromedp.FullScreenshot(100))
	if err != nil {
		t.Fatal(err)
	}
	dir := screenshotDir(t)
	if err := os.WriteFile(filepath.Join(dir, "editor.png"), shot, 0o644); err != nil {
		t.Fatal(err)
	}
	t.Logf("screenshot of the editor: %s", filepath.Join(dir, "editor.png"))

	// The statistics moved by two, and the API shows both changes by anna.
	after := apiGet(t, p, "/api/translations/demo/app/de/statistics/")
	if after["translated"].(float64) != before["translated"].(float64)+2 {
		t.Errorf("translated %v -> %v, want two more", before["translated"], after["translated"])
	}
	changes := apiGet(t, p, "/api/changes/?user=anna")
	targets := map[string]bool{}
	for _, ch := range changes["results"].([]any) {
		c := ch.(map[string]any)
		if strings.HasSuffix(c["author"].(string), "/api/users/anna/") && c["action_name"] == "New translation" {
			targets[c["target"].(string)] = true
		}
	}
	if !targets["Auf Wiedersehen"] || !targets["{count} Artikel"] || len(targets) != 2 {
		t.Errorf("anna's translations in the API = %v; changes %v", targets, changes["results"])
	}
	for key, want := range map[string]string{key1: "Auf Wiedersehen", key2: "{count} Artikel"} {
		units := apiGet(t, p, "/api/translations/demo/app/de/units/?q="+neturl.QueryEscape(`key:"`+key+`"`))
		res := units["results"].([]any)
		if len(res) == 0 || res[0].(map[string]any)["target"].([]any)[0] != want {
			t.Errorf("unit %s = %v, want %q", key, res, want)
		}
	}
}

func jsString(s string) string { b, _ := json.Marshal(s); return string(b) }
