package sqlstore

import (
	"context"
	"slices"
	"sync"
	"testing"
	"time"
)

// TestTrigramLinkRace drives the race of two processes' trigram steps
// that left a unit linked to a source unit's old text (session 12's
// review; countVerifier.trigramLinks): process a's step reads a unit
// v of its batch and v's source unit s, not noted, and links v to s;
// before a commits, s's source changes and b's step indexes s anew,
// noting the units linked to s. Its statement cannot see a's link yet,
// so v stayed linked to s, neither noted, and the site-wide source
// search (search_shared.go) counted v for s's new text.
//
// Today's writes cannot bring it about: the one scoped write that
// changes a source unit's source (editTemplate) moves its linked units'
// too, and waits on v's note, which a's batch holds; imports are
// exclusive and wait for the step. The change of s is therefore made
// here by SQL, as a write of s alone would make it: what the test holds
// is the step's own invariant, that a link it commits is seen by the
// step that next indexes the source unit (pgIndexTrigrams locks the
// source unit's row before reading it). Without that lock b's step
// finishes while a's waits, and the search counts v.
func TestTrigramLinkRace(t *testing.T) {
	a, b, _ := twoWriters(t)
	ctx := context.Background()
	a.trigrams.hold()
	b.trigrams.hold()
	f := mustLangsFixture(t, a, "p", "app", false, []string{"de"}, 3)
	s, v := f.units["en"][1], f.units["de"][1]
	if _, err := a.IndexTrigrams(ctx); err != nil {
		t.Fatal(err)
	}
	var link int64
	if err := a.r.QueryRowContext(ctx, `SELECT coalesce(source_unit_id, 0) FROM unit_trigrams WHERE unit_id = ?`, v).Scan(&link); err != nil {
		t.Fatal(err)
	}
	if link != s {
		t.Fatalf("unit %d is linked to %d, want its source unit %d: the test needs the link", v, link, s)
	}
	// v is noted (its target), so a's next batch links it anew.
	if _, err := a.UpdateUnit(ctx, v, mustWriter(t, a), setTarget("Zeichenkette")); err != nil {
		t.Fatal(err)
	}

	read, release := make(chan struct{}), make(chan struct{})
	var once sync.Once
	a.trigrams.onLinkRead = func() {
		once.Do(func() {
			close(read)
			<-release
		})
	}
	stepA := make(chan error, 1)
	go func() {
		_, err := a.IndexTrigrams(ctx)
		stepA <- err
	}()
	select {
	case <-read:
	case err := <-stepA:
		t.Fatalf("a's step ended without reading a batch: %v", err)
	case <-time.After(time.Minute):
		t.Fatal("a's step did not read its batch")
	}

	// s's source changes alone, and b's step takes its note.
	if _, err := b.wdb.ExecContext(ctx, `UPDATE units SET source = 'Renamed words', target = 'Renamed words' WHERE id = $1`, s); err != nil {
		close(release)
		t.Fatal(err)
	}
	stepB := make(chan error, 1)
	go func() {
		_, err := b.IndexTrigrams(ctx)
		stepB <- err
	}()
	// b's step either ends (nothing holds it) or waits on a lock that
	// a's batch holds: either way a's batch may commit now.
	bDone := false
	deadline := time.Now().Add(time.Minute)
	for !bDone {
		select {
		case err := <-stepB:
			if err != nil {
				t.Error(err)
			}
			bDone = true
			continue
		case <-time.After(10 * time.Millisecond):
		}
		var waiting int
		if err := a.r.QueryRowContext(ctx, `SELECT count(*) FROM pg_stat_activity
			WHERE datname = current_database() AND wait_event_type = 'Lock' AND query LIKE '%unit_trigrams%'`).Scan(&waiting); err != nil {
			t.Fatal(err)
		}
		if waiting > 0 {
			break
		}
		if time.Now().After(deadline) {
			close(release)
			t.Fatal("b's step neither ended nor waited")
		}
	}
	if bDone {
		t.Error("b's step ended before a's batch committed: a's lock on s's row did not hold it")
	}
	close(release)
	if err := <-stepA; err != nil {
		t.Fatal(err)
	}
	if !bDone {
		if err := <-stepB; err != nil {
			t.Fatal(err)
		}
	}
	for _, db := range []*DB{a, b} {
		if _, err := db.IndexTrigrams(ctx); err != nil {
			t.Fatal(err)
		}
	}

	if p := trigramProblems(t, a); len(p) > 0 {
		t.Errorf("the trigram index after the race: %v", p)
	}
	// The site-wide source search finds s alone for its new text, and v
	// for its old one (v's source is still "String 1").
	for q, want := range map[string][]int64{`source:"renamed words"`: {s}, `source:"string 1"`: {v}} {
		got := checkSharedQuery(t, a, a.r, q, "after the race")
		if got == nil {
			t.Fatalf("%s: not a shared search", q)
		}
		if !slices.Equal(got, want) {
			t.Fatalf("%s: reading every unit finds %v, want %v", q, got, want)
		}
	}
}
