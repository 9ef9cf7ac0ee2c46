package sqlstore

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/tolk-project/tolk/index/internal/testengine"
)

// TestFlushLargeBatch: a flush of several KiB on the wire (statements of
// hundreds of parameters: integers, strings short and long, NULLs, an
// array) answers every statement exactly, in order; so does the small
// flush after it, on the send buffer pgx shrank.
func TestFlushLargeBatch(t *testing.T) {
	f := queuingFixture(t)
	db, ctx := f.db, context.Background()
	const stmts, params = 12, 200
	err := db.write(ctx, func(tx *Tx) error {
		sums := make([]int64, stmts)
		texts := make([]string, stmts)
		var arr int64
		var null *string
		for s := range stmts {
			var q strings.Builder
			args := make([]any, 0, params+1)
			q.WriteString(`SELECT CAST(? AS bigint)`)
			args = append(args, int64(s))
			for p := range params {
				q.WriteString(` + CAST(? AS bigint)`)
				args = append(args, int64(p*1000+s))
			}
			q.WriteString(`, CAST(? AS text) || CAST(? AS text)`)
			long := strings.Repeat(fmt.Sprintf("é%d", s), 100*s)
			args = append(args, "x", long)
			if err := tx.queryRowLater(q.String(), scanOne(&sums[s], &texts[s]), args...); err != nil {
				return err
			}
		}
		if err := tx.queryRowLater(`SELECT cardinality(CAST(? AS bigint[])), CAST(? AS text)`,
			scanOne(&arr, &null), []int64{1, 2, 3}, nil); err != nil {
			return err
		}
		if err := tx.flush(); err != nil {
			return err
		}
		for s := range stmts {
			want := int64(s)
			for p := range params {
				want += int64(p*1000 + s)
			}
			if sums[s] != want || texts[s] != "x"+strings.Repeat(fmt.Sprintf("é%d", s), 100*s) {
				t.Errorf("statement %d answered %d and %d bytes of text, want %d", s, sums[s], len(texts[s]), want)
			}
		}
		if arr != 3 || null != nil {
			t.Errorf("the array's statement answered %d, %v", arr, null)
		}
		var one int64
		if err := tx.queryRowLater(`SELECT CAST(? AS bigint)`, scanOne(&one), int64(7)); err != nil {
			return err
		}
		if err := tx.flush(); err != nil {
			return err
		}
		if one != 7 {
			t.Errorf("the flush after answered %d, want 7", one)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// TestFlushCountsAnswers: flush counts the statements answered (answer),
// which says whose an error is (earlierFailed): a statement that fails
// mid-batch, whether its answer is not read, read as a row or read as
// rows by a reader that does not look at the error, is not counted, nor
// are those after it, and the flush returns its error.
func TestFlushCountsAnswers(t *testing.T) {
	f := queuingFixture(t)
	db, ctx := f.db, context.Background()
	for _, c := range []struct {
		name string
		fail func(tx *Tx) error
	}{
		{"exec", func(tx *Tx) error { return tx.execLater(`SELECT 1 / 0`) }},
		{"row", func(tx *Tx) error {
			var n int64
			return tx.queryRowLater(`SELECT 1 / 0`, scanOne(&n))
		}},
		{"rows", func(tx *Tx) error {
			return tx.queryLater(`SELECT 1 / (2 - g) FROM generate_series(1, 3) g`, func(rows pgx.Rows) error {
				for rows.Next() {
				}
				return nil // the error is left to flush
			})
		}},
	} {
		var answered int
		var a, z int64
		err := db.write(ctx, func(tx *Tx) error {
			if err := tx.queryRowLater(`SELECT CAST(? AS bigint)`, scanOne(&a), int64(5)); err != nil {
				return err
			}
			if err := c.fail(tx); err != nil {
				return err
			}
			if err := tx.queryRowLater(`SELECT CAST(? AS bigint)`, scanOne(&z), int64(6)); err != nil {
				return err
			}
			err := tx.flush()
			answered = tx.answered
			return err
		})
		if err == nil || !strings.Contains(err.Error(), "division by zero") {
			t.Errorf("%s: the write answered %v, want the failed statement's division by zero", c.name, err)
		}
		if answered != 1 || a != 5 || z != 0 {
			t.Errorf("%s: %d statements counted answered, want 1 (the first); read %d and %d, want 5 and 0",
				c.name, answered, a, z)
		}
	}
	if _, err := db.UpdateUnit(ctx, f.unit(t, "de", 1).ID, f.user, setTarget("after")); err != nil {
		t.Fatal(err)
	}
}

// queuingFixture is mustWriteFixture on PostgreSQL, whose writes queue
// statements (pipeline.go); SQLite skips the test.
func queuingFixture(t *testing.T) *writeFixture {
	if testengine.Engine() != testengine.Postgres {
		t.Skip("SQLite runs a statement at once: nothing is queued")
	}
	return mustWriteFixture(t)
}
