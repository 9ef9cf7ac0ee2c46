package main

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	neturl "net/url"
	"os"
	"os/exec"
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
// translator signs in from the link the demo prints, fixes the string
// with a failing check with a memory match inserted from the keyboard,
// accepts another translator's suggestion, resolves their comment,
// translates a Czech plural form by form, and every page (the editor
// with all its panels too) is checked with axe-core and at phone width.
// It holds what TestBrowserPanels asserted (the memory's match in the
// page as served, a placeholder inserted by a click, the checks of a
// save shown without a reload, the CLDR names of plural forms). Screenshots go
// to $TOLK_SCREENSHOT_DIR (default: the test's artifact directory, as
// for TestBrowserEditor) so a reviewer can look at them.

// signInLinkRE finds the link in the line tolk serve --demo prints.
var signInLinkRE = regexp.MustCompile(`http://\S+/accounts/login/link/\?key=tll_[A-Za-z0-9]{36}`)

// workspace is one Chromium tab on one tolk serve --demo, with the
// helpers each step of the translator's walk uses; each step is one
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
	// The memory holds the Czech form the failing string lacks, and a
	// German greeting for the panels' page.
	importMemory(t, p, `[{"source": "{{count}} new comments on {{title}}", "target": "`+memoryFew+`",
		"source_language": "en", "target_language": "cs", "origin": "browser test"},
		{"source": "Hello, {name}!", "target": "Servus, {name}!", "source_language": "en",
		"target_language": "de", "origin": "browser test"}]`)
	// Another translator, bob, leaves two suggestions and two comments
	// on the German greeting: the translator accepts one of each kind,
	// and the others stay for the panels' audit.
	bob := addTranslator(t, bin, data, "bob")
	greeting := unitURL(t, p, "app", "de", "greeting")
	for _, s := range []string{acceptedSuggestion, "Grüß dich, {name}!"} {
		if code, body := send(t, http.MethodPost, greeting+"suggestions/", bob, map[string]any{"target": []string{s}}); code != http.StatusCreated {
			t.Fatalf("bob's suggestion = %d %v", code, body)
		}
	}
	for _, c := range []string{resolvedComment, "Is *Hallo* too informal here?"} {
		if code, body := send(t, http.MethodPost, greeting+"comments/", bob, map[string]any{"comment": c, "scope": "translation"}); code != http.StatusCreated {
			t.Fatalf("bob's comment = %d %v", code, body)
		}
	}
	w := newWorkspace(t, p)

	// Signed out: the pages pass axe too.
	w.do("login page", chromedp.Navigate(p.base+"/accounts/login/"), chromedp.WaitVisible(chromedp.CSS(`input[name=username]`)))
	w.audit("login")
	w.signInFromLink(link)
	w.keyboardOnly()
	w.filterFailingChecks()
	w.fixFailingCheck()
	w.acceptSuggestion()
	w.resolveComment()
	w.panels(1280)
	w.panels(375)
	w.translatePluralFormByForm()
	w.shortcutsOverlay()
	w.zenReview()
	w.placeholderAndSavedChecks()
	w.dismissCheckByKeyboard()
	w.fixStringButton()
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

