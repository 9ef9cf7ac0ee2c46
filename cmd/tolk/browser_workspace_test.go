package main

import (
	"bytes"
	"context"
	"mime/multipart"
	"net/http"
	neturl "net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// importMemory stores one translation memory entry in the demo project
// through the API, as the demo administrator.
func importMemory(t *testing.T, p *tolkProcess, entries string) {
	t.Helper()
	var body bytes.Buffer
	w := multipart.NewWriter(&body)
	_ = w.WriteField("project", "demo")
	f, _ := w.CreateFormFile("file", "memory.json")
	_, _ = f.Write([]byte(entries))
	_ = w.Close()
	req, _ := http.NewRequest("POST", p.base+"/api/memory/import/", &body)
	req.Header.Set("Authorization", "Token "+p.token)
	req.Header.Set("Content-Type", w.FormDataContentType())
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode != http.StatusOK {
		t.Fatalf("memory import = %d", res.StatusCode)
	}
}

// demoBrowser starts tolk serve --demo with translator anna (password
// "correct horse battery", translate on the demo project) and headless
// Chromium, and returns the server and the browser's context, ended
// with the test (two minutes at most).
func demoBrowser(t *testing.T) (*tolkProcess, context.Context) {
	t.Helper()
	browserPath := chromium(t)
	bin := buildTolk(t)
	data := t.TempDir()
	p := runTolk(t, bin, data, "--demo")
	add := exec.Command(bin, withDB(t, "user", "add", "anna", "--full-name", "Anna Translator", "--password-stdin", "--data", data)...)
	add.Stdin = strings.NewReader("correct horse battery\n")
	if out, err := add.CombinedOutput(); err != nil {
		t.Fatalf("user add: %v\n%s", err, out)
	}
	if out, err := exec.Command(bin, withDB(t, "user", "grant", "anna", "translate", "--project", "demo", "--data", data)...).CombinedOutput(); err != nil {
		t.Fatalf("user grant: %v\n%s", err, out)
	}
	opts := append(chromedp.DefaultExecAllocatorOptions[:], chromedp.ExecPath(browserPath),
		chromedp.NoSandbox, chromedp.WindowSize(1280, 900))
	allocCtx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	t.Cleanup(cancelAlloc)
	ctx, cancel := chromedp.NewContext(allocCtx)
	t.Cleanup(cancel)
	ctx, cancelTimeout := context.WithTimeout(ctx, 2*time.Minute)
	t.Cleanup(cancelTimeout)
	return p, ctx
}

// TestBrowserPanels drives the workspace in headless Chromium: a
// memory match inserted with Ctrl+M then 1 (and how soon after the page
// the first one shows), a placeholder inserted by a click, the failing
// checks of a save shown on the next string without a reload, and a
// Czech plural translated form by form under its CLDR names.
func TestBrowserPanels(t *testing.T) {
	p, ctx := demoBrowser(t)
	importMemory(t, p, `[{"source": "Good bye", "target": "Auf Wiedersehen", "source_language": "en",
		"target_language": "de", "origin": "browser test"}]`)
	css := func(s string) chromedp.CSS { return chromedp.CSS(s) }
	do := func(what string, steps ...chromedp.Action[chromedp.Void]) {
		t.Helper()
		if err := chromedp.Do(ctx, steps...); err != nil {
			t.Fatalf("%s: %v", what, err)
		}
	}
	value := func(sel string) string {
		t.Helper()
		v, err := chromedp.Run(ctx, chromedp.Value(css(sel)))
		if err != nil {
			t.Fatalf("value of %s: %v", sel, err)
		}
		return v
	}
	ctrl := chromedp.KeyModifiers(chromedp.ModifierCtrl)
	editor := func(component, lang, q string) string {
		return p.base + "/translate/demo/" + component + "/" + lang + "/?q=" + neturl.QueryEscape(q)
	}

	do("sign in",
		chromedp.Navigate(p.base+"/accounts/login/"),
		chromedp.WaitVisible(css(`input[name=username]`)),
		chromedp.SendKeys(css(`input[name=username]`), "anna"),
		chromedp.SendKeys(css(`input[name=password]`), "correct horse battery\r"),
		chromedp.WaitVisible(css(`.user`)))

	// The memory's match arrives numbered; Ctrl+M then 1 uses it.
	do("memory match",
		chromedp.Navigate(editor("app", "de", "key:farewell")),
		chromedp.WaitVisible(css(`#machinery li`)))
	// The memory's matches come with the page (web_workspace.go
	// fillMemoryBox): 0 ms after it, where the script's request put
	// them 80 ms after the page on the second load of this test.
	inPage, err := chromedp.Run(ctx, chromedp.Evaluate[bool](`performance.getEntriesByName("tolk-machinery-in-page").length === 1`))
	if err != nil || !inPage {
		t.Errorf("the memory's match was not in the page as served (%v)", err)
	}
	do("Ctrl+M 1",
		chromedp.Click(css(`textarea[name=target]`)),
		chromedp.KeyEvent("m", ctrl),
		chromedp.KeyEvent("1"),
		chromedp.Poll[chromedp.Void](`document.querySelector("textarea[name=target]").value === "Auf Wiedersehen"`))

	// A click on a placeholder of the source inserts it at the cursor.
	do("click a placeholder",
		chromedp.Navigate(editor("app", "de", "key:items.count")),
		chromedp.WaitVisible(css(`.source mark.ph`)),
		chromedp.Click(css(`.source mark.ph`)),
		chromedp.SendKeys(css(`textarea[name=target]`), " Artikel!"))
	if got := value(`textarea[name=target]`); got != "{count} Artikel!" {
		t.Fatalf("after the click the target is %q", got)
	}
	// Saved, the next string shows, and the check the saved text fails
	// is named without a reload.
	do("save with a failing check",
		chromedp.Evaluate[chromedp.Void](`window.tolkNoReload = true`),
		chromedp.KeyEvent("\r", ctrl),
		chromedp.WaitVisible(css(`.saved-checks`)))
	msg, err := chromedp.Run(ctx, chromedp.Text(css(`.saved-checks`)))
	if err != nil || !strings.Contains(msg, "exclamation") {
		t.Errorf("saved checks notice = %q %v", msg, err)
	}
	if ok, _ := chromedp.Run(ctx, chromedp.Evaluate[bool](`window.tolkNoReload === true`)); !ok {
		t.Error("the page reloaded")
	}

	// A Czech plural: each box is named by its CLDR category with
	// example numbers, and each form is saved.
	do("Czech plural",
		chromedp.Navigate(editor("notifications", "cs", "key:reminder")),
		chromedp.WaitVisible(css(`textarea[name=target]`)))
	labels, err := chromedp.Run(ctx, chromedp.Evaluate[[]string](`Array.from(document.querySelectorAll("#edit label.form > span")).map(s => s.textContent)`))
	want := []string{"one — 1", "few — 2, 3, 4", "other — 0, 5, 6, 7, …"}
	if err != nil || strings.Join(labels, "|") != strings.Join(want, "|") {
		t.Fatalf("plural labels %q (%v), want %q", labels, err, want)
	}
	forms := []string{"Zkušební doba vyprší za {{count}} den", "Zkušební doba vyprší za {{count}} dny", "Zkušební doba vyprší za {{count}} dní"}
	for i, f := range forms {
		do("form "+want[i], chromedp.SendKeys(css(`#edit label.form:nth-of-type(`+strconv.Itoa(i+1)+`) textarea`), f))
	}
	shot, err := chromedp.Run(ctx, chromedp.FullScreenshot(100))
	if err == nil {
		err = os.WriteFile(filepath.Join(screenshotDir(t), "workspace-plural.png"), shot, 0o644)
	}
	if err != nil {
		t.Fatal(err)
	}
	do("save the plural", chromedp.KeyEvent("\r", ctrl),
		chromedp.Poll[chromedp.Void](`!document.querySelector(".meta code") || document.querySelector(".meta code").textContent !== "reminder"`))
	units := apiGet(t, p, "/api/translations/demo/notifications/cs/units/?q="+neturl.QueryEscape(`key:reminder`))
	res := units["results"].([]any)
	if len(res) != 1 {
		t.Fatalf("units %v", res)
	}
	got := res[0].(map[string]any)["target"].([]any)
	if len(got) != 3 || got[0] != forms[0] || got[1] != forms[1] || got[2] != forms[2] {
		t.Errorf("stored forms %q, want %q", got, forms)
	}
}
