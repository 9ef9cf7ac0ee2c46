package index

import "time"

// WriterStats is what an index's writers have done since it opened, for
// the operators' metrics (tolk_db_write_batches_total and beside it):
// writes against batches say how well group commit shares a batch's
// fixed cost, round trips against batches what each costs on the wire.
type WriterStats struct {
	// Batches are the write batches the writers ran, each one
	// transaction but for a batch run again apart (see Apart), which
	// counts once; writes that lost to another process's writer and run
	// again form a batch of their own. Writes are the writes they held.
	Batches, Writes uint64
	// Apart are the batches that ran again with each write's statements
	// sent before its savepoint ended, because a pipelined statement
	// failed (PostgreSQL; the failing write answers its error alone).
	Apart uint64
	// RoundTrips are the writers' round trips to a PostgreSQL server
	// (a statement, or a pipeline of them; the index's opening and
	// migrations count a few); 0 on SQLite, whose statements are calls
	// inside the process.
	RoundTrips uint64
	// Busy is the wall time during which at least one writer ran a
	// batch.
	Busy time.Duration
}
