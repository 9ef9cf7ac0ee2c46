package sqlstore

import (
	"context"

	"github.com/tolk-project/tolk/index"
)

// The webhooks in memory. insertChange matches every change against
// the installed webhooks and queues a delivery for each that wants it
// (deliveries.go), in the change's transaction; the set it matches
// against is kept in memory, never queried per change. A write that
// changes add-ons reloads the set in its own transaction (reloadHooks),
// the writer publishes it when the batch commits, and on PostgreSQL a
// set another process changed is read again before its next use
// (replay.go).

// hookSet is every installed webhook, as the writer consults it for each
// change: built from addons in the transactions that change them, so
// that a change never queries the table, and a project without hooks
// costs one map lookup. It is never modified once published.
type hookSet struct {
	byProject   map[int64][]index.Addon
	byComponent map[int64][]int64 // add-on ids installed on each component
	// seq is the write_log entry the set reflects, on an engine shared by
	// processes (replay.go): a set read earlier never replaces it.
	seq int64
}

// match returns the add-ons that want change c, or nil.
func (h *hookSet) match(c *index.Change) []int64 {
	if h == nil {
		return nil
	}
	var ids []int64
	for i := range h.byProject[c.ProjectID] {
		a := &h.byProject[c.ProjectID][i]
		if a.Covers(c.ProjectID, c.ComponentID) && a.Webhook.Wants(c.Action) {
			ids = append(ids, a.ID)
		}
	}
	return ids
}

// hookSet is the webhooks the current write's changes are matched
// against: the latest set of this transaction, or the published one.
func (tx *Tx) hookSet() *hookSet {
	switch {
	case tx.writeHooks != nil:
		return tx.writeHooks
	case tx.batchHooks != nil:
		return tx.batchHooks
	}
	return tx.hooks.Load()
}

// loadHooks reads the webhooks q sees.
func loadHooks(ctx context.Context, q queryer) (*hookSet, error) {
	addons, err := findAddons(ctx, q, "")
	if err != nil {
		return nil, err
	}
	h := &hookSet{byProject: map[int64][]index.Addon{}, byComponent: map[int64][]int64{}}
	for _, a := range addons {
		if a.ComponentID != 0 { // every add-on is listed on its component
			h.byComponent[a.ComponentID] = append(h.byComponent[a.ComponentID], a.ID)
		}
		if a.Name != index.AddonWebhook {
			continue
		}
		h.byProject[a.ProjectID] = append(h.byProject[a.ProjectID], a)
	}
	return h, nil
}

// reloadHooks reads the webhooks the transaction sees, after the
// current write changed add-ons (deleting a project or a component
// deletes theirs). The writes after it in the batch match their changes
// against this set, and the writer publishes it once the batch commits
// (Tx.hookSet): a write rolled back takes its set with it, and no change
// committed after this one can miss it.
func (tx *Tx) reloadHooks() error {
	h, err := loadHooks(runCtx, tx.queryer())
	if err != nil {
		return err
	}
	tx.writeHooks = h
	return nil
}

// publishHooks makes h the webhooks in memory unless a set that reflects
// a later write is there already.
func (db *DB) publishHooks(h *hookSet) {
	for {
		cur := db.hooks.Load()
		if cur != nil && cur.seq > h.seq {
			return
		}
		if db.hooks.CompareAndSwap(cur, h) {
			return
		}
	}
}

// hooksCurrent reports whether the webhooks in memory reflect every
// write_log entry of another process that may have changed add-ons
// (applyLog: hooksNeed). Staleness is this comparison, not a flag a
// reloader clears: with a flag, a reader (or another writer) that looked
// while a reload was under way took the set of before as current, and
// missed an add-on another process had installed (TestProcessesShareWrites
// failed so 4 runs in 40, session 14).
func (db *DB) hooksCurrent() bool {
	return db.hooks.Load().seq >= db.hooksNeed.Load()
}

// reloadSharedHooks re-reads the webhooks after another process changed
// add-ons, with the write_log entry they reflect, from one snapshot. A
// failed reload leaves them stale: the next use tries again.
func (db *DB) reloadSharedHooks() {
	// One reload at a time: the readers that found the set stale
	// meanwhile take the one it publishes.
	db.hooksReload.Lock()
	defer db.hooksReload.Unlock()
	if db.hooksCurrent() {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), sharedTimeout)
	defer cancel()
	tx, err := db.beginRead(ctx)
	if err != nil {
		return
	}
	defer tx.Rollback()
	var seq int64
	if err := tx.QueryRowContext(ctx, `SELECT coalesce(max(seq), 0) FROM write_log`).Scan(&seq); err != nil {
		return
	}
	h, err := loadHooks(ctx, tx)
	if err != nil {
		return
	}
	h.seq = seq
	db.publishHooks(h)
}
