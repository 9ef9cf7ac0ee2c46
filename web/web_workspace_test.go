package web_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/tolk-project/tolk/edge"
	"github.com/tolk-project/tolk/index"
	"github.com/tolk-project/tolk/index/indextest"
	"github.com/tolk-project/tolk/internal/servertest"
)

// mustContain fails for each of want that body lacks.
func mustContain(t *testing.T, what, body string, want ...string) {
	t.Helper()
	for _, w := range want {
		if !strings.Contains(body, w) {
			t.Errorf("%s lacks %q:\n%s", what, w, body)
		}
	}
}

// TestWorkspaceChecks: the editor lists the string's failing checks by
// name with their description; a reviewer dismisses and restores one; a
// translator may not; the JSON save answers with the checks of what was
// saved.
func TestWorkspaceChecks(t *testing.T) {
	srv, db := shopServer(t)
	servertest.MustUser(t, db, "rita", false, [2]string{"Review strings", "shop"})
	mustPassword(t, db, "rita", "correct horse")
	anna := newBrowser(t, srv.URL)
	anna.signIn("anna", "correct horse")
	// A save that drops the source's placeholder fails a check, and the
	// answer says which, with a link back to the string.
	id, version, token := editorState(t, anna, "/translate/shop/ui/de/?q=key:pears")
	r := saveJSON(anna, token, map[string]any{"id": json.Number(id), "version": version, "q": "key:pears",
		"target": []string{"%d Birnen im Korb!"}})
	var got struct {
		Checks   []struct{ Check, Name, Description string }
		Previous string
	}
	if err := json.Unmarshal(r.Body, &got); err != nil || r.Status != http.StatusOK {
		t.Fatalf("save = %d %s", r.Status, r.Body)
	}
	if len(got.Checks) == 0 || got.Checks[0].Name == "" || got.Checks[0].Description == "" ||
		!strings.Contains(got.Previous, "checksum=") {
		t.Fatalf("save answer = %s, want its failing checks named and described", r.Body)
	}
	name := got.Checks[0].Check
	page := "/translate/shop/ui/de/?q=key:pears"
	body := string(anna.get(page).Body)
	mustContain(t, "translator's editor", body, `id="checks"`, `data-check="`+name+`"`, got.Checks[0].Description)
	if strings.Contains(body, `value="dismiss"`) {
		t.Error("a translator is offered to dismiss a check")
	}
	form := url.Values{"csrf_token": {token}, "id": {id}, "check": {name}, "op": {"dismiss"}}
	if r := anna.post("/translate/shop/ui/de/check/", form); r.Status != http.StatusForbidden {
		t.Errorf("translator's dismiss = %d, want 403", r.Status)
	}
	rita := newBrowser(t, srv.URL)
	ritaToken := rita.signIn("rita", "correct horse")
	mustContain(t, "reviewer's editor", string(rita.get(page).Body), `value="dismiss" data-dismiss="1"`)
	form.Set("csrf_token", ritaToken)
	if r := rita.post("/translate/shop/ui/de/check/", form); r.Status != http.StatusSeeOther ||
		!strings.HasSuffix(r.Header.Get("Location"), "#checks") {
		t.Fatalf("dismiss = %d %s", r.Status, r.Body)
	}
	stored, err := db.UnitChecks(context.Background(), mustAtoi(t, id))
	if err != nil || len(stored) == 0 || !stored[0].Dismissed {
		t.Fatalf("after dismiss: %v %v", stored, err)
	}
	mustContain(t, "after dismiss", string(rita.get(page).Body), `<span class="badge">dismissed</span>`, `value="restore"`)
	form.Set("op", "restore")
	if r := rita.post("/translate/shop/ui/de/check/", form); r.Status != http.StatusSeeOther {
		t.Fatalf("restore = %d %s", r.Status, r.Body)
	}
	if stored, _ := db.UnitChecks(context.Background(), mustAtoi(t, id)); len(stored) == 0 || stored[0].Dismissed {
		t.Errorf("after restore: %v", stored)
	}
	for _, bad := range []url.Values{
		{"csrf_token": {ritaToken}, "id": {id}, "check": {name}, "op": {"explode"}},
		{"csrf_token": {ritaToken}, "id": {"x"}, "check": {name}, "op": {"dismiss"}},
	} {
		if r := rita.post("/translate/shop/ui/de/check/", bad); r.Status != http.StatusBadRequest {
			t.Errorf("check form %v = %d, want 400", bad, r.Status)
		}
	}
	if r := rita.post("/translate/shop/ui/de/check/", url.Values{"csrf_token": {ritaToken}, "id": {id},
		"check": {"no_such_check"}, "op": {"dismiss"}}); r.Status != http.StatusNotFound {
		t.Errorf("dismiss of a check that does not fail = %d, want 404", r.Status)
	}
	if r := rita.post("/translate/shop/ui/de/check/", url.Values{"id": {id}, "check": {name}, "op": {"dismiss"}}); r.Status != http.StatusForbidden {
		t.Errorf("dismiss without CSRF = %d", r.Status)
	}
	indextest.CheckCounts(t, db)
}

