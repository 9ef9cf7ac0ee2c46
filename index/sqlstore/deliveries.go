package sqlstore

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"time"

	"github.com/tolk-project/tolk/index"
)

// eventRecord is an index.Event as deliveries.event stores it.
type eventRecord struct {
	ChangeID      int64        `json:"change_id"`
	Action        index.Action `json:"action"`
	Timestamp     string       `json:"timestamp"`
	ProjectID     int64        `json:"project_id,omitempty"`
	ComponentID   int64        `json:"component_id,omitempty"`
	TranslationID int64        `json:"translation_id,omitempty"`
	UnitID        int64        `json:"unit_id,omitempty"`
	Target        string       `json:"target,omitempty"`
	Old           string       `json:"old,omitempty"`
	Source        string       `json:"source,omitempty"`
	Context       string       `json:"context,omitempty"`
	HasUnit       bool         `json:"has_unit,omitempty"`
	Project       string       `json:"project,omitempty"`
	Component     string       `json:"component,omitempty"`
	Language      string       `json:"language,omitempty"`
	User          string       `json:"user,omitempty"`
	Author        string       `json:"author,omitempty"`
}

func (r *eventRecord) event() index.Event {
	return index.Event{Change: index.Change{ID: r.ChangeID, Action: r.Action, Timestamp: parseTime(r.Timestamp),
		ProjectID: r.ProjectID, ComponentID: r.ComponentID, TranslationID: r.TranslationID, UnitID: r.UnitID,
		Target: r.Target, ProjectSlug: r.Project, ComponentSlug: r.Component, LanguageCode: r.Language,
		UserName: r.User, AuthorName: r.Author}, Old: r.Old, Source: r.Source, Context: r.Context, HasUnit: r.HasUnit}
}

// queueEvents writes the outbox rows of change c, recorded with id, for
// the add-ons in hooks: the event as it stands now, names resolved, so
// that what is sent does not depend on what happens to them later.
func queueEvents(tx *Tx, id int64, c *index.Change, hooks []int64) error {
	r := eventRecord{ChangeID: id, Action: c.Action, Timestamp: formatTime(tx.now), ProjectID: c.ProjectID,
		ComponentID: c.ComponentID, TranslationID: c.TranslationID, UnitID: c.UnitID, Target: c.Target,
		Language: c.LanguageCode}
	if err := tx.QueryRow(`SELECT coalesce((SELECT slug FROM projects WHERE id = ?), ''),
		coalesce((SELECT slug FROM components WHERE id = ?), ''),
		coalesce((SELECT username FROM users WHERE id = ?), ''),
		coalesce((SELECT username FROM users WHERE id = ?), '')`,
		c.ProjectID, c.ComponentID, c.UserID, c.AuthorID).Scan(&r.Project, &r.Component, &r.User, &r.Author); err != nil {
		return err
	}
	// A unit's edit keeps the previous target, the source and the context
	// in its details (changeDetails); a removed string keeps its source
	// and context there too.
	var d changeDetails
	if c.Details != "" && json.Unmarshal([]byte(c.Details), &d) == nil {
		r.Old, r.Source, r.Context, r.HasUnit = d.Old, d.Source, d.Context, d.Source != ""
	}
	if c.UnitID != 0 {
		err := tx.QueryRow(`SELECT source, context FROM units WHERE id = ?`, c.UnitID).
			Scan(&r.Source, &r.Context)
		if err != nil && !errors.Is(err, sql.ErrNoRows) {
			return err
		}
		r.HasUnit = err == nil
	}
	event, err := json.Marshal(r)
	if err != nil {
		return err
	}
	insert, err := tx.prepare(`INSERT INTO deliveries (addon_id, change_id, event, created, next_try)
		VALUES (?, ?, ?, ?, ?)`)
	if err != nil {
		return err
	}
	ts := formatTime(tx.now)
	for _, hook := range hooks {
		if _, err := insert.Exec(hook, id, string(event), ts, ts); err != nil {
			return err
		}
	}
	tx.queued = true
	return nil
}

const deliveryColumns = `id, addon_id, event, state, attempts, created, next_try, last_try, last_code, last_error`

func scanDelivery(s interface{ Scan(...any) error }) (index.Delivery, error) {
	var d index.Delivery
	var event, created, next, last string
	if err := s.Scan(&d.ID, &d.AddonID, &event, &d.State, &d.Attempts, &created, &next, &last,
		&d.LastCode, &d.LastError); err != nil {
		return d, err
	}
	var r eventRecord
	if err := json.Unmarshal([]byte(event), &r); err != nil {
		return d, err
	}
	d.Event, d.Created, d.NextTry, d.LastTry = r.event(), parseTime(created), parseTime(next), parseTime(last)
	return d, nil
}

func scanDeliveries(rows *sql.Rows) ([]index.Delivery, error) {
	defer rows.Close()
	var out []index.Delivery
	for rows.Next() {
		d, err := scanDelivery(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, d)
	}
	return out, rows.Err()
}