// fixFailingCheck fills the Czech "few" form the check complains of
// with the memory's match, from the keyboard: Ctrl+M then its number,
// first with Ctrl still held (Ctrl+digit alone inserts a placeholder:
// the chord's digit must do only the chord's work), then as the
// reference says, Ctrl+M then the digit alone. Then it saves.
func (w *workspace) fixFailingCheck() {
	// The memory's matches come with the page (web_workspace.go
	// fillMemoryBox), before any script asks for them.
	w.waitFor(`Array.from(document.querySelectorAll("#machinery li")).some(li => li.textContent.includes(` + jsString(memoryFew) + `))`)
	if w.eval(`performance.getEntriesByName("tolk-machinery-in-page").length === 1`) != true {
		w.t.Errorf("the memory's match was not in the page as served")
	}
	// Its number: the memory may offer the other forms' matches too.
	n := int(w.eval(`Array.from(document.querySelectorAll("#machinery li")).findIndex(li =>
		li.textContent.includes(` + jsString(memoryFew) + `) && li.querySelector("button[data-form='1']")) + 1`).(float64))
	if n < 1 || n > 9 {
		w.t.Fatalf("the memory's match is suggestion %d", n)
	}
	digit := string(rune('0' + n))
	ctrl := chromedp.KeyModifiers(chromedp.ModifierCtrl)
	one, few := `document.querySelectorAll("textarea[name=target]")[0]`, `document.querySelectorAll("textarea[name=target]")[1]`
	// From the "one" form: the match goes to the form it is for, and
	// the digit inserts no placeholder into the focused form.
	oneBefore := w.eval(one + `.value`)
	w.do("Ctrl+M, Ctrl+"+digit,
		chromedp.Evaluate[chromedp.Void](one+`.focus(); `+one+`.setSelectionRange(0, 0)`),
		chromedp.KeyEvent("m", ctrl), chromedp.KeyEvent(digit, ctrl),
		chromedp.Poll[chromedp.Void](few+`.value !== ""`))
	if got := w.eval(few + `.value`); got != memoryFew {
		w.t.Errorf("Ctrl+M, Ctrl+%s put %q in the few form, want the memory's %q", digit, got, memoryFew)
	}
	if got := w.eval(one + `.value`); got != oneBefore {
		w.t.Errorf("Ctrl+M, Ctrl+%s also changed the focused one form: %q, was %q", digit, got, oneBefore)
	}
	w.do("Ctrl+M, "+digit,
		chromedp.Evaluate[chromedp.Void](few+`.value = ""; `+few+`.focus()`),
		chromedp.KeyEvent("m", ctrl), chromedp.KeyEvent(digit),
		chromedp.Poll[chromedp.Void](few+`.value !== ""`))
	if got := w.eval(few + `.value`); got != memoryFew {
		w.t.Errorf("Ctrl+M, %s put %q in the few form, want %q", digit, got, memoryFew)
	}
	if got := w.eval(`document.activeElement === ` + few); got != true {
		w.t.Errorf("after the memory's match focus is on %v", w.eval(`document.activeElement.outerHTML.slice(0, 80)`))
	}
	w.do("save", chromedp.KeyEvent("\r", ctrl),
		chromedp.Poll[chromedp.Void](`!document.querySelector(".meta code")`))
	units := apiGet(w.t, w.p, "/api/translations/demo/notifications/cs/units/?q="+neturl.QueryEscape("has:check"))
	if n := units["count"].(float64); n != 0 {
		w.t.Errorf("after the fix %v strings fail a check: %v", n, units["results"])
	}
	got := w.unitTarget("notifications", "cs", "comments")
	if len(got) != 3 || got[1] != memoryFew {
		w.t.Errorf("comments = %q", got)
	}
}

// What bob leaves on the German greeting, and the memory's Czech form.
const (
	memoryFew          = "{{count}} nové komentáře k {{title}}"
	acceptedSuggestion = "Hallo {name}, schön dich zu sehen"
	resolvedComment    = "Please keep the **comma** after Hallo."
)

// acceptSuggestion accepts bob's first suggestion on the greeting: the
// string takes its text, and the other suggestion stays listed.
func (w *workspace) acceptSuggestion() {
	w.do("the greeting", chromedp.Navigate(w.p.base+"/translate/demo/app/de/?q="+neturl.QueryEscape("key:greeting")),
		chromedp.WaitVisible(chromedp.CSS(`ul.suggestions li`)))
	if n := w.eval(`document.querySelectorAll("ul.suggestions li").length`); n != 2.0 {
		w.t.Fatalf("the greeting lists %v suggestions, want bob's 2", n)
	}
	sel := `ul.suggestions li:first-child button[value=accept]`
	if q := w.text(`ul.suggestions li:first-child q`); q != acceptedSuggestion {
		w.t.Fatalf("the first suggestion is %q", q)
	}
	w.do("accept", chromedp.Focus(chromedp.CSS(sel)), chromedp.KeyEvent("\r"))
	w.waitFor(`document.readyState === "complete" && document.querySelectorAll("ul.suggestions li").length === 1`)
	if got := w.unitTarget("app", "de", "greeting"); len(got) != 1 || got[0] != acceptedSuggestion {
		w.t.Errorf("after the accept the greeting is %q, want %q", got, acceptedSuggestion)
	}
	if q := w.text(`ul.suggestions li q`); q != "Grüß dich, {name}!" {
		w.t.Errorf("the suggestion left is %q", q)
	}
}

