package api_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/tolk-project/tolk/index"
	"github.com/tolk-project/tolk/internal/servertest"
)

// TestUnitWritesCheckText sends texts the rule on a unit's text refuses
// (index.CheckText) through each unit write of the API: each is a 400 on
// the form at fault, and the unit keeps its text.
func TestUnitWritesCheckText(t *testing.T) {
	e := newWriteEnv(t)
	save := e.unitURL(t, "app", "de", "save")
	long := strings.Repeat("x", 141) // "Save all files": 140 characters at most
	nul := errJSON("validation_error", [3]string{"null_characters_not_allowed", "Null characters are not allowed.", "target.0"})
	tooLong := errJSON("validation_error", [3]string{"max_length", "Translation text too long!", "target.0"})
	for _, tc := range []struct {
		name string
		do   func() servertest.Response
		want string
	}{
		{"PATCH with a NUL", func() servertest.Response {
			return servertest.DoJSON(t, "PATCH", save, e.anna, map[string]any{"target": []string{"a\x00"}, "state": 20})
		}, nul},
		{"PATCH too long for its source", func() servertest.Response {
			return servertest.DoJSON(t, "PATCH", save, e.anna, map[string]any{"target": []string{long}, "state": 20})
		}, tooLong},
		{"PUT too long for its source", func() servertest.Response {
			return servertest.DoJSON(t, "PUT", save, e.anna, map[string]any{"target": []string{long}, "state": 20, "labels": []int{}})
		}, tooLong},
	} {
		if r := tc.do(); r.Status != 400 || string(r.Body) != tc.want {
			t.Errorf("%s: %d %s\nwant 400 %s", tc.name, r.Status, r.Body, tc.want)
		}
	}
	if u := servertest.GetObject(t, save); u["target"].([]any)[0] != "" {
		t.Errorf("after the refusals the unit holds %q", u["target"])
	}
	// At the limit the text is fine.
	if r := servertest.DoJSON(t, "PATCH", save, e.anna, map[string]any{"target": []string{long[1:]}, "state": 20}); r.Status != 200 {
		t.Errorf("100 characters: %d %s", r.Status, r.Body)
	}

	e.setComponent(t, "glossary", func(c *index.Component) { c.ManageUnits = true })
	units := e.srv.URL + "/api/translations/demo/glossary/de/units/"
	r := servertest.DoJSON(t, "POST", units, e.sam, map[string]any{"source": []string{"fig"}, "target": []string{long[:101]}})
	if r.Status != 400 || string(r.Body) != tooLong {
		t.Errorf("POST too long for its source: %d %s\nwant 400 %s", r.Status, r.Body, tooLong)
	}
	if list := servertest.GetObject(t, units+"?q=source:fig"); servertest.Num(list["count"]) != "0" {
		t.Errorf("the refused string was added: %v", list)
	}
}

// TestUploadCheckText uploads a file with one value the rule on a unit's
// text refuses: the file is refused with a 400 naming the string, and
// nothing of it is stored.
func TestUploadCheckText(t *testing.T) {
	e := servertest.MustUploadEnv(t)
	before := len(e.Changes(t, "app", "de"))
	for _, tc := range []struct{ name, file, want string }{
		{"a NUL", `{"farewell": "Tsch\u0000ss", "menu": {"view": "Ansicht"}}`,
			`String "farewell": Null characters are not allowed.`},
		{"a value too long for its source", `{"menu": {"view": "Ansicht"}, "farewell": "` + strings.Repeat("x", 101) + `"}`,
			`String "farewell": Translation text too long!`},
		{"a value past the absolute cap", `{"farewell": "` + strings.Repeat("x", 9<<20) + `"}`,
			`String "farewell": Translation text too long!`},
	} {
		r := doUpload(t, "POST", e.Srv.URL+deURL, e.Anna, tc.file)
		code := "null_characters_not_allowed"
		if strings.Contains(tc.want, "too long") {
			code = "max_length"
		}
		wantErrorCode(t, r, 400, code, "file", tc.want)
	}
	units := e.Units(t, "app", "de")
	if u := units["menu.view"]; u.Target[0] != "" {
		t.Errorf("menu.view = %q: a refused file was half stored", u.Target[0])
	}
	if after := len(e.Changes(t, "app", "de")); after != before {
		t.Errorf("changes %d → %d: a refused file left changes", before, after)
	}
}

// TestChangeListTruncatesLongTexts stores a long text the way older
// data or an import may hold one (past the write rules) and reads the
// change lists: each shows the text's start with the marker and stays
// small, while the change's own URL has the whole text.
func TestChangeListTruncatesLongTexts(t *testing.T) {
	e := newWriteEnv(t)
	ctx := context.Background()
	id := e.unitID(t, "app", "de", "save")
	long := strings.Repeat("ü", 1<<19) // 1 MiB
	if _, err := e.db.UpdateUnit(ctx, id, index.Actor{}, func(index.Unit, index.Translation) (index.UnitUpdate, error) {
		return index.UnitUpdate{Edit: &index.UnitEdit{Target: []string{long}, State: index.StateTranslated}}, nil
	}); err != nil {
		t.Fatal(err)
	}
	var changeURL string
	for _, path := range []string{"/api/changes/", "/api/translations/demo/app/de/changes/", "/api/projects/demo/changes/"} {
		r := servertest.Do(t, "GET", e.srv.URL+path+"?page=last", nil)
		if r.Status != 200 || len(r.Body) > 64<<10 {
			t.Fatalf("%s: %d, %d bytes: the long text is not truncated", path, r.Status, len(r.Body))
		}
		results := servertest.Results(t, servertest.Decode(t, r.Body))
		last := results[len(results)-1]
		target, _ := last["target"].(string)
		if want := fmt.Sprintf("… [truncated: %d bytes]", len(long)); !strings.HasPrefix(target, "üüü") || !strings.HasSuffix(target, want) {
			t.Errorf("%s: target %.40q…%q, want the start and %q", path, target, target[max(0, len(target)-40):], want)
		}
		changeURL, _ = last["url"].(string)
	}
	if ch := servertest.GetObject(t, changeURL); ch["target"] != long {
		t.Errorf("the change's URL has %d bytes of target, want the whole %d", len(fmt.Sprint(ch["target"])), len(long))
	}
}