// headDeliveries is the oldest pending delivery of each add-on that
// exists: one probe of deliveries_pending per add-on, however long the
// backlog.
const headDeliveries = `SELECT ` + deliveryColumns + ` FROM deliveries WHERE id IN
	(SELECT (SELECT id FROM deliveries WHERE addon_id = a.id AND state = 0 ORDER BY id LIMIT 1) FROM addons a)`

// DueDeliveries returns, for each add-on with pending deliveries, its
// oldest one if its next attempt is due at now: the sender delivers
// each add-on's events in order, so a later one waits for the first.
func (db *DB) DueDeliveries(ctx context.Context, now time.Time) ([]index.Delivery, error) {
	rows, err := db.r.QueryContext(ctx, headDeliveries+` AND next_try <= ? ORDER BY id`, formatTime(now))
	if err != nil {
		return nil, formatError(err)
	}
	out, err := scanDeliveries(rows)
	return out, formatError(err)
}

// NextDeliveryTry returns when the earliest pending delivery is due, and
// false when none is pending.
func (db *DB) NextDeliveryTry(ctx context.Context) (time.Time, bool, error) {
	var next sql.NullString
	err := db.r.QueryRowContext(ctx, `SELECT min(next_try) FROM (`+headDeliveries+`) h`).Scan(&next)
	if err != nil || !next.Valid {
		return time.Time{}, false, formatError(err)
	}
	return parseTime(next.String), true, nil
}

// RecordDelivery stores the outcome of an attempt at delivery id. It
// writes no change and leaves the read caches alone: nothing they hold
// depends on deliveries.
func (db *DB) RecordDelivery(ctx context.Context, id int64, r index.DeliveryResult) error {
	return db.writeNarrow(ctx, func(tx *Tx) error {
		_, err := tx.Exec(`UPDATE deliveries SET state = ?, attempts = attempts + 1,
			next_try = ?, last_try = ?, last_code = ?, last_error = ? WHERE id = ?`,
			r.State, formatTime(r.NextTry), formatTime(r.At), r.Code, r.Error, id)
		return err
	})
}

// forgetOrphanDeliveries removes the deliveries of add-ons that no
// longer exist, in the transaction that deleted them with their project
// or component.
func forgetOrphanDeliveries(tx *Tx) error {
	_, err := tx.Exec(`DELETE FROM deliveries WHERE addon_id NOT IN (SELECT id FROM addons)`)
	return err
}

// PruneDeliveries removes the deliveries that were delivered or failed
// before t and returns how many.
func (db *DB) PruneDeliveries(ctx context.Context, t time.Time) (int64, error) {
	var n int64
	err := db.writeNarrow(ctx, func(tx *Tx) error {
		res, err := tx.Exec(`DELETE FROM deliveries WHERE state != 0 AND last_try < ?`, formatTime(t))
		if err != nil {
			return err
		}
		n, err = res.RowsAffected()
		return err
	})
	return n, err
}

// FindDeliveries returns one page of an add-on's deliveries, newest
// first, and their number.
func (db *DB) FindDeliveries(ctx context.Context, addonID int64, p index.Page) ([]index.Delivery, int, error) {
	tx, err := db.beginRead(ctx)
	if err != nil {
		return nil, 0, formatError(err)
	}
	defer tx.Rollback()
	var total int
	if err := tx.QueryRowContext(ctx, `SELECT count(*) FROM deliveries WHERE addon_id = ?`, addonID).
		Scan(&total); err != nil {
		return nil, 0, formatError(err)
	}
	if p.Size <= 0 || p.Offset() < 0 || p.Offset() >= total {
		return nil, total, nil
	}
	rows, err := tx.QueryContext(ctx, `SELECT `+deliveryColumns+` FROM deliveries WHERE addon_id = ?
		ORDER BY id DESC LIMIT ? OFFSET ?`, addonID, p.Size, p.Offset())
	if err != nil {
		return nil, 0, formatError(err)
	}
	out, err := scanDeliveries(rows)
	return out, total, formatError(err)
}

// CountDeliveries returns how many deliveries are in each state.
func (db *DB) CountDeliveries(ctx context.Context) (map[index.DeliveryState]int, error) {
	rows, err := db.r.QueryContext(ctx, `SELECT state, count(*) FROM deliveries GROUP BY state`)
	if err != nil {
		return nil, formatError(err)
	}
	defer rows.Close()
	out := map[index.DeliveryState]int{}
	for rows.Next() {
		var s index.DeliveryState
		var n int
		if err := rows.Scan(&s, &n); err != nil {
			return nil, formatError(err)
		}
		out[s] = n
	}
	return out, formatError(rows.Err())
}

// EventsQueued returns a channel that receives when a committed write
// queued deliveries, so that the sender need not poll often. It holds at
// most one signal.
func (db *DB) EventsQueued() <-chan struct{} { return db.queued }
