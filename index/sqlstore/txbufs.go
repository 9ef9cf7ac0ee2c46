package sqlstore

import (
	"sync"

	"github.com/jackc/pgx/v5"
	"github.com/tolk-project/tolk/index"
)

// txBufs are a write transaction's buffers that outlive it: the next
// batch's transaction takes them (takeBufs) rather than growing its own
// anew. A batch of edits at concurrency 8 grew its queued statements,
// flush's pgx statements and its statistics' maps from nothing at every
// batch (the writer's allocations, issue 31). Only buffers:
// what they hold is cleared when given back (keepBufs), and those grown
// past keepBufsMax by a large batch (an upload's, an import's) are left
// to the collector.
type txBufs struct {
	later     []laterStmt
	sending   []laterStmt
	pgQueued  []pgx.QueuedQuery
	pgAt      []*pgx.QueuedQuery
	gathered  []index.Change
	writeOwed map[scopeKey]*owedStats
	owed      map[scopeKey]*owedStats
	stamped   map[scopeKey]string
}

// keepBufsMax is the most statements, change rows or statistics rows a
// kept buffer holds.
const keepBufsMax = 256

var txBufPool = sync.Pool{New: func() any { return new(txBufs) }}

// takeBufs gives tx the buffers a finished transaction kept.
func (tx *Tx) takeBufs() {
	b := txBufPool.Get().(*txBufs)
	tx.later, tx.sending, tx.pgQueued, tx.pgAt, tx.gathered = b.later, b.sending, b.pgQueued, b.pgAt, b.gathered
	tx.writeOwed, tx.owed, tx.stamped = b.writeOwed, b.owed, b.stamped
	*b = txBufs{}
	tx.bufs = b
}

// keepBufs gives tx's buffers, emptied, to the next transaction, once
// tx has ended.
func (tx *Tx) keepBufs() {
	b := tx.bufs
	if b == nil {
		return
	}
	tx.bufs = nil
	tx.emptyBufs(b)
	txBufPool.Put(b)
}

// emptyBufs moves tx's buffers to b, emptied (those grown past
// keepBufsMax are dropped), and leaves tx holding none of them: a use of
// tx after its end (a bug) must not write into the next transaction's
// buffers.
func (tx *Tx) emptyBufs(b *txBufs) {
	if cap(tx.later) <= keepBufsMax && cap(tx.sending) <= keepBufsMax && cap(tx.pgQueued) <= keepBufsMax &&
		cap(tx.pgAt) <= keepBufsMax {
		clear(tx.later[:cap(tx.later)])
		clear(tx.sending[:cap(tx.sending)])
		clear(tx.pgQueued[:cap(tx.pgQueued)])
		clear(tx.pgAt[:cap(tx.pgAt)])
		b.later, b.sending, b.pgQueued, b.pgAt = tx.later[:0], tx.sending[:0], tx.pgQueued[:0], tx.pgAt[:0]
	}
	if cap(tx.gathered) <= keepBufsMax {
		clear(tx.gathered[:cap(tx.gathered)])
		b.gathered = tx.gathered[:0]
	}
	if len(tx.owed)+len(tx.writeOwed) <= keepBufsMax && tx.writeOwed != nil {
		clear(tx.writeOwed)
		clear(tx.owed)
		clear(tx.stamped)
		b.writeOwed, b.owed, b.stamped = tx.writeOwed, tx.owed, tx.stamped
	}
	tx.later, tx.sending, tx.pgQueued, tx.pgAt, tx.gathered = nil, nil, nil, nil, nil
	tx.writeOwed, tx.owed, tx.stamped = nil, nil, nil
	tx.pgBatch, tx.answerFn = pgx.Batch{}, nil // the batch holds pgAt
}
