package sqlstore

import "time"

// WriterBusy is how long the writer has spent running write batches
// since the index opened, wall time. Against a bulk write's own wall
// time it says how much of it waited for the writer and how much the
// writer waited for the caller (tolk-bench's import: the writer is one
// goroutine, so its busy time is the least an import can take).
func (db *DB) WriterBusy() time.Duration { return time.Duration(db.busy.Load()) }