// resolveComment resolves bob's first comment, rendered from its
// Markdown: it says "resolved" and offers Reopen, the other does not.
func (w *workspace) resolveComment() {
	w.do("the greeting", chromedp.Navigate(w.p.base+"/translate/demo/app/de/?q="+neturl.QueryEscape("key:greeting")),
		chromedp.WaitVisible(chromedp.CSS(`ul.comments li`)))
	if got := w.eval(`document.querySelector("ul.comments li .comment strong") && document.querySelector("ul.comments li .comment strong").textContent`); got != "comma" {
		w.t.Errorf("the comment's Markdown renders as %v", w.eval(`document.querySelector("ul.comments li .comment").innerHTML`))
	}
	w.do("resolve", chromedp.Focus(chromedp.CSS(`ul.comments li:first-child button[value=resolve]`)), chromedp.KeyEvent("\r"))
	w.waitFor(`document.readyState === "complete" && !!document.querySelector("ul.comments li:first-child button[value=reopen]")`)
	got := w.eval(`Array.from(document.querySelectorAll("ul.comments li")).map(li => li.classList.contains("resolved"))`).([]any)
	if len(got) != 2 || got[0] != true || got[1] != false {
		w.t.Errorf("comments resolved: %v, want [true false]", got)
	}
}

// panels audits the editor with every panel showing — failing checks
// (the accepted greeting lacks its "!"), the memory, a suggestion,
// comments, history, other languages, nearby strings — at a width.
func (w *workspace) panels(width int64) {
	w.do("viewport", chromedp.EmulateViewport(width, 900),
		chromedp.Navigate(w.p.base+"/translate/demo/app/de/?q="+neturl.QueryEscape("key:greeting")),
		chromedp.WaitVisible(chromedp.CSS(`textarea[name=target]`)))
	for _, sel := range []string{"#checks li", "#machinery li", "ul.suggestions li", "ul.comments li", "ul.changes li", "table.languages tr", "table.nearby tr"} {
		if w.eval(`!!document.querySelector(`+jsString(sel)+`)`) != true {
			w.t.Errorf("the greeting's editor shows no %s", sel)
		}
	}
	name := fmt.Sprintf("editor-panels-%d", width)
	w.noOverflow(name)
	w.audit(name)
	w.shot(name)
	w.do("viewport back", chromedp.EmulateViewport(1280, 900))
}

// placeholderAndSavedChecks: a click on a placeholder of the source
// inserts it at the cursor; saved, the next string shows the check the
// saved text fails, without a reload.
func (w *workspace) placeholderAndSavedChecks() {
	w.do("click a placeholder",
		chromedp.Navigate(w.p.base+"/translate/demo/app/de/?q="+neturl.QueryEscape("key:items.count")),
		chromedp.WaitVisible(chromedp.CSS(`.source mark.ph`)),
		chromedp.Evaluate[chromedp.Void](`document.querySelector("textarea[name=target]").value = ""`),
		chromedp.Click(chromedp.CSS(`.source mark.ph`)),
		chromedp.SendKeys(chromedp.CSS(`textarea[name=target]`), " Artikel!"))
	if got := w.eval(`document.querySelector("textarea[name=target]").value`); got != "{count} Artikel!" {
		w.t.Fatalf("after the click the target is %q", got)
	}
	w.do("save with a failing check",
		chromedp.Evaluate[chromedp.Void](`window.tolkNoReload = true`),
		chromedp.KeyEvent("\r", chromedp.KeyModifiers(chromedp.ModifierCtrl)),
		chromedp.WaitVisible(chromedp.CSS(`.saved-checks`)))
	if msg := w.text(`.saved-checks`); !strings.Contains(msg, "exclamation") {
		w.t.Errorf("saved checks notice = %q", msg)
	}
	if w.eval(`window.tolkNoReload === true`) != true {
		w.t.Error("the page reloaded")
	}
	w.shot("editor-saved-checks")
}

