package api_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/tolk-project/tolk/index"
	"github.com/tolk-project/tolk/index/langdata"
	"github.com/tolk-project/tolk/internal/servertest"
)

// TestUserSecondaryLanguages: a user sets its own secondary languages
// (the reference's profile field), in its order, repeats dropped; those
// who manage users see and set them; unknown codes and wrong types are
// 400s on the field, and nothing changes.
func TestUserSecondaryLanguages(t *testing.T) {
	e := mustUsersEnv(t)
	base := e.srv.URL + "/api/users/"
	many := []string{"de", "fr", "cs", "ar", "es", "it", "ja", "pl", "pt", "ru", "sv", "tr", "uk", "zh_Hans", "nl", "da",
		"fi", "el", "he", "hu", "ko"}
	var langs []index.Language
	for _, c := range many {
		l, ok := langdata.Default().Get(c)
		if !ok {
			t.Fatalf("no language %s", c)
		}
		langs = append(langs, l)
	}
	if err := e.db.SeedLanguages(context.Background(), langs); err != nil {
		t.Fatal(err)
	}
	r := servertest.DoJSON(t, "PATCH", base+"anna/", e.anna, map[string]any{"secondary_languages": []string{"fr", "de", "fr"}})
	if r.Status != 200 {
		t.Fatalf("self PATCH = %d %s", r.Status, r.Body)
	}
	if got := fmt.Sprint(servertest.Decode(t, r.Body)["secondary_languages"]); got != "[fr de]" {
		t.Errorf("self PATCH answers %s, want [fr de]", got)
	}
	if got := fmt.Sprint(servertest.GetObjectAs(t, base+"anna/", e.root)["secondary_languages"]); got != "[fr de]" {
		t.Errorf("a manager reads %s", got)
	}
	for _, bad := range []any{[]string{"de", "no-such-language"}, "de", []any{"de", 3}, []any{nil}} {
		r := servertest.DoJSON(t, "PATCH", base+"anna/", e.anna, map[string]any{"secondary_languages": bad})
		if r.Status != 400 || !strings.Contains(string(r.Body), `"attr":"secondary_languages"`) {
			t.Errorf("PATCH %v = %d %s, want 400 on secondary_languages", bad, r.Status, r.Body)
		}
	}
	if r := servertest.DoJSON(t, "PATCH", base+"anna/", e.anna, map[string]any{"secondary_languages": many}); r.Status != 400 ||
		!strings.Contains(string(r.Body), "At most") {
		t.Errorf("PATCH of %d languages = %d %s, want 400", len(many), r.Status, r.Body)
	}
	if got := fmt.Sprint(servertest.GetObjectAs(t, base+"anna/", e.root)["secondary_languages"]); got != "[fr de]" {
		t.Errorf("after refused writes: %s", got)
	}
	// A manager clears them.
	r = servertest.DoJSON(t, "PATCH", base+"anna/", e.root, map[string]any{"secondary_languages": []string{}})
	if got := fmt.Sprint(servertest.Decode(t, r.Body)["secondary_languages"]); r.Status != 200 || got != "[]" {
		t.Errorf("manager's clear = %d %s", r.Status, r.Body)
	}
}
