package main

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	neturl "net/url"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/input"
	"github.com/chromedp/chromedp"
)

// The translator's workspace in headless Chromium (issue 30): a
// translator signs in from the link the demo prints, works through the
// strings with failing checks and a Czech plural with the keyboard, and
// every page is checked with axe-core and at phone width. Screenshots go
// to $TOLK_SCREENSHOT_DIR (default: the test's artifact directory, as
// for TestBrowserEditor) so a reviewer can look at them.

// signInLinkRE finds the link in the line tolk serve --demo prints.
var signInLinkRE = regexp.MustCompile(`http://\S+/accounts/login/link/\?key=tll_[A-Za-z0-9]{36}`)

// workspace is one Chromium tab on one tolk serve --demo, with the
// helpers each step of the translator's walk uses. A later step (memory
// insertion, accepting a suggestion, resolving a comment) is one more
// method called from TestBrowserWorkspace.
type workspace struct {
	t    *testing.T
	ctx  context.Context
	p    *tolkProcess
	dir  string // screenshots
	axe  string // axe-core's source
	perf map[string][]float64
}

func newWorkspace(t *testing.T, p *tolkProcess) *workspace {
	browserPath := chromium(t)
	opts := append(chromedp.DefaultExecAllocatorOptions[:], chromedp.ExecPath(browserPath),
		chromedp.NoSandbox, chromedp.WindowSize(1280, 900))
	allocCtx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	t.Cleanup(cancelAlloc)
	ctx, cancel := chromedp.NewContext(allocCtx)
	t.Cleanup(cancel)
	ctx, cancelTimeout := context.WithTimeout(ctx, 4*time.Minute)
	t.Cleanup(cancelTimeout)
	axe, err := os.ReadFile(filepath.Join("testdata", "axe", "axe.min.js"))
	if err != nil {
		t.Fatal(err)
	}
	return &workspace{t: t, ctx: ctx, p: p, dir: screenshotDir(t), axe: string(axe), perf: map[string][]float64{}}
}

// typeText types text into the focused field as a keyboard layout or an
// input method does (Input.insertText): SendKeys maps each rune to a key
// of a US keyboard and drops those it has none for, such as Czech's č.
func typeText(text string) chromedp.Action[chromedp.Void] {
	return func(ctx context.Context, t *chromedp.Target) (chromedp.Void, error) {
		_, err := cdp.Call(ctx, t, input.InsertText, input.InsertTextParams{Text: text})
		return chromedp.Void{}, err
	}
}

func (w *workspace) do(what string, steps ...chromedp.Action[chromedp.Void]) {
	w.t.Helper()
	if err := chromedp.Do(w.ctx, steps...); err != nil {
		w.t.Fatalf("%s: %v", what, err)
	}
}

func (w *workspace) text(sel string) string {
	w.t.Helper()
	v, err := chromedp.Run(w.ctx, chromedp.Text(chromedp.CSS(sel)))
	if err != nil {
		w.t.Fatalf("text of %s: %v", sel, err)
	}
	return strings.TrimSpace(v)
}

func (w *workspace) eval(expr string) any {
	w.t.Helper()
	v, err := chromedp.Run(w.ctx, chromedp.Evaluate[any](expr, chromedp.EvalAwaitPromise))
	if err != nil {
		w.t.Fatalf("evaluate %.60s: %v", expr, err)
	}
	return v
}