// TestWorkspaceHistoryRevert: the history shows each earlier text's
// diff against the current one, and Revert sets it back as an edit of
// its own (change 8) that a stale page cannot make.
func TestWorkspaceHistoryRevert(t *testing.T) {
	srv, db := shopServer(t)
	anna := newBrowser(t, srv.URL)
	anna.signIn("anna", "correct horse")
	page := "/translate/shop/ui/de/?q=key:bye"
	for _, text := range []string{"Auf Wiedersehen", "Tschüss dann"} {
		id, version, token := editorState(t, anna, page)
		if r := saveJSON(anna, token, map[string]any{"id": json.Number(id), "version": version, "q": "key:bye",
			"target": []string{text}}); r.Status != http.StatusOK {
			t.Fatalf("save %q = %d %s", text, r.Status, r.Body)
		}
	}
	id, version, token := editorState(t, anna, page)
	body := string(anna.get(page).Body)
	mustContain(t, "history", body, `id="history"`, `<del>Auf</del><ins>Tschüss</ins> <del>Wiedersehen</del><ins>dann</ins>`, "Revert to this")
	changes, _, err := db.FindChanges(context.Background(), index.ChangeFilter{UnitID: mustAtoi(t, id), Page: index.Page{Number: 1, Size: 10}})
	if err != nil || len(changes) < 2 {
		t.Fatalf("changes %v %v", changes, err)
	}
	var first index.Change
	for _, ch := range changes {
		if ch.Target == "Auf Wiedersehen" {
			first = ch
		}
	}
	form := url.Values{"csrf_token": {token}, "id": {id}, "version": {"stale"}, "change": {itoa(first.ID)}}
	if r := anna.post("/translate/shop/ui/de/revert/", form); r.Status != http.StatusConflict {
		t.Errorf("revert from a stale page = %d, want 409", r.Status)
	}
	form.Set("version", version)
	if r := anna.post("/translate/shop/ui/de/revert/", form); r.Status != http.StatusSeeOther {
		t.Fatalf("revert = %d %s", r.Status, r.Body)
	}
	unit := servertest.GetObject(t, srv.URL+"/api/units/"+id+"/")
	if unit["target"].([]any)[0] != "Auf Wiedersehen" {
		t.Errorf("after revert the target is %v", unit["target"])
	}
	changes, _, _ = db.FindChanges(context.Background(), index.ChangeFilter{UnitID: mustAtoi(t, id), Page: index.Page{Number: 1, Size: 10}})
	if last := changes[len(changes)-1]; last.Action != index.ActionRevert || last.Target != "Auf Wiedersehen" {
		t.Errorf("the revert recorded %v %q, want change 8", last.Action, last.Target)
	}
	// A change of another string, or none, is refused.
	for _, bad := range []string{"x", "999999"} {
		form.Set("change", bad)
		_, version, _ = editorState(t, anna, page)
		form.Set("version", version)
		if r := anna.post("/translate/shop/ui/de/revert/", form); r.Status != http.StatusBadRequest && r.Status != http.StatusNotFound {
			t.Errorf("revert to change %s = %d", bad, r.Status)
		}
	}
	otto := newBrowser(t, srv.URL)
	ottoToken := otto.signIn("otto", "correct horse")
	form.Set("csrf_token", ottoToken)
	form.Set("change", itoa(first.ID))
	if r := otto.post("/translate/shop/ui/de/revert/", form); r.Status != http.StatusForbidden {
		t.Errorf("revert without the right = %d", r.Status)
	}
	indextest.CheckCounts(t, db)
}

// TestWorkspaceContext: the string in the other languages, linked to
// their editors, and the strings nearby.
func TestWorkspaceContext(t *testing.T) {
	srv, _ := shopServer(t)
	body := servertest.GetPage(t, srv.URL+"/translate/shop/ui/de/?q=key:greet", http.StatusOK)
	mustContain(t, "context", body, `id="languages"`, `<td lang="ar" dir="rtl">مرحبا {name}</td>`,
		`href="`+srv.URL+`/translate/shop/ui/ar/?checksum=`, `id="nearby"`, `<td lang="en" dir="ltr">Good bye</td>`)
	if strings.Contains(body, `<td lang="de" dir="ltr">Hallo, nimm einen Apfel</td><td class="quiet">`) {
		t.Error("other languages list the string's own language")
	}
}

