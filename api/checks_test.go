package api_test

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/tolk-project/tolk/internal/servertest"
)

// decodeJSON decodes a response body into v or fails.
func decodeJSON(t *testing.T, r servertest.Response, v any) {
	t.Helper()
	if err := json.Unmarshal(r.Body, v); err != nil {
		t.Fatalf("%s: %v", r.Body, err)
	}
}

type unitCheck struct {
	Check       string `json:"check"`
	Name        string `json:"name"`
	Description string `json:"description"`
	Dismissed   bool   `json:"dismissed"`
	Enforced    bool   `json:"enforced"`
}

// TestUnitChecksAPI: a unit's failing checks are listed with the
// reference's ids; a reviewer dismisses one and the unit and the
// translation stop counting it; DELETE restores it; searches see both.
func TestUnitChecksAPI(t *testing.T) {
	e := newWriteEnv(t)
	open := e.unitURL(t, "app", "de", "open")
	base := e.srv.URL

	r := servertest.DoJSON(t, "GET", open+"checks/", "", nil)
	if r.Status != http.StatusOK {
		t.Fatalf("GET checks: %d %s", r.Status, r.Body)
	}
	var list []unitCheck
	decodeJSON(t, r, &list)
	want := unitCheck{Check: "end_ellipsis", Name: "Mismatched ellipsis",
		Description: "Source and translation do not both end with an ellipsis"}
	if len(list) != 1 || list[0] != want {
		t.Fatalf("checks of \"Datei öffnen…\": %+v, want [%+v]", list, want)
	}
	if r := servertest.DoJSON(t, "GET", e.unitURL(t, "app", "de", "hello")+"checks/", "", nil); string(r.Body) != "[]" {
		t.Errorf("checks of a clean unit: %d %s, want []", r.Status, r.Body)
	}

	// Searching: the API's q takes check:, has:check and, after a
	// dismissal, dismissed_check:.
	count := func(q string) string {
		t.Helper()
		return servertest.Num(servertest.GetObject(t, base+"/api/translations/demo/app/de/units/?q="+q)["count"])
	}
	if n := count("check:end_ellipsis"); n != "1" {
		t.Errorf("check:end_ellipsis counts %s", n)
	}
	if n := count("has:check"); n != "1" {
		t.Errorf("has:check counts %s", n)
	}

	dismiss := open + "checks/end_ellipsis/dismiss/"
	if r := servertest.DoJSON(t, "POST", dismiss, e.anna, nil); r.Status != http.StatusForbidden {
		t.Errorf("a translator dismissing: %d %s, want 403", r.Status, r.Body)
	}
	r = servertest.DoJSON(t, "POST", dismiss, e.rita, nil)
	var got unitCheck
	decodeJSON(t, r, &got)
	if r.Status != http.StatusOK || !got.Dismissed || got.Check != "end_ellipsis" {
		t.Fatalf("a reviewer dismissing: %d %s", r.Status, r.Body)
	}
	if u := servertest.GetObject(t, open); u["has_failing_check"] != false {
		t.Errorf("has_failing_check after dismissing: %v", u["has_failing_check"])
	}
	tr := servertest.GetObject(t, base+"/api/translations/demo/app/de/")
	if servertest.Num(tr["failing_checks"]) != "0" || servertest.Num(tr["failing_checks_percent"]) != "0.0" {
		t.Errorf("translation after dismissing: failing_checks %v (%v%%)", tr["failing_checks"], tr["failing_checks_percent"])
	}
	if n := count("dismissed_check:end_ellipsis"); n != "1" {
		t.Errorf("dismissed_check:end_ellipsis counts %s", n)
	}
	if n := count("has:check"); n != "0" {
		t.Errorf("has:check counts %s after dismissing", n)
	}
	changes := servertest.GetObject(t, base+"/api/changes/?action=1000")
	if servertest.Num(changes["count"]) != "1" {
		t.Errorf("changes of action 1000 (Check dismissed): %v", changes["count"])
	}

	if r := servertest.DoJSON(t, "DELETE", dismiss, e.rita, nil); r.Status != http.StatusOK ||
		!strings.Contains(string(r.Body), `"dismissed":false`) {
		t.Errorf("restoring: %d %s", r.Status, r.Body)
	}
	if u := servertest.GetObject(t, open); u["has_failing_check"] != true {
		t.Errorf("has_failing_check after restoring: %v", u["has_failing_check"])
	}

	// What does not fail cannot be dismissed; an unknown unit is 404.
	for _, url := range []string{open + "checks/same/dismiss/", open + "checks/no-such-check/dismiss/",
		base + "/api/units/999999/checks/end_ellipsis/dismiss/", base + "/api/units/999999/checks/"} {
		method := "POST"
		if strings.HasSuffix(url, "/checks/") {
			method = "GET"
		}
		if r := servertest.DoJSON(t, method, url, e.rita, nil); r.Status != http.StatusNotFound {
			t.Errorf("%s %s: %d %s, want 404", method, url, r.Status, r.Body)
		}
	}
}