// waitFor waits until the expression holds, across the page loads
// between (an evaluation in a page being left fails, and is retried).
func (w *workspace) waitFor(expr string) {
	w.t.Helper()
	deadline := time.Now().Add(time.Minute)
	for {
		ok, err := chromedp.Run(w.ctx, chromedp.Evaluate[bool](expr))
		if err == nil && ok {
			return
		}
		if time.Now().After(deadline) {
			w.t.Fatalf("waiting for %s: %v", expr, err)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// shot saves a screenshot of the whole page as name.png.
func (w *workspace) shot(name string) {
	w.t.Helper()
	png, err := chromedp.Run(w.ctx, chromedp.FullScreenshot(100))
	if err != nil {
		w.t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(w.dir, name+".png"), png, 0o644); err != nil {
		w.t.Fatal(err)
	}
}

// audit runs axe-core inside the page and fails on every serious or
// critical violation, naming the rule and the elements.
func (w *workspace) audit(page string) {
	w.t.Helper()
	if w.eval(`typeof axe === "undefined"`) == true {
		if _, err := chromedp.Run(w.ctx, chromedp.Evaluate[any](w.axe+";true")); err != nil {
			w.t.Fatalf("load axe-core: %v", err)
		}
	}
	out, err := chromedp.Run(w.ctx, chromedp.Evaluate[string](`axe.run(document, {resultTypes: ["violations"]}).then(r => JSON.stringify(r.violations.map(v => ({id: v.id, impact: v.impact, help: v.help, nodes: v.nodes.map(n => n.html.slice(0, 160))}))))`,
		chromedp.EvalAwaitPromise))
	if err != nil {
		w.t.Fatalf("axe on %s: %v", page, err)
	}
	var violations []struct {
		ID, Impact, Help string
		Nodes            []string
	}
	if err := json.Unmarshal([]byte(out), &violations); err != nil {
		w.t.Fatal(err)
	}
	for _, v := range violations {
		if v.Impact == "serious" || v.Impact == "critical" {
			w.t.Errorf("axe on %s: %s (%s) %s: %q", page, v.ID, v.Impact, v.Help, v.Nodes)
		} else {
			w.t.Logf("axe on %s: %s (%s) %s: %q", page, v.ID, v.Impact, v.Help, v.Nodes)
		}
	}
}

// noOverflow fails when the page scrolls sideways.
func (w *workspace) noOverflow(page string) {
	w.t.Helper()
	got := w.eval(`[document.documentElement.scrollWidth, document.documentElement.clientWidth,
		Array.from(document.querySelectorAll("body *")).filter(e => e.getBoundingClientRect().right > document.documentElement.clientWidth + 1 && !(e.parentElement && e.parentElement.closest(".scroll"))).slice(0, 5).map(e => e.tagName + "." + e.className).join(" ")]`).([]any)
	if got[0].(float64) > got[1].(float64) {
		w.t.Errorf("%s at %v px scrolls sideways: %v px wide; too wide: %v", page, got[1], got[0], got[2])
	}
}

// focusVisible fails when the focused element shows no outline.
func (w *workspace) focusVisible(page string) {
	w.t.Helper()
	got := w.eval(`(() => { const e = document.activeElement; if (!e || e === document.body) return "nothing focused";
		const s = getComputedStyle(e); return (s.outlineStyle !== "none" && parseFloat(s.outlineWidth) >= 2) || s.boxShadow !== "none" ? "" : e.tagName + " has no visible focus"; })()`)
	if got != "" {
		w.t.Errorf("%s: %v", page, got)
	}
}

// pages are every kind of page a person reads; /projects/demo/app/de/
// holds the translation's file download and upload.
var workspacePages = []struct{ name, path string }{
	{"home", "/"},
	{"project", "/projects/demo/"},
	{"component", "/projects/demo/app/"},
	{"translation-files", "/projects/demo/app/de/"},
	{"language", "/languages/de/"},
	{"editor", "/translate/demo/app/de/"},
	{"editor-plural", "/translate/demo/notifications/cs/?q=" + neturl.QueryEscape("key:comments")},
	{"editor-rtl", "/translate/demo/app/ar/"},
	{"zen", "/zen/demo/app/de/"},
	{"login", "/accounts/login/"},
}

func TestBrowserWorkspace(t *testing.T) {
	bin := buildTolk(t)
	data := t.TempDir()
	p := runTolk(t, bin, data, "--demo")
	link := signInLinkRE.FindString(p.signIn)
	if link == "" {
		t.Fatalf("tolk serve --demo printed no sign-in link (%q)", p.signIn)
	}
	// An Arabic translation: the pages must lay it out right to left.
	if code, body := send(t, http.MethodPost, p.base+"/api/components/demo/app/translations/", p.token,
		map[string]any{"language_code": "ar"}); code != http.StatusCreated {
		t.Fatalf("add Arabic = %d %s", code, body)
	}
	w := newWorkspace(t, p)

	// Signed out: the pages pass axe too.
	w.do("login page", chromedp.Navigate(p.base+"/accounts/login/"), chromedp.WaitVisible(chromedp.CSS(`input[name=username]`)))
	w.audit("login")
	w.signInFromLink(link)
	w.keyboardOnly()
	w.filterFailingChecks()
	w.fixFailingCheck()
	w.translatePluralFormByForm()
	w.shortcutsOverlay()
	w.zenReview()
	w.pagesAtWidth(1280)
	w.pagesAtWidth(375)
	w.rtl()
	w.speed()
	t.Logf("screenshots: %s", w.dir)
}

// signInFromLink opens the demo's printed link and presses its button.
func (w *workspace) signInFromLink(link string) {
	w.do("sign in from the demo's link",
		chromedp.Navigate(link),
		chromedp.WaitVisible(chromedp.CSS(`form.login button`)),
		chromedp.Click(chromedp.CSS(`form.login button`)),
		chromedp.WaitVisible(chromedp.CSS(`.user`)))
	if who := w.text(".user"); who != "admin" {
		w.t.Fatalf("signed in as %q", who)
	}
	w.audit("home, signed in")
}

// keyboardOnly walks from a project page to the editor with the
// keyboard alone: the first Tab reaches "Skip to the content", visibly,
// and Tab onwards reaches the Translate button, which Enter follows.
func (w *workspace) keyboardOnly() {
	w.do("translation page", chromedp.Navigate(w.p.base+"/projects/demo/app/fr/"),
		chromedp.WaitVisible(chromedp.CSS(`.cta a`)), chromedp.KeyEvent("\t"))
	if got := w.eval(`document.activeElement.className`); got != "skip" {
		w.t.Errorf("the first Tab reaches %v, not the skip link", w.eval(`document.activeElement.outerHTML`))
	}
	w.focusVisible("skip link")
	w.do("skip", chromedp.KeyEvent("\r"), chromedp.Poll[chromedp.Void](`document.activeElement.id === "main"`))
	for i := 0; i < 5 && w.eval(`document.activeElement.textContent`) != "Translate"; i++ {
		w.do("tab", chromedp.KeyEvent("\t"))
	}
	if w.eval(`document.activeElement.textContent`) != "Translate" {
		w.t.Fatalf("Tab from the content does not reach Translate: at %v", w.eval(`document.activeElement.outerHTML`))
	}
	w.focusVisible("Translate button")
	w.do("follow it", chromedp.KeyEvent("\r"), chromedp.WaitVisible(chromedp.CSS(`textarea[name=target]`)))
	if got := w.eval(`location.pathname`); got != "/translate/demo/app/fr/" {
		w.t.Errorf("Translate led to %v", got)
	}
}

// filterFailingChecks goes from the Czech notifications page through
// its Translate button, then types has:check into the search with the
// field name completed from the list.
func (w *workspace) filterFailingChecks() {
	w.do("translate Czech notifications",
		chromedp.Navigate(w.p.base+"/projects/demo/notifications/cs/"),
		chromedp.Click(chromedp.CSS(`.cta a`)),
		chromedp.WaitVisible(chromedp.CSS(`textarea[name=target]`)))
	// The search box completes field names: "ha" offers has:.
	w.do("search for failing checks",
		chromedp.Focus(chromedp.CSS(`input[name=q]`)),
		chromedp.Evaluate[chromedp.Void](`document.querySelector("input[name=q]").value = ""`),
		chromedp.SendKeys(chromedp.CSS(`input[name=q]`), "ha"),
		chromedp.Poll[chromedp.Void](`Array.from(document.querySelectorAll("#q-fields option")).some(o => o.value === "has:")`))
	w.do("complete the query",
		chromedp.Evaluate[chromedp.Void](`document.querySelector("input[name=q]").value = "has:"`),
		chromedp.SendKeys(chromedp.CSS(`input[name=q]`), "check\r"))
	// The page before the search shows a string too: wait for the
	// search's page.
	w.waitFor(`new URLSearchParams(location.search).get("q") === "has:check" && document.readyState === "complete" && !!document.querySelector(".meta code")`)
	if key := w.text(".meta code"); key != "comments" {
		w.t.Fatalf("has:check leads to %q, want comments", key)
	}
	if total := w.text(".editor .position strong + strong"); total != "1" {
		w.t.Errorf("has:check lists %s strings, want 1", total)
	}
	// Focus is where the next keystroke belongs: the first empty form.
	if got := w.eval(`document.activeElement === document.querySelectorAll("textarea[name=target]")[1]`); got != true {
		w.t.Errorf("focus is on %v, not the empty plural form", w.eval(`document.activeElement.outerHTML.slice(0, 80)`))
	}
	w.focusVisible("editor, failing check")
	w.shot("editor-failing-check")
}

// fixFailingCheck fills the Czech "few" form the check complains of and
// saves with the keyboard.
func (w *workspace) fixFailingCheck() {
	w.do("fill the few form",
		typeText("{{count}} nové komentáře k {{title}}"),
		chromedp.KeyEvent("\r", chromedp.KeyModifiers(chromedp.ModifierCtrl)),
		chromedp.Poll[chromedp.Void](`!document.querySelector(".meta code")`))
	units := apiGet(w.t, w.p, "/api/translations/demo/notifications/cs/units/?q="+neturl.QueryEscape("has:check"))
	if n := units["count"].(float64); n != 0 {
		w.t.Errorf("after the fix %v strings fail a check: %v", n, units["results"])
	}
	got := w.unitTarget("notifications", "cs", "comments")
	if len(got) != 3 || got[1] != "{{count}} nové komentáře k {{title}}" {
		w.t.Errorf("comments = %q", got)
	}
}

// translatePluralFormByForm translates the untranslated Czech plural:
// one form, Tab to the next, and so on, then Ctrl+Enter.
func (w *workspace) translatePluralFormByForm() {
	w.do("open the reminder",
		chromedp.Navigate(w.p.base+"/translate/demo/notifications/cs/?q="+neturl.QueryEscape("key:reminder")),
		chromedp.WaitVisible(chromedp.CSS(`textarea[name=target]`)))
	if n := w.eval(`document.querySelectorAll("textarea[name=target]").length`); n != 3.0 {
		w.t.Fatalf("a Czech plural shows %v forms, want 3", n)
	}
	forms := []string{"Zkušební verze končí za {{count}} den", "Zkušební verze končí za {{count}} dny", "Zkušební verze končí za {{count}} dní"}
	for i, f := range forms {
		steps := []chromedp.Action[chromedp.Void]{typeText(f)}
		if i < len(forms)-1 {
			steps = append(steps, chromedp.KeyEvent("\t"))
		}
		w.do(fmt.Sprintf("form %d", i), steps...)
	}
	w.shot("editor-czech-plural")
	w.do("save", chromedp.KeyEvent("\r", chromedp.KeyModifiers(chromedp.ModifierCtrl)),
		chromedp.Poll[chromedp.Void](`!document.querySelector(".meta code") || document.querySelector(".meta code").textContent !== "reminder"`))
	if got := w.unitTarget("notifications", "cs", "reminder"); !slices.Equal(got, forms) {
		w.t.Errorf("reminder = %q, want %q", got, forms)
	}
}

// shortcutsOverlay opens the ? overlay from the keyboard and closes it
// with Escape, focus returning where it was.
func (w *workspace) shortcutsOverlay() {
	w.do("open an editor", chromedp.Navigate(w.p.base+"/translate/demo/app/de/"),
		chromedp.WaitVisible(chromedp.CSS(`textarea[name=target]`)),
		// ? in a text field is text; Escape leaves the field first.
		chromedp.KeyEvent("\x1b"),
		chromedp.KeyEvent("?"),
		chromedp.WaitVisible(chromedp.CSS(`#shortcuts`)))
	if !strings.Contains(w.text("#shortcuts"), "Ctrl+Enter") {
		w.t.Errorf("the overlay lists no Ctrl+Enter: %q", w.text("#shortcuts"))
	}
	w.audit("shortcuts overlay")
	w.shot("shortcuts")
	w.do("close", chromedp.KeyEvent("\x1b"), chromedp.WaitNotVisible(chromedp.CSS(`#shortcuts`)))
}

// zenReview translates two strings in zen mode from the keyboard: each
// Ctrl+Enter saves its row, says so in words, and moves to the next row.
func (w *workspace) zenReview() {
	w.do("zen mode", chromedp.Navigate(w.p.base+"/zen/demo/app/de/?q="+neturl.QueryEscape("state:empty")),
		chromedp.WaitVisible(chromedp.CSS(`form.zen-row textarea`)))
	keys := []string{}
	for _, v := range w.eval(`Array.from(document.querySelectorAll("form.zen-row code")).slice(0, 2).map(c => c.textContent)`).([]any) {
		keys = append(keys, v.(string))
	}
	if len(keys) != 2 {
		w.t.Fatalf("zen rows: %v", keys)
	}
	for i, text := range []string{"Lebewohl", "{count} Artikel im Korb"} {
		w.do("zen row "+keys[i],
			chromedp.Poll[chromedp.Void](fmt.Sprintf(`document.activeElement === document.querySelectorAll("form.zen-row")[%d].querySelector("textarea")`, i)),
			typeText(text),
			chromedp.KeyEvent("\r", chromedp.KeyModifiers(chromedp.ModifierCtrl)),
			chromedp.Poll[chromedp.Void](fmt.Sprintf(`document.querySelectorAll("form.zen-row .zen-status")[%d].textContent === "Saved."`, i)))
		if got := w.unitTarget("app", "de", keys[i]); len(got) != 1 || got[0] != text {
			w.t.Errorf("zen saved %s = %q, want %q", keys[i], got, text)
		}
	}
	w.shot("zen-saved")
}

// pagesAtWidth visits every page at a width: axe-core, no sideways
// scrolling, a screenshot.
func (w *workspace) pagesAtWidth(width int64) {
	w.do("viewport", chromedp.EmulateViewport(width, 900))
	for _, pg := range workspacePages {
		w.do(pg.name, chromedp.Navigate(w.p.base+pg.path), chromedp.WaitReady(chromedp.CSS(`main`)))
		name := fmt.Sprintf("%s-%d", pg.name, width)
		w.noOverflow(name)
		w.audit(name)
		w.shot(name)
	}
}

// rtl: an Arabic translation's target fields and cells run right to
// left, the source's left to right.
func (w *workspace) rtl() {
	w.do("Arabic editor", chromedp.EmulateViewport(1280, 900), chromedp.Navigate(w.p.base+"/translate/demo/app/ar/"),
		chromedp.WaitVisible(chromedp.CSS(`textarea[name=target]`)))
	got := w.eval(`[getComputedStyle(document.querySelector("textarea[name=target]")).direction,
		getComputedStyle(document.querySelector(".source")).direction,
		getComputedStyle(document.querySelector("table.strings td[lang=ar]")).direction]`).([]any)
	if got[0] != "rtl" || got[1] != "ltr" || got[2] != "rtl" {
		w.t.Errorf("Arabic target, source, cell directions = %v", got)
	}
}

// speed measures in the page with the Performance API: the editor's
// first contentful paint, and save-and-next from the Ctrl+Enter keydown
// to the next string in the page.
func (w *workspace) speed() {
	for i := 0; i < 5; i++ {
		w.do("fresh editor", chromedp.Navigate(w.p.base+"/translate/demo/app/fr/?q="+neturl.QueryEscape("is:translated")),
			chromedp.WaitVisible(chromedp.CSS(`textarea[name=target]`)),
			chromedp.Poll[chromedp.Void](`performance.getEntriesByName("first-contentful-paint").length > 0`))
		w.perf["fcp"] = append(w.perf["fcp"], w.eval(`performance.getEntriesByName("first-contentful-paint")[0].startTime`).(float64))
	}
	// French is fully translated: saving a string unchanged moves on.
	w.do("arm the timer", chromedp.Evaluate[chromedp.Void](`(() => {
		window.tolkSaves = [];
		let t0 = 0, key = document.querySelector(".meta code").textContent;
		document.addEventListener("keydown", e => { if (e.key === "Enter" && e.ctrlKey) t0 = performance.now(); }, true);
		new MutationObserver(() => {
			const c = document.querySelector(".meta code");
			if (t0 && c && c.textContent !== key) { window.tolkSaves.push(performance.now() - t0); key = c.textContent; t0 = 0; }
		}).observe(document.getElementById("main"), {childList: true, subtree: true});
	})()`))
	for i := 1; i <= 6; i++ {
		w.do("save and next", chromedp.KeyEvent("\r", chromedp.KeyModifiers(chromedp.ModifierCtrl)),
			chromedp.Poll[chromedp.Void](fmt.Sprintf(`window.tolkSaves.length >= %d`, i)))
	}
	for _, v := range w.eval(`window.tolkSaves`).([]any) {
		w.perf["save"] = append(w.perf["save"], v.(float64))
	}
	fcp, save := median(w.perf["fcp"]), median(w.perf["save"])
	w.t.Logf("editor first contentful paint: median %.0f ms of %v; save-and-next: median %.0f ms of %v", fcp, w.perf["fcp"], save, w.perf["save"])
	// The targets are 300 ms and 100 ms; BENCHMARKS.md records
	// what was measured. Here only what no load explains fails: ten
	// times the target on the median (at load average 45-58 on 2 CPUs
	// the PostgreSQL run's save-and-next median was 417 ms).
	if fcp > 10*300 {
		w.t.Errorf("first contentful paint %.0f ms, target 300 ms", fcp)
	}
	if save > 10*100 {
		w.t.Errorf("save-and-next %.0f ms, target 100 ms", save)
	}
}

func median(v []float64) float64 {
	if len(v) == 0 {
		return 0
	}
	s := slices.Clone(v)
	slices.Sort(s)
	return s[len(s)/2]
}

// unitTarget is a unit's target forms read through the API.
func (w *workspace) unitTarget(component, lang, key string) []string {
	w.t.Helper()
	units := apiGet(w.t, w.p, "/api/translations/demo/"+component+"/"+lang+"/units/?q="+neturl.QueryEscape(`key:"`+key+`"`))
	res := units["results"].([]any)
	if len(res) != 1 {
		w.t.Fatalf("units with key %s: %v", key, res)
	}
	var out []string
	for _, f := range res[0].(map[string]any)["target"].([]any) {
		out = append(out, f.(string))
	}
	return out
}
