package sqlstore

import "testing"

// TestTxBufsKeptEmpty: a transaction's buffers, taken by the next one
// (txbufs.go), hold nothing of it: no queued statement, no statistics
// owed.
func TestTxBufsKeptEmpty(t *testing.T) {
	tx := &Tx{}
	tx.takeBufs()
	tx.startWrite(true)
	tx.later = append(tx.later, laterStmt{query: "SELECT 1", args: []any{int64(1)}})
	o := tx.owe("project", "p")
	o.delta.Total, o.lastAuthor = 7, "ann"
	tx.endWrite(&touchSet{})
	tx.stamped[scopeKey{"project", "p"}] = "ann"
	tx.keepBufs()
	for range 3 { // sync.Pool may drop what it was given: look at what it gives
		next := &Tx{}
		next.takeBufs()
		if len(next.later) != 0 || len(next.owed) != 0 || len(next.writeOwed) != 0 || len(next.stamped) != 0 {
			t.Fatalf("the next transaction took %d statements, %d and %d owed rows, %d stamps",
				len(next.later), len(next.owed), len(next.writeOwed), len(next.stamped))
		}
		if cap(next.later) > 0 && next.later[:1][0].query != "" {
			t.Errorf("a kept statement slot still holds %q", next.later[:1][0].query)
		}
		next.keepBufs()
	}
}