// TestEnforcedChecksAPI: enforced_checks and check_flags are validated;
// an enforced check demotes a save to needing editing (state 11, fuzzy)
// and cannot be dismissed.
func TestEnforcedChecksAPI(t *testing.T) {
	// Component writes need the sync service.
	env := servertest.New(t, servertest.WithDemo(), servertest.WithComponents(),
		servertest.WithUser("anna", false, [2]string{"Translate", "demo"}), servertest.WithUser("root", true))
	e := &writeEnv{srv: env.Running, db: env.DB, anna: env.Auth["anna"], root: env.Auth["root"]}
	comp := e.srv.URL + "/api/components/demo/app/"
	for _, tc := range []struct {
		body  map[string]any
		field string
	}{
		{map[string]any{"enforced_checks": []string{"end_stop", "no_such_check"}}, "enforced_checks"},
		{map[string]any{"check_flags": "max-length:abc"}, "check_flags"},
		{map[string]any{"check_flags": "regex:(unclosed"}, "check_flags"},
		{map[string]any{"check_flags": "no-such-flag"}, "check_flags"},
		{map[string]any{"check_flags": "accelerator:ab"}, "check_flags"},
		{map[string]any{"check_flags": "max-size:wide"}, "check_flags"},
		{map[string]any{"check_flags": "max-size:120:2:3"}, "check_flags"},
		{map[string]any{"enforced_checks": []string{"perl_format", "fluent-parts", "rst-syntax", "nope"}}, "enforced_checks"},
	} {
		r := servertest.DoJSON(t, "PATCH", comp, e.root, tc.body)
		if r.Status != http.StatusBadRequest || !strings.Contains(string(r.Body), `"attr":"`+tc.field+`"`) {
			t.Errorf("PATCH %v: %d %s, want a 400 on %s", tc.body, r.Status, r.Body, tc.field)
		}
	}
	if r := servertest.DoJSON(t, "PATCH", e.unitURL(t, "app", "en", "save"), e.root,
		map[string]any{"extra_flags": "max-length:"}); r.Status != http.StatusBadRequest ||
		!strings.Contains(string(r.Body), `"attr":"extra_flags"`) {
		t.Errorf("PATCH extra_flags max-length: → %d %s, want a 400 on extra_flags", r.Status, r.Body)
	}

	if r := servertest.DoJSON(t, "PATCH", comp, e.root, map[string]any{"enforced_checks": []string{"end_ellipsis", "end_exclamation"}}); r.Status != http.StatusOK {
		t.Fatalf("PATCH enforced_checks: %d %s", r.Status, r.Body)
	}
	save := e.unitURL(t, "app", "de", "save")
	r := servertest.DoJSON(t, "PATCH", save, e.anna, map[string]any{"target": []string{"Alle Dateien speichern!"}, "state": 20})
	var written struct {
		State int `json:"state"`
	}
	decodeJSON(t, r, &written)
	if r.Status != http.StatusOK || written.State != 11 {
		t.Errorf("a save failing an enforced check: %d %s, want state 11", r.Status, r.Body)
	}
	u := servertest.GetObject(t, save)
	if u["fuzzy"] != true || u["translated"] != false || u["has_failing_check"] != true {
		t.Errorf("unit after enforcement: fuzzy %v translated %v has_failing_check %v", u["fuzzy"], u["translated"], u["has_failing_check"])
	}
	if r := servertest.DoJSON(t, "POST", save+"checks/end_exclamation/dismiss/", e.root, nil); r.Status != http.StatusBadRequest ||
		!strings.Contains(string(r.Body), "Enforced checks cannot be dismissed.") {
		t.Errorf("dismissing an enforced check: %d %s", r.Status, r.Body)
	}
	var list []unitCheck
	decodeJSON(t, servertest.DoJSON(t, "GET", save+"checks/", "", nil), &list)
	if len(list) != 1 || !list[0].Enforced || list[0].Check != "end_exclamation" {
		t.Errorf("checks of the demoted unit: %+v", list)
	}

	var sum struct {
		Failing int `json:"failing"`
		Checks  []struct {
			Check     string                    `json:"check"`
			Enforced  bool                      `json:"enforced"`
			Failing   int                       `json:"failing"`
			Languages map[string]map[string]int `json:"languages"`
		} `json:"checks"`
	}
	decodeJSON(t, servertest.DoJSON(t, "GET", comp+"checks/", "", nil), &sum)
	if sum.Failing != 2 || len(sum.Checks) != 2 || sum.Checks[0].Check != "end_exclamation" ||
		sum.Checks[1].Check != "end_ellipsis" || !sum.Checks[0].Enforced || sum.Checks[1].Languages["de"]["failing"] != 1 {
		t.Errorf("component summary: %+v", sum)
	}
}

// TestAutofixOnSave: a translator's save gets the reference's fixups
// (trailing "..." to "…" where the source ends with "…", a stray
// trailing space dropped), so no check fails on what was meant.
func TestAutofixOnSave(t *testing.T) {
	e := newWriteEnv(t)
	save := e.unitURL(t, "app", "de", "save")
	r := servertest.DoJSON(t, "PATCH", save, e.anna, map[string]any{"target": []string{"Alle Dateien speichern\u200b "}, "state": 20})
	var written struct {
		Target []string `json:"target"`
	}
	decodeJSON(t, r, &written)
	if r.Status != http.StatusOK || len(written.Target) != 1 || written.Target[0] != "Alle Dateien speichern" {
		t.Errorf("saved %q (%d %s), want the zero-width and trailing spaces gone", written.Target, r.Status, r.Body)
	}
	if u := servertest.GetObject(t, save); u["has_failing_check"] != false {
		t.Errorf("has_failing_check after the fixups: %v", u["has_failing_check"])
	}
}
