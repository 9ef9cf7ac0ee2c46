package main

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"testing"
)

// TestWLCReviewCounts drives the review flow through the API of a
// running tolk serve (reviews on, approve, unapprove, mark for edit,
// translate, a template edit that re-opens an approved string, reviews
// off) and after every step checks that the numbers the reference's
// client prints, `wlc stats` for a translation and `wlc
// list-translations` for all of them, equal a recount of the units the
// API lists (and the API's approved count too, which wlc 1.13 does not
// print).
func TestWLCReviewCounts(t *testing.T) {
	needWLC(t)
	p := startTolk(t)
	send := func(method, path, body string) {
		t.Helper()
		req, _ := http.NewRequest(method, p.base+path, strings.NewReader(body))
		req.Header.Set("Authorization", "Token "+p.token)
		req.Header.Set("Content-Type", "application/json")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		out, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			t.Fatalf("%s %s %s: %d %s", method, path, body, resp.StatusCode, out)
		}
	}
	type unit struct {
		ID              int64    `json:"id"`
		Context         string   `json:"context"`
		Target          []string `json:"target"`
		State           int      `json:"state"`
		NumWords        int      `json:"num_words"`
		HasFailingCheck bool     `json:"has_failing_check"`
		HasSuggestion   bool     `json:"has_suggestion"`
		HasComment      bool     `json:"has_comment"`
	}
	units := func(comp, lang string) []unit {
		t.Helper()
		resp := getAs(t, p.base+"/api/translations/demo/"+comp+"/"+lang+"/units/?page_size=1000", "Token "+p.token)
		defer resp.Body.Close()
		var page struct {
			Next    *string `json:"next"`
			Results []unit  `json:"results"`
		}
		if err := json.NewDecoder(resp.Body).Decode(&page); err != nil || resp.StatusCode != http.StatusOK || page.Next != nil {
			t.Fatalf("units of %s/%s: %d %v, next %v", comp, lang, resp.StatusCode, err, page.Next)
		}
		return page.Results
	}
	// recount counts a translation's units as wlc names the numbers.
	recount := func(comp, lang string) map[string]int {
		t.Helper()
		c := map[string]int{}
		for _, u := range units(comp, lang) {
			c["total"]++
			c["total_words"] += u.NumWords
			switch {
			case u.State >= 20:
				c["translated"]++
				c["translated_words"] += u.NumWords
			case u.State >= 10:
				c["fuzzy"]++
				c["fuzzy_words"] += u.NumWords
			}
			if u.State == 30 {
				c["approved"]++
			}
			if u.HasFailingCheck {
				c["failing_checks"]++
				c["failing_checks_words"] += u.NumWords
			}
			if u.HasSuggestion {
				c["have_suggestion"]++
			}
			if u.HasComment {
				c["have_comment"]++
			}
		}
		return c
	}
	// fields parses wlc's "key: value" blocks.
	fields := func(out string) []map[string]string {
		var blocks []map[string]string
		for _, block := range strings.Split(strings.TrimSpace(out), "\n\n") {
			b := map[string]string{}
			for _, line := range strings.Split(block, "\n") {
				if k, v, ok := strings.Cut(line, ": "); ok {
					b[k] = strings.TrimSpace(v)
				}
			}
			blocks = append(blocks, b)
		}
		return blocks
	}
	compare := func(step, what string, printed map[string]string, want map[string]int, names ...string) {
		t.Helper()
		for _, name := range names {
			got, ok := printed[name]
			if !ok {
				t.Errorf("%s: wlc %s prints no %s", step, what, name)
				continue
			}
			if n, err := strconv.Atoi(got); err != nil || n != want[name] {
				t.Errorf("%s: wlc %s says %s: %s, recount %d", step, what, name, got, want[name])
			}
		}
	}
	check := func(step string) {
		t.Helper()
		out, code := wlcRun(t, p, p.token, "stats", "demo/app/de")
		if code != 0 {
			t.Fatalf("%s: wlc stats: exit %d\n%s", step, code, out)
		}
		de := recount("app", "de")
		compare(step, "stats demo/app/de", fields(out)[0], de, "total", "total_words", "translated", "translated_words", "fuzzy")
		if printed := fields(out)[0]["failing"]; printed != strconv.Itoa(de["failing_checks"]) {
			t.Errorf("%s: wlc stats says failing: %s, recount %d", step, printed, de["failing_checks"])
		}
		st := apiGet(t, p, "/api/translations/demo/app/de/statistics/")
		if st["approved"] != float64(de["approved"]) {
			t.Errorf("%s: API approved %v, recount %d", step, st["approved"], de["approved"])
		}
		out, code = wlcRun(t, p, p.token, "list-translations")
		if code != 0 {
			t.Fatalf("%s: wlc list-translations: exit %d\n%s", step, code, out)
		}
		seen := 0
		for _, b := range fields(out) {
			comp, lang := b["component"], b["language_code"]
			if comp == "" || lang == "" {
				continue
			}
			seen++
			compare(step, "list-translations "+comp+"/"+lang, b, recount(comp, lang), "total", "total_words",
				"translated", "translated_words", "fuzzy", "fuzzy_words", "failing_checks", "failing_checks_words",
				"have_suggestion", "have_comment")
		}
		if seen < 5 {
			t.Errorf("%s: wlc list-translations listed %d translations:\n%s", step, seen, out)
		}
	}
	byKey := func(lang string) map[string]unit {
		out := map[string]unit{}
		for _, u := range units("app", lang) {
			out[u.Context] = u
		}
		return out
	}
	patchUnit := func(u unit, target string, state int) {
		t.Helper()
		body, _ := json.Marshal(map[string]any{"target": []string{target}, "state": state})
		send("PATCH", fmt.Sprintf("/api/units/%d/", u.ID), string(body))
	}

	check("start")
	send("PATCH", "/api/projects/demo/", `{"translation_review": true}`)
	check("reviews on")
	de := byKey("de")
	var translated, empty []unit
	for _, k := range []string{"app.title", "greeting", "farewell", "menu.file", "menu.edit", "menu.view"} {
		if u, ok := de[k]; ok && u.State >= 20 {
			translated = append(translated, u)
		} else if ok && u.State == 0 {
			empty = append(empty, u)
		}
	}
	if len(translated) < 3 || len(empty) < 1 {
		t.Fatalf("the demo's German has %d translated and %d empty strings of those expected", len(translated), len(empty))
	}
	patchUnit(translated[0], translated[0].Target[0], 30)
	patchUnit(translated[1], translated[1].Target[0], 30)
	check("two approved")
	patchUnit(translated[1], translated[1].Target[0], 20)
	check("one unapproved")
	patchUnit(translated[2], translated[2].Target[0], 10)
	check("one marked for edit")
	patchUnit(empty[0], "Neu", 30)
	check("an empty string approved")
	// A commit writes the file, which cannot say "approved" (JSON), and
	// the index reads it back: the approvals stay.
	for _, op := range []string{"commit", "pull"} {
		if out, code := wlcRun(t, p, p.token, op, "demo/app"); code != 0 {
			t.Fatalf("wlc %s: exit %d\n%s", op, code, out)
		}
	}
	if got := byKey("de")[translated[0].Context].State; got != 30 {
		t.Errorf("approved string after a commit and a pull: state %d, want 30", got)
	}
	check("commit and pull")
	// The template's string of the approved one changes: the German
	// string needs rewriting, no longer approved.
	send("PATCH", "/api/components/demo/app/", `{"edit_template": true}`)
	tmpl := byKey("en")[translated[0].Context]
	patchUnit(tmpl, "Changed upstream: "+tmpl.Target[0], 20)
	if got := byKey("de")[translated[0].Context].State; got != 11 {
		t.Errorf("approved German string after its source changed: state %d, want 11", got)
	}
	check("template edit")
	send("PATCH", "/api/projects/demo/", `{"translation_review": false}`)
	check("reviews off")
}
