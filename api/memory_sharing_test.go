package api_test

import (
	"context"
	"net/http"
	"testing"

	"github.com/tolk-project/tolk/index"
	"github.com/tolk-project/tolk/internal/servertest"
)

// TestProjectSharedMemory: use_shared_tm and contribute_shared_tm are on
// the project's API, on by default for a new project, written by PATCH,
// and obeyed by the memory: a project that stops contributing leaves
// the shared pool; one that stops using it no longer reads it.
func TestProjectSharedMemory(t *testing.T) {
	e := servertest.New(t, servertest.WithDemo(), servertest.WithUser("admin", true))
	auth := e.Auth["admin"]
	r := servertest.DoJSON(t, "POST", e.URL+"/api/projects/", auth, map[string]any{"name": "Other", "slug": "other",
		"web": "https://example.org/"})
	if r.Status != http.StatusCreated {
		t.Fatalf("create = %d %s", r.Status, r.Body)
	}
	p := servertest.Decode(t, r.Body)
	if p["use_shared_tm"] != true || p["contribute_shared_tm"] != true {
		t.Errorf("new project = %v, want both on", p)
	}
	const pair = "source_language=en&target_language=de"
	// Other has no strings: the demo's apple comes from the shared pool.
	if got := lookup(t, e.URL, auth, pair+"&project=other", "apple"); !same(got, []string{"Apfel 100x"}) {
		t.Fatalf("other's lookup with the pool = %q", got)
	}
	patch := func(slug string, body map[string]any) map[string]any {
		t.Helper()
		r := servertest.DoJSON(t, "PATCH", e.URL+"/api/projects/"+slug+"/", auth, body)
		if r.Status != http.StatusOK {
			t.Fatalf("PATCH %s %v = %d %s", slug, body, r.Status, r.Body)
		}
		return servertest.GetObjectAs(t, e.URL+"/api/projects/"+slug+"/", auth)
	}
	if p := patch("demo", map[string]any{"contribute_shared_tm": false}); p["contribute_shared_tm"] != false || p["use_shared_tm"] != true {
		t.Errorf("demo after PATCH = %v", p)
	}
	if got := lookup(t, e.URL, auth, pair+"&project=other", "apple"); !same(got, []string{"-"}) {
		t.Errorf("other's lookup after demo stopped contributing = %q", got)
	}
	patch("demo", map[string]any{"contribute_shared_tm": true})
	if p := patch("other", map[string]any{"use_shared_tm": "false"}); p["use_shared_tm"] != false {
		t.Errorf("other after PATCH = %v", p)
	}
	if got := lookup(t, e.URL, auth, pair+"&project=other", "apple"); !same(got, []string{"-"}) {
		t.Errorf("other's lookup without the pool = %q", got)
	}
	r = servertest.DoJSON(t, "PATCH", e.URL+"/api/projects/other/", auth, map[string]any{"use_shared_tm": "maybe"})
	if r.Status != http.StatusBadRequest {
		t.Errorf("bad boolean = %d %s", r.Status, r.Body)
	}
	// The index says the same as the API.
	if use, contribute, err := e.DB.ProjectMemorySharing(context.Background(), mustProjectID(t, e, "other")); err != nil || use || !contribute {
		t.Errorf("stored = %v %v, %v", use, contribute, err)
	}
}

func mustProjectID(t *testing.T, e *servertest.Env, slug string) int64 {
	t.Helper()
	p, err := e.DB.FindProject(context.Background(), slug)
	if err != nil {
		t.Fatal(err)
	}
	var _ index.Project = p
	return p.ID
}

// TestPersonalMemory: a user's own translation answers that user's
// lookups from another project though neither project shares its memory
// (the reference's personal scope); another user's lookups do not see it.
func TestPersonalMemory(t *testing.T) {
	e := servertest.New(t, servertest.WithDemo(), servertest.WithUser("admin", true), servertest.WithUser("ann", false))
	ctx := context.Background()
	admin := e.Auth["admin"]
	r := servertest.DoJSON(t, "POST", e.URL+"/api/projects/", admin, map[string]any{"name": "Other", "slug": "other",
		"web": "https://example.org/"})
	if r.Status != http.StatusCreated {
		t.Fatalf("create = %d %s", r.Status, r.Body)
	}
	r = servertest.DoJSON(t, "PATCH", e.URL+"/api/projects/demo/", admin, map[string]any{"contribute_shared_tm": false})
	if r.Status != http.StatusOK {
		t.Fatalf("PATCH demo = %d %s", r.Status, r.Body)
	}
	ann, err := e.DB.FindUser(ctx, "ann")
	if err != nil {
		t.Fatal(err)
	}
	tr, err := e.DB.FindTranslation(ctx, "demo", "glossary", "de")
	if err != nil {
		t.Fatal(err)
	}
	id, err := e.DB.FindUnitIDByHash(ctx, tr.ID, index.IDHash(false, []string{"plum"}, ""))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := e.DB.UpdateUnit(ctx, id, index.Actor{UserID: ann.ID, AuthorID: ann.ID},
		func(index.Unit, index.Translation) (index.UnitUpdate, error) {
			return index.UnitUpdate{Edit: &index.UnitEdit{Target: []string{"Pflaume"}, State: index.StateTranslated}}, nil
		}); err != nil {
		t.Fatal(err)
	}
	const pair = "source_language=en&target_language=de&project=other"
	if got := lookup(t, e.URL, e.Auth["ann"], pair, "plum", "apple"); !same(got, []string{"Pflaume 100x", "-"}) {
		t.Errorf("ann's lookup = %q, want her own plum only", got)
	}
	if got := lookup(t, e.URL, admin, pair, "plum"); !same(got, []string{"-"}) {
		t.Errorf("admin found ann's personal entry: %q", got)
	}
}