// TestWorkspaceCommentResolve: the author resolves and reopens a
// comment from the editor; someone else without comment.resolve may
// not.
func TestWorkspaceCommentResolve(t *testing.T) {
	srv, db := shopServer(t)
	anna := newBrowser(t, srv.URL)
	anna.signIn("anna", "correct horse")
	page := "/translate/shop/ui/de/?q=key:bye"
	id, _, token := editorState(t, anna, page)
	if r := anna.post("/translate/shop/ui/de/comment/", url.Values{"csrf_token": {token}, "id": {id},
		"scope": {"translation"}, "comment": {"Is this *formal*?"}}); r.Status != http.StatusSeeOther {
		t.Fatalf("comment = %d %s", r.Status, r.Body)
	}
	comments, _, err := db.FindComments(context.Background(), index.CommentFilter{UnitID: mustAtoi(t, id), Page: index.Page{Number: 1, Size: 10}})
	if err != nil || len(comments) != 1 {
		t.Fatalf("comments %v %v", comments, err)
	}
	cid := itoa(comments[0].ID)
	mustContain(t, "editor", string(anna.get(page).Body), `name="comment" value="`+cid+`"`, `value="resolve">Resolve</button>`)
	otto := newBrowser(t, srv.URL)
	ottoToken := otto.signIn("otto", "correct horse")
	if strings.Contains(string(otto.get(page).Body), `value="resolve"`) {
		t.Error("otto is offered to resolve anna's comment")
	}
	form := url.Values{"csrf_token": {ottoToken}, "id": {id}, "comment": {cid}, "op": {"resolve"}}
	if r := otto.post("/translate/shop/ui/de/comment/resolve/", form); r.Status != http.StatusForbidden {
		t.Errorf("otto's resolve = %d, want 403", r.Status)
	}
	form.Set("csrf_token", token)
	if r := anna.post("/translate/shop/ui/de/comment/resolve/", form); r.Status != http.StatusSeeOther {
		t.Fatalf("resolve = %d %s", r.Status, r.Body)
	}
	mustContain(t, "after resolve", string(anna.get(page).Body), `(resolved)`, `value="reopen"`)
	form.Set("op", "reopen")
	if r := anna.post("/translate/shop/ui/de/comment/resolve/", form); r.Status != http.StatusSeeOther {
		t.Fatalf("reopen = %d %s", r.Status, r.Body)
	}
	// A comment of another string is not found from this one.
	other, _, _ := editorState(t, anna, "/translate/shop/ui/de/?q=key:pears")
	form.Set("id", other)
	if r := anna.post("/translate/shop/ui/de/comment/resolve/", form); r.Status != http.StatusNotFound {
		t.Errorf("resolve through another string = %d, want 404", r.Status)
	}
	form.Set("op", "shrug")
	if r := anna.post("/translate/shop/ui/de/comment/resolve/", form); r.Status != http.StatusBadRequest {
		t.Errorf("resolve op shrug = %d, want 400", r.Status)
	}
	indextest.CheckCounts(t, db)
}

// TestWorkspacePrivate: the workspace's forms on a private project are
// the 404 of a missing object to a signed-in outsider, whatever the
// form holds; hostile values are 400s or 404s, never a 500.
func TestWorkspacePrivate(t *testing.T) {
	srv, db := shopServer(t)
	anna := newBrowser(t, srv.URL)
	anna.signIn("anna", "correct horse")
	id, version, _ := editorState(t, anna, "/translate/shop/ui/de/?q=key:greet")
	ctx := context.Background()
	p, err := db.FindProject(ctx, "shop")
	if err == nil {
		_, _, err = db.UpdateProject(ctx, p.ID, func(p *index.Project) error { p.AccessControl = index.AccessPrivate; return nil })
	}
	if err != nil {
		t.Fatal(err)
	}
	otto := newBrowser(t, srv.URL)
	ottoToken := otto.signIn("otto", "correct horse")
	forms := map[string]url.Values{
		"check/":           {"id": {id}, "check": {"same"}, "op": {"dismiss"}},
		"comment/resolve/": {"id": {id}, "comment": {"1"}, "op": {"resolve"}},
		"revert/":          {"id": {id}, "change": {"1"}, "version": {version}},
	}
	for path, form := range forms {
		form.Set("csrf_token", ottoToken)
		if r := otto.post("/translate/shop/ui/de/"+path, form); r.Status != http.StatusNotFound {
			t.Errorf("outsider's POST %s = %d, want 404", path, r.Status)
		}
	}
	annaToken := csrf(t, anna.get("/translate/shop/ui/de/").Body)
	hostile := []string{"", "-1", "0", "9223372036854775808", "1e3", "<script>", strings.Repeat("9", 5000), "1\x00"}
	for path, form := range forms {
		for field := range form {
			for _, v := range hostile {
				f := url.Values{}
				for k, vs := range form {
					f[k] = vs
				}
				f.Set("csrf_token", annaToken)
				f.Set(field, v)
				r := anna.post("/translate/shop/ui/de/"+path, f)
				if r.Status >= 500 || r.Status == http.StatusOK {
					t.Errorf("POST %s with %s=%q = %d", path, field, v, r.Status)
				}
			}
		}
	}
}

