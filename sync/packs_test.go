package sync_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tolk-project/tolk/index/langdata"
	tolksync "github.com/tolk-project/tolk/sync"
	"github.com/tolk-project/tolk/vcs"
)

// TestRestartWithTruncatedPackIndexes: a process killed while go-git
// wrote a pack's .idx (it creates the file in place, then renames the
// pack) leaves it cut off, and a fetch that retries trusts the file it
// finds. Here every .idx of the checkout is cut to nothing, with an edit
// pending and a killed fetch's temporary pack beside them. After a
// restart the edit is pushed all the same: the damaged packs go, the
// checkout whose HEAD can no longer be read is cloned again, and the
// index, which still owes the edit, writes it.
func TestRestartWithTruncatedPackIndexes(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	e := mustCommitEnv(t)
	// A second pack, from a fetch, beside the clone's.
	e.upstream(t, map[string]string{"README": "still not a translation\n"}, "upstream change")
	if err := e.svc.Pull(ctx, e.c, nil); err != nil {
		t.Fatal(err)
	}
	e.edit(t, "de", "bye", "Tschüss", e.ann)
	if err := e.svc.Close(); err != nil {
		t.Fatal(err)
	}

	packs := filepath.Join(e.dir, "repos", "test", "app", ".git", "objects", "pack")
	idx, err := filepath.Glob(filepath.Join(packs, "pack-*.idx"))
	if err != nil || len(idx) == 0 {
		t.Fatalf("pack indexes in %s: %v, %v", packs, idx, err)
	}
	for _, p := range idx {
		if err := os.Truncate(p, 0); err != nil {
			t.Fatal(err)
		}
	}
	tmp := filepath.Join(packs, "tmp_pack_123456")
	if err := os.WriteFile(tmp, []byte("PACK\x00\x00\x00\x02"), 0o644); err != nil {
		t.Fatal(err)
	}

	svc, err := tolksync.New(e.db, langdata.Default(), tolksync.Options{DataDir: e.dir, Committer: vcs.Signature{Name: "Tolk Bot", Email: "bot@tolk.example"}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { svc.Close() })
	if _, err := svc.RemoveStale(); err != nil {
		t.Fatalf("RemoveStale: %v", err)
	}
	if _, err := os.Stat(tmp); !os.IsNotExist(err) {
		t.Errorf("the killed fetch's %s is still there (%v)", filepath.Base(tmp), err)
	}
	if err := svc.Push(ctx, e.c, &e.ann); err != nil {
		t.Fatalf("push after the restart: %v", err)
	}
	if de := git(t, e.bare, "show", "main:locales/de.json"); !strings.Contains(de, `"bye": "Tschüss"`) {
		t.Errorf("de.json upstream =\n%s\nwant the pending edit", de)
	}
	if readme := git(t, e.bare, "show", "main:README"); readme != "still not a translation" {
		t.Errorf("README upstream = %q, want upstream's change kept", readme)
	}
	if p := e.pending(t); p.Any() {
		t.Errorf("pending after the push = %+v, want nothing", p)
	}
	st, err := svc.RepositoryStatus(ctx, e.c)
	if err != nil {
		t.Fatalf("repository status: %v", err)
	}
	if st.NeedsCommit || st.NeedsPush || st.NeedsMerge {
		t.Errorf("repository status = %+v, want in step with upstream", st)
	}
}
