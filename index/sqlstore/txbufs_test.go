package sqlstore

import (
	"reflect"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/tolk-project/tolk/index"
)

// filledBufsTx is a Tx whose buffers (txbufs.go) all hold something,
// past their length too (a slice reset to a shorter length keeps its
// values), and whose pgx batch and answer function are set.
func filledBufsTx() *Tx {
	k := scopeKey{"project", "p"}
	tx := &Tx{
		later:     []laterStmt{{query: "SELECT 1", args: []any{int64(1)}}, {query: "SELECT 2"}}[:1],
		sending:   []laterStmt{{query: "SELECT 3", rows: func(pgx.Rows) error { return nil }}, {query: "SELECT 4"}}[:1],
		pgQueued:  []pgx.QueuedQuery{{SQL: "SELECT 5", Arguments: []any{"x"}}, {SQL: "SELECT 6"}}[:0],
		gathered:  []index.Change{{ID: 1, Target: "t"}, {ID: 2}}[:1],
		writeOwed: map[scopeKey]*owedStats{k: {lastAuthor: "ann"}},
		owed:      map[scopeKey]*owedStats{k: {lastChange: "c"}},
		stamped:   map[scopeKey]string{k: "ann"},
	}
	tx.pgAt = []*pgx.QueuedQuery{&tx.pgQueued[:1][0], &tx.pgQueued[:2][1]}[:1]
	tx.pgBatch = pgx.Batch{QueuedQueries: tx.pgAt}
	tx.answerFn = tx.answer
	return tx
}

// TestTxBufsKeptEmpty: the buffers an ended transaction gives the next
// one (emptyBufs, without sync.Pool) are all kept, empty and hold none of
// its values, even past their length; and the ended Tx holds none of
// them, nor its pgx batch or answer function.
func TestTxBufsKeptEmpty(t *testing.T) {
	tx, b := filledBufsTx(), &txBufs{}
	tx.emptyBufs(b)
	for name, s := range map[string]any{
		"later": b.later, "sending": b.sending, "pgQueued": b.pgQueued, "pgAt": b.pgAt, "gathered": b.gathered,
	} {
		v := reflect.ValueOf(s)
		if v.IsNil() || v.Len() != 0 || v.Cap() != 2 {
			t.Errorf("%s kept: nil %v, length %d, capacity %d; want 0 of 2", name, v.IsNil(), v.Len(), v.Cap())
			continue
		}
		v = v.Slice(0, v.Cap())
		for i := range v.Len() {
			if !v.Index(i).IsZero() {
				t.Errorf("%s kept: slot %d still holds %+v", name, i, v.Index(i))
			}
		}
	}
	if b.writeOwed == nil || b.owed == nil || b.stamped == nil ||
		len(b.writeOwed)+len(b.owed)+len(b.stamped) != 0 {
		t.Errorf("maps kept: %v, %v, %v; want three empty maps", b.writeOwed, b.owed, b.stamped)
	}
	checkNoBufs(t, tx)

	tx = filledBufsTx()
	tx.bufs = &txBufs{}
	tx.keepBufs()
	if tx.bufs != nil {
		t.Error("keepBufs left the Tx its txBufs")
	}
	checkNoBufs(t, tx)
}

// TestTxBufsLargeDropped: a buffer grown past keepBufsMax is not kept.
func TestTxBufsLargeDropped(t *testing.T) {
	tx, b := filledBufsTx(), &txBufs{}
	tx.gathered = make([]index.Change, 0, keepBufsMax+1)
	tx.emptyBufs(b)
	if b.gathered != nil || b.later == nil {
		t.Errorf("kept %d change rows' room, %d statements'; want none and 2", cap(b.gathered), cap(b.later))
	}
	checkNoBufs(t, tx)
}

func checkNoBufs(t *testing.T, tx *Tx) {
	t.Helper()
	if tx.later != nil || tx.sending != nil || tx.pgQueued != nil || tx.pgAt != nil || tx.gathered != nil ||
		tx.writeOwed != nil || tx.owed != nil || tx.stamped != nil ||
		tx.pgBatch.QueuedQueries != nil || tx.answerFn != nil {
		t.Errorf("the ended Tx still holds buffers: %+v", tx)
	}
}