// dismissCheckByKeyboard dismisses the failing check the last save left
// (placeholderAndSavedChecks) with the Ctrl+I chord: Ctrl+I, then its
// number.
func (w *workspace) dismissCheckByKeyboard() {
	w.do("open the string with the failing check",
		chromedp.Navigate(w.p.base+"/translate/demo/app/de/?q="+neturl.QueryEscape("key:items.count")),
		chromedp.WaitVisible(chromedp.CSS(`#checks li.failing`)),
		chromedp.Focus(chromedp.CSS(`textarea[name=target]`)))
	w.do("Ctrl+I, 1",
		chromedp.KeyEvent("i", chromedp.KeyModifiers(chromedp.ModifierCtrl)), chromedp.KeyEvent("1"),
		chromedp.WaitVisible(chromedp.CSS(`#checks li.dismissed`)))
	q := func(s string) float64 {
		return apiGet(w.t, w.p, "/api/translations/demo/app/de/units/?q="+neturl.QueryEscape(s))["count"].(float64)
	}
	if failing, dismissed := q("key:items.count has:check"), q("key:items.count has:dismissed-check"); failing != 0 || dismissed != 1 {
		w.t.Errorf("after Ctrl+I, 1: %v failing, %v dismissed", failing, dismissed)
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
	// Each box is named by its CLDR category with example numbers.
	labels := w.eval(`Array.from(document.querySelectorAll("#edit label.form > span")).map(s => s.textContent).join("|")`)
	if want := "one — 1|few — 2, 3, 4|other — 0, 5, 6, 7, …"; labels != want {
		w.t.Errorf("plural labels %q, want %q", labels, want)
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
	for _, keys := range []string{"Ctrl+Enter", "Ctrl+M, then 1…9", "Ctrl+I, then 1…9", "Ctrl+1…9"} {
		if !strings.Contains(w.text("#shortcuts"), keys) {
			w.t.Errorf("the overlay lists no %s: %q", keys, w.text("#shortcuts"))
		}
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
		// The row's state text follows the save, without a reload.
		if st := w.eval(fmt.Sprintf(`document.querySelectorAll("form.zen-row .zen-head .state")[%d].textContent`, i)); st != "Translated" && st != "Waiting for review" {
			w.t.Errorf("zen row %s after its save says %q", keys[i], st)
		}
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

// unitURL is a unit's API address.
func unitURL(t *testing.T, p *tolkProcess, component, lang, key string) string {
	t.Helper()
	units := apiGet(t, p, "/api/translations/demo/"+component+"/"+lang+"/units/?q="+neturl.QueryEscape(`key:"`+key+`"`))
	res := units["results"].([]any)
	if len(res) != 1 {
		t.Fatalf("units with key %s: %v", key, res)
	}
	return res[0].(map[string]any)["url"].(string)
}

// addTranslator adds a user who may translate the demo project, with
// the CLI beside the running server, and returns a token of theirs.
func addTranslator(t *testing.T, bin, data, name string) string {
	t.Helper()
	for _, args := range [][]string{{"user", "add", name}, {"user", "grant", name, "translate", "--project", "demo"}} {
		if out, err := exec.Command(bin, withDB(t, append(args, "--data", data)...)...).CombinedOutput(); err != nil {
			t.Fatalf("%s: %v\n%s", args, err, out)
		}
	}
	out, err := exec.Command(bin, withDB(t, "token", "create", name, "--data", data)...).Output()
	if err != nil {
		t.Fatalf("token create %s: %v", name, err)
	}
	return strings.TrimSpace(string(out))
}
