package sync_test

import (
	"context"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/tolk-project/tolk/index"
	tolksync "github.com/tolk-project/tolk/sync"
)

// TestJobReadsAddonsOnce: an import of a component and the one linked
// to it reads the project's add-ons once (the flag add-ons, the
// background runs), and so does a commit of both (each one's JSON
// layout, the cleanups, the squash), though every step consults them:
// the squash and JSON add-ons still act on the commit.
func TestJobReadsAddonsOnce(t *testing.T) {
	ctx := context.Background()
	e := mustLinkedEnv(t, mustCommitEnvEnv(t))
	for _, a := range []index.Addon{
		{Name: index.AddonSquash, ProjectID: e.c.ProjectID, Squash: index.Squash{Mode: index.SquashAll}},
		{Name: index.AddonJSONCustomize, ProjectID: e.c.ProjectID, JSON: index.JSONCustomize{Indent: 3, Style: index.JSONSpaces}},
		{Name: index.AddonFlagsTargetEdit, ProjectID: e.c.ProjectID},
		{Name: index.AddonCleanupBlank, ProjectID: e.c.ProjectID},
	} {
		if _, err := e.db.CreateAddon(ctx, a); err != nil {
			t.Fatal(err)
		}
	}
	var reads atomic.Int64
	tolksync.CountAddonReads(e.svc, &reads)
	if _, err := e.svc.ImportComponent(ctx, e.c); err != nil {
		t.Fatal(err)
	}
	if n := reads.Load(); n != 1 {
		t.Errorf("the import of app and docs read the add-ons %d times, want once", n)
	}
	before := len(e.log(t))
	editIn(t, e.env, "app", "de", "bye", "Tschüss", e.ann)
	editIn(t, e.env, "docs", "de", "intro", "Lies mich", e.ann)
	reads.Store(0)
	res, err := e.svc.Commit(ctx, e.c, nil)
	if err != nil {
		t.Fatal(err)
	}
	if n := reads.Load(); n != 1 {
		t.Errorf("the commit of app and docs read the add-ons %d times, want once", n)
	}
	if len(res.Commits) != 1 {
		t.Errorf("commits = %v, want the two squashed into one", res.Commits)
	}
	if err := e.svc.Push(ctx, e.c, nil); err != nil {
		t.Fatal(err)
	}
	if got := len(e.log(t)); got != before+1 {
		t.Errorf("upstream has %d new commits, want 1", got-before)
	}
	if got := git(t, e.bare, "show", "main:docs/de.json"); !strings.Contains(got, "\n   \"intro\": \"Lies mich\"") {
		t.Errorf("docs/de.json not laid out by the JSON add-on (indent 3):\n%s", got)
	}
}