// TestWorkspaceAnonymousSuggestion: with anonymous suggestions on, a
// visitor who is not signed in gets Suggest on a public project's
// string, the suggestion is stored without a user, the address's window
// is counted, and nothing else is open to them; with them off there is
// no Suggest and the form is refused.
func TestWorkspaceAnonymousSuggestion(t *testing.T) {
	db := servertest.MustOpenDB(t)
	seedShop(t, db)
	ctx := context.Background()
	p, err := db.FindProject(ctx, "shop")
	if err != nil {
		t.Fatal(err)
	}
	if p.AccessControl != index.AccessPublic {
		t.Fatalf("shop is not public: %v", p.AccessControl)
	}
	srv := servertest.Serve(t, db, servertest.Options{AnonymousSuggestions: edge.RateLimit{Requests: 1, Period: time.Hour}})
	guest := newBrowser(t, srv.URL)
	page := "/translate/shop/ui/de/?q=key:bye"
	r := guest.get(page)
	mustContain(t, "guest's editor", string(r.Body), `id="suggest"`, "it is sent without your name")
	id := string(idRE.FindSubmatch(r.Body)[1])
	token := csrf(t, r.Body)
	form := url.Values{"csrf_token": {token}, "id": {id}, "op": {"suggest"}, "target": {"Tschüss"}, "q": {"key:bye"}}
	if r := guest.post("/translate/shop/ui/de/suggestions/", form); r.Status != http.StatusSeeOther {
		t.Fatalf("anonymous suggestion = %d %s", r.Status, r.Body)
	}
	list, _, err := db.FindSuggestions(ctx, index.SuggestionFilter{UnitID: mustAtoi(t, id), Page: index.Page{Number: 1, Size: 10}})
	if err != nil || len(list) != 1 || list[0].UserID != 0 || list[0].Target[0] != "Tschüss" {
		t.Fatalf("stored suggestions %+v %v", list, err)
	}
	form.Set("target", "Tschau")
	if r := guest.post("/translate/shop/ui/de/suggestions/", form); r.Status != http.StatusTooManyRequests || r.Header.Get("Retry-After") == "" {
		t.Errorf("second anonymous suggestion past the window = %d %v", r.Status, r.Header)
	}
	for _, op := range []string{"accept", "up", "delete"} {
		f := url.Values{"csrf_token": {token}, "id": {id}, "op": {op}, "suggestion": {itoa(list[0].ID)}}
		if r := guest.post("/translate/shop/ui/de/suggestions/", f); r.Status != http.StatusUnauthorized && r.Status != http.StatusTooManyRequests {
			t.Errorf("anonymous %s = %d", op, r.Status)
		}
	}
	if r := guest.post("/translate/shop/ui/de/suggestions/", url.Values{"id": {id}, "op": {"suggest"}, "target": {"x"}}); r.Status != http.StatusForbidden {
		t.Errorf("anonymous suggestion without CSRF = %d", r.Status)
	}
	indextest.CheckCounts(t, db)

	// Off (the default of these tests): no Suggest, and the form is 401.
	off, _ := shopServer(t)
	guest = newBrowser(t, off.URL)
	r = guest.get(page)
	if strings.Contains(string(r.Body), `id="suggest"`) {
		t.Error("anonymous suggestions off, yet the editor offers Suggest")
	}
	form.Set("csrf_token", csrf(t, guest.get("/accounts/login/").Body))
	if r := guest.post("/translate/shop/ui/de/suggestions/", form); r.Status != http.StatusUnauthorized {
		t.Errorf("anonymous suggestion with them off = %d", r.Status)
	}
}
