package sqlstore

import (
	"context"
	"database/sql"
	"slices"
	"testing"

	"github.com/tolk-project/tolk/index"
)

// TestBackgroundRecheckResumes: a background recheck cut short by Close
// after two batches leaves its place in component_rechecks (the units
// of those batches rechecked, the others not, the counts equal to a
// recount), and the next Open resumes it from there: in the end every
// unit fails what the new flags say, as if nothing had stopped it.
// Before migration 0060 the units not reached kept their old checks
// until each was written again.
func TestBackgroundRecheckResumes(t *testing.T) {
	ctx := context.Background()
	o, driver, dsn := reopenable(t)
	db, err := Open(ctx, o)
	if err != nil {
		t.Fatal(err)
	}
	f := newWriteFixture(t, db)
	db.rechecks.inline = -1 // every component is "big"
	db.rechecks.batch = 3   // 10 units a translation: four batches each
	stopped := make(chan struct{})
	batches := 0
	db.rechecks.afterBatch = func() {
		if batches++; batches == 2 {
			close(stopped)
			<-db.closing // the next batch's write answers errClosed
		}
	}
	if _, _, err := db.UpdateComponent(ctx, f.comp.ID, func(c *index.Component) error {
		c.CheckFlags = "max-length:12"
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	<-stopped
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}

	// What the stop left: the place after the first translation's sixth
	// unit, six units failing (the source strings, 13 characters over
	// 85% of 12), and exact counts.
	raw, err := sql.Open(driver, dsn)
	if err != nil {
		t.Fatal(err)
	}
	var tid, after int64
	var failing int
	var sixth int64
	err = raw.QueryRowContext(ctx, `SELECT r.translation_id, r.after_unit_id,
		(SELECT count(*) FROM units WHERE has_failing_check = 1),
		(SELECT id FROM units WHERE translation_id = r.translation_id ORDER BY id LIMIT 1 OFFSET 5)
		FROM component_rechecks r WHERE r.component_id = `+itoa(f.comp.ID)).Scan(&tid, &after, &failing, &sixth)
	raw.Close()
	if err != nil {
		t.Fatalf("the place of the recheck after Close: %v", err)
	}
	if tid != f.tr["en"] || after != sixth || failing != 6 {
		t.Errorf("after Close: place (%d, %d), %d units failing; want (%d, %d), 6", tid, after, failing, f.tr["en"], sixth)
	}

	db, err = Open(ctx, o)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	f.db = db
	checkStoredStats(t, db) // at once, whatever the resumed recheck has done yet
	db.waitRechecks(t)
	if got, want := f.search(t, "de", "check:max-length"), []string{"k0", "k2", "k4", "k6", "k8"}; !slices.Equal(got, want) {
		t.Errorf("de check:max-length after the restart: %q, want %q", got, want)
	}
	if n := f.failing(t, "en"); n != 10 {
		t.Errorf("failing source strings after the restart: %d, want 10", n)
	}
	var left int
	if err := db.r.QueryRowContext(ctx, `SELECT count(*) FROM component_rechecks`).Scan(&left); err != nil || left != 0 {
		t.Errorf("places left after the recheck: %d (%v)", left, err)
	}
	checkStoredStats(t, db)
}
