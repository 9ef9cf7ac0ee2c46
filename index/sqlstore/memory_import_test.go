package sqlstore

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/tolk-project/tolk/index"
)

// TestImportMemoryDuplicates holds ImportMemory's duplicate rule to what
// it was before migration 0078 indexed it: an entry is skipped when an
// entry of the same language pair, scope (project, or site-wide), source,
// target and context is stored, whether by an earlier import or earlier
// in the same one; texts that share the index's prefixes (64 characters
// of source, 32 of target) and differ after them are distinct entries.
func TestImportMemoryDuplicates(t *testing.T) {
	db, err := openFresh(t)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	ctx := context.Background()
	p2, _, err := db.SaveProject(ctx, index.Project{Name: "Q", Slug: "q"})
	if err != nil {
		t.Fatal(err)
	}
	long := strings.Repeat("A long shared beginning of a source text. ", 3) // > 64 characters
	longT := strings.Repeat("Ein langer gemeinsamer Anfang. ", 3)           // > 32 characters
	base := index.MemoryImportEntry{SourceLanguage: "en", TargetLanguage: "de", Source: "Hello", Target: "Hallo"}
	with := func(f func(*index.MemoryImportEntry)) index.MemoryImportEntry {
		e := base
		f(&e)
		return e
	}
	distinct := []index.MemoryImportEntry{
		base,
		with(func(e *index.MemoryImportEntry) { e.Context = "greeting" }),
		with(func(e *index.MemoryImportEntry) { e.Target = "Hallo!" }),
		with(func(e *index.MemoryImportEntry) { e.Source = "Hello!" }),
		with(func(e *index.MemoryImportEntry) { e.TargetLanguage = "fr" }),
		with(func(e *index.MemoryImportEntry) { e.SourceLanguage = "en_GB" }),
		with(func(e *index.MemoryImportEntry) { e.Source = long + "one" }),
		with(func(e *index.MemoryImportEntry) { e.Source = long + "two" }),
		with(func(e *index.MemoryImportEntry) { e.Target = longT + "eins" }),
		with(func(e *index.MemoryImportEntry) { e.Target = longT + "zwei" }),
		with(func(e *index.MemoryImportEntry) { e.Source, e.Target = "Grüße 😀", "Grüße 😀" }),
	}
	// The origin is not part of an entry's identity.
	again := with(func(e *index.MemoryImportEntry) { e.Origin = "other.tmx" })
	batch := append(append([]index.MemoryImportEntry{}, distinct...), distinct...)
	batch = append(batch, again)
	count := func(project int64) int {
		var n int
		if err := db.r.QueryRowContext(ctx, `SELECT count(*) FROM memory WHERE coalesce(project_id, 0) = ?`,
			project).Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n
	}
	for _, project := range []int64{0, p2.ID} {
		if n, err := db.ImportMemory(ctx, project, 0, batch); err != nil || n != len(distinct) {
			t.Fatalf("project %d, first import: %d stored, %v; want %d", project, n, err, len(distinct))
		}
		if n, err := db.ImportMemory(ctx, project, 0, batch); err != nil || n != 0 {
			t.Fatalf("project %d, the same again: %d stored, %v; want 0", project, n, err)
		}
		if got := count(project); got != len(distinct) {
			t.Fatalf("project %d: %d rows, want %d", project, got, len(distinct))
		}
	}
	// A deleted entry may be imported again.
	var id int64
	if err := db.r.QueryRowContext(ctx, `SELECT id FROM memory WHERE project_id IS NULL AND source = ? AND context = ''
		AND target = ? AND target_language = 'de' AND source_language = 'en'`, long+"two", "Hallo").Scan(&id); err != nil {
		t.Fatal(err)
	}
	if err := db.DeleteMemoryEntry(ctx, index.MemoryImportedID(id)); err != nil {
		t.Fatal(err)
	}
	if n, err := db.ImportMemory(ctx, 0, 0, batch); err != nil || n != 1 {
		t.Fatalf("after a delete: %d stored, %v; want 1", n, err)
	}
	// A duplicate in a later statement of the same import than its
	// first (memoryImportChunk entries a statement) is skipped too.
	var chunks []index.MemoryImportEntry
	for i := range memoryImportChunk + 1 {
		chunks = append(chunks, with(func(e *index.MemoryImportEntry) { e.TargetLanguage, e.Target = "cs", fmt.Sprint(i) }))
	}
	chunks = append(chunks, chunks[0], chunks[memoryImportChunk])
	if n, err := db.ImportMemory(ctx, 0, 0, chunks); err != nil || n != memoryImportChunk+1 {
		t.Fatalf("duplicates a statement apart: %d stored, %v; want %d", n, err, memoryImportChunk+1)
	}
	checkListCounts(t, db)
}

