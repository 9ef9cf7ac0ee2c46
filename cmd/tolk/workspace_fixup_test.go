package main

import (
	"net/http"
	neturl "net/url"

	"github.com/chromedp/chromedp"
)

// fixStringButton: a German string saved with a double space fails
// double_space; its check row offers "Fix string" (the reference's
// fixup), reached with the keyboard and pressed with Enter: the text
// box loses the double space without a save, Ctrl+Enter saves it, and
// the check is gone.
func (w *workspace) fixStringButton() {
	if code, body := send(w.t, http.MethodPatch, unitURL(w.t, w.p, "app", "de", "farewell"), w.p.token,
		map[string]any{"target": []string{"Auf  Wiedersehen"}, "state": 20}); code != http.StatusOK {
		w.t.Fatalf("save with a double space = %d %v", code, body)
	}
	w.do("open the string with the double space",
		chromedp.Navigate(w.p.base+"/translate/demo/app/de/?q="+neturl.QueryEscape("key:farewell")),
		chromedp.WaitVisible(chromedp.CSS(`#checks li[data-check=double_space] button.fixup`)),
		chromedp.Focus(chromedp.CSS(`textarea[name=target]`)))
	// Keyboard reachable: Tab (or Shift+Tab) from the text box gets to it.
	isFix := `document.activeElement.matches("#checks li[data-check=double_space] button.fixup")`
	for _, key := range []chromedp.Action[chromedp.Void]{chromedp.KeyEvent("\t"), chromedp.KeyEvent("\t", chromedp.KeyModifiers(chromedp.ModifierShift))} {
		w.do("back to the text box", chromedp.Focus(chromedp.CSS(`textarea[name=target]`)))
		for i := 0; i < 40 && w.eval(isFix) != true; i++ {
			w.do("tab", key)
		}
		if w.eval(isFix) == true {
			break
		}
	}
	if w.eval(isFix) != true {
		w.t.Fatalf("Tab does not reach Fix string: at %v", w.eval(`document.activeElement.outerHTML.slice(0, 80)`))
	}
	w.focusVisible("Fix string")
	w.do("press it", chromedp.KeyEvent("\r"),
		chromedp.Poll[chromedp.Void](`document.querySelector("textarea[name=target]").value === "Auf Wiedersehen"`))
	if got := w.text(`#checks li[data-check=double_space] .fixup-status`); got != "Fixed in the text box: save to keep it." {
		w.t.Errorf("the fix says %q", got)
	}
	if got := w.unitTarget("app", "de", "farewell"); len(got) != 1 || got[0] != "Auf  Wiedersehen" {
		w.t.Errorf("the fix saved by itself: %q", got)
	}
	w.shot("editor-fix-string")
	w.do("save", chromedp.Focus(chromedp.CSS(`textarea[name=target]`)),
		chromedp.KeyEvent("\r", chromedp.KeyModifiers(chromedp.ModifierCtrl)),
		chromedp.Poll[chromedp.Void](`!document.querySelector(".meta code") || document.querySelector(".meta code").textContent !== "farewell"`))
	if got := w.unitTarget("app", "de", "farewell"); len(got) != 1 || got[0] != "Auf Wiedersehen" {
		w.t.Errorf("after Fix string and save the string is %q", got)
	}
	if n := apiGet(w.t, w.p, "/api/translations/demo/app/de/units/?q="+neturl.QueryEscape("key:farewell has:check"))["count"].(float64); n != 0 {
		w.t.Errorf("after Fix string the string still fails %v checks", n)
	}
}
