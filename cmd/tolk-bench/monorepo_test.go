package main

import (
	"context"
	"testing"
	"time"
)

// TestMonorepo runs the monorepo section at 2,000 files on SQLite, as
// CI can without the corpus, and checks what it checked: the first
// commit holds the edit and nothing else, the pull leaves HEAD at
// upstream with the string it changed in the index and none of the new
// files in the work tree, and the ceiling did the same git work.
func TestMonorepo(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and imports a repository of 2,000 files, twice")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	eng, err := openEngine(ctx, "")
	if err != nil {
		t.Fatal(err)
	}
	defer eng.Close()
	m, err := benchMonorepo(ctx, eng, t.TempDir(), monorepoFilesQuick, t.Logf)
	if err != nil {
		t.Fatal(err)
	}
	checkMonorepo(t, m, monorepoFilesQuick)
}

// checkMonorepo checks that the monorepo section measured both rows and
// their ceilings over n files and that every check passed.
func checkMonorepo(t *testing.T, m *monorepoResult, n int) {
	t.Helper()
	if m == nil {
		t.Fatal("no monorepo section")
	}
	if m.Files != n || m.FirstSec <= 0 || m.FirstCeilSec <= 0 || m.PullSec <= 0 || m.PullCeilSec <= 0 {
		t.Errorf("monorepo: %d files, first commit %.3f s (ceiling %.3f s), pull %.3f s (ceiling %.3f s)",
			m.Files, m.FirstSec, m.FirstCeilSec, m.PullSec, m.PullCeilSec)
	}
	if len(m.Failures) > 0 || len(m.CeilFailures) > 0 {
		t.Errorf("monorepo checks failed: Tolk %q, ceiling %q", m.Failures, m.CeilFailures)
	}
	if m.ChangedFiles != 1 || m.FirstWorkTree < 1 || m.PulledWorkTree < 1 || m.Outside != 0 {
		t.Errorf("monorepo: the first commit changed %d files; work tree %d files after it, %d after the pull, "+
			"%d outside the filemask", m.ChangedFiles, m.FirstWorkTree, m.PulledWorkTree, m.Outside)
	}
}