// TestImportMemoryLinear measures the CPU an import of 5,000 new
// entries into an empty language pair costs and, after 10,000 entries
// of another pair, 5,000 into that pair, and fails on either engine when
// the second costs more than three times the first. The duplicate check
// read every entry of the pair for each entry (the second would take
// some seven times as long, and a 200,000-entry TMX never ended) before
// migration 0078 made it one probe of an index; on PostgreSQL the
// probe's plans, made while the pair was small, still read the pair
// (2.2-8.5x here) until migration 0087 made the rule a unique index.
//
// It measures CPU, this process's and on PostgreSQL the writer's server
// backend's, once: wall time on a loaded machine swung by more than the
// bound, so the test measured up to three times before it failed, and
// a regression that only sometimes showed passed.
func TestImportMemoryLinear(t *testing.T) {
	if testing.Short() {
		t.Skip("imports 20,000 entries")
	}
	db, err := openFresh(t)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	ctx := context.Background()
	p2, _, err := db.SaveProject(ctx, index.Project{Name: "Q", Slug: "q"})
	if err != nil {
		t.Fatal(err)
	}
	entries := func(n int, target, tag string) []index.MemoryImportEntry {
		es := make([]index.MemoryImportEntry, n)
		for i := range es {
			// Every entry shares the others' first 14 characters.
			es[i] = index.MemoryImportEntry{SourceLanguage: "en", TargetLanguage: target,
				Source: fmt.Sprintf("Memory entry %s number %d", tag, i), Target: fmt.Sprintf("Eintrag %d", i)}
		}
		return es
	}
	cpu := writerCPU(t, db)
	measured := func(project int64, es []index.MemoryImportEntry) (time.Duration, time.Duration) {
		start, cpu0 := time.Now(), cpu()
		n, err := db.ImportMemory(ctx, project, 0, es)
		if err != nil || n != len(es) {
			t.Fatalf("ImportMemory: %d of %d, %v", n, len(es), err)
		}
		return time.Since(start), cpu() - cpu0
	}
	big, _ := measured(p2.ID, entries(10_000, "de", "big"))
	es1, es2 := entries(5_000, "fr", "first"), entries(5_000, "de", "second")
	wall1, first := measured(0, es1)
	wall2, second := measured(0, es2)
	t.Logf("5,000 entries into an empty pair: %v CPU (%v wall); beside 10,000 of the pair: %v CPU (%v wall); %.2f× (10,000 took %v)",
		first, wall1, second, wall2, float64(second)/float64(first), big)
	if second > 3*first {
		t.Errorf("5,000 entries beside the pair cost %.2f× the CPU of the same into an empty pair: the check reads the pair",
			float64(second)/float64(first))
	}
	// Importing all of them again stores nothing, in either scope.
	if n, err := db.ImportMemory(ctx, p2.ID, 0, entries(10_000, "de", "big")); err != nil || n != 0 {
		t.Fatalf("again: %d stored, %v", n, err)
	}
	if n, err := db.ImportMemory(ctx, 0, 0, es1); err != nil || n != 0 {
		t.Fatalf("again, site-wide: %d stored, %v", n, err)
	}
	checkListCounts(t, db)
}

// writerCPU returns a clock of the CPU the writer's work costs: this
// process's (getrusage), and on PostgreSQL with the writer's server
// backend's (/proc/<pid>/stat; the writer holds one connection). It
// skips t where that backend is not readable (a server elsewhere).
func writerCPU(t *testing.T, db *DB) func() time.Duration {
	t.Helper()
	if db.dialect.name != "postgres" {
		return selfCPU
	}
	var pid int
	if err := db.write(context.Background(), func(tx *Tx) error {
		return tx.QueryRow(`SELECT pg_backend_pid()`).Scan(&pid)
	}); err != nil {
		t.Fatal(err)
	}
	if _, err := backendCPU(pid); err != nil {
		t.Skip("the writer's server backend is not readable here: ", err)
	}
	return func() time.Duration {
		server, err := backendCPU(pid)
		if err != nil {
			t.Fatal(err)
		}
		return selfCPU() + server
	}
}
