package sqlstore

import (
	"encoding/json"
	"slices"

	"github.com/tolk-project/tolk/index"
)

// unitEditor applies edits to the units of one translation inside a
// write transaction: each edit updates the unit row (marking it pending
// for the next commit), records its change and, for an author's first
// edit in the translation, a "New contributor" change. The statistics
// owed are summed and written once by finish, so a bulk edit (an upload)
// costs one statistics update, not one per unit.
type unitEditor struct {
	tx    *Tx
	ids   scopeIDs
	actor index.Actor
	delta index.Stats
	// contributorChecked: the author's first-edit check is done.
	contributorChecked bool
	// nextPosition is the position add gives the next new unit; 0 until
	// first read.
	nextPosition int
	// format is the component's file format once fileFormat read it.
	format *string
	// bulk, when not nil, holds the unit updates and changes of edits
	// not yet written: an upload's are written many rows per statement
	// by flush.
	bulk *editRows
	// auto marks the units edited as automatically translated; any other
	// edit clears the mark (reference workspace §6.3).
	auto bool
}

// editRows are the rows of a bulk editor's edits waiting for flush.
type editRows struct {
	units   []unitRow
	changes []index.Change
}

// unitRow is a unit's new target and state.
type unitRow struct {
	id     int64
	target string
	state  index.State
}

// unitRowValues is a unitRow in a VALUES list, typed: PostgreSQL takes
// the parameters of a VALUES list in FROM for text otherwise.
const unitRowValues = "(CAST(? AS BIGINT), ?, CAST(? AS INTEGER))"

// bulkEditor is editorOf for many edits (an upload): their rows are
// written by flush, which finish calls.
func bulkEditor(tx *Tx, t *index.Translation, actor index.Actor) *unitEditor {
	e := editorOf(tx, t, actor)
	e.bulk = &editRows{}
	return e
}

// flush writes the rows of a bulk editor's edits so far (editRows.write).
func (e *unitEditor) flush() error {
	if e.bulk == nil {
		return nil
	}
	return e.bulk.write(e.tx, e.auto)
}

// write writes r's rows, queued with the write's next round trip
// (execLater): the units' targets and states, many rows a statement,
// then the changes in the order made (insertChanges); auto is the
// automatically_translated mark of every unit.
func (r *editRows) write(tx *Tx, auto bool) error {
	now := formatTime(tx.now)
	for units := r.units; len(units) > 0; {
		n := bulkRows(min(len(units), maxBulkRows))
		// pending_since keeps when the unit's pending work began
		// (migration 0011), as in edit. The arguments are the queued
		// statement's until it is sent: new ones each.
		args := make([]any, 0, 2+3*n)
		args = append(args, now, now)
		for _, u := range units[:n] {
			args = append(args, u.id, u.target, u.state)
		}
		if err := tx.execLater(editRowsUpdate+`
			pending_since = coalesce(units.pending_since, ?), timestamp = ?,
			automatically_translated = `+boolDigit(auto)+`
			FROM (VALUES `+valueRows(unitRowValues, n)+`) AS v WHERE units.id = v.column1`, args...); err != nil {
			return err
		}
		units = units[n:]
	}
	if err := insertChanges(tx, r.changes); err != nil {
		return err
	}
	r.units, r.changes = r.units[:0], r.changes[:0]
	return nil
}

// editRowsUpdate begins editRows.write's UPDATE.
const editRowsUpdate = `UPDATE units SET target = v.column2, state = v.column3, pending = 1,`

// newUnitEditor starts editing the translation with the given id for
// actor.
func newUnitEditor(tx *Tx, translationID int64, actor index.Actor) (*unitEditor, error) {
	ids, err := translationScope(tx, translationID)
	if err != nil {
		return nil, err
	}
	return editorFor(tx, ids, actor), nil
}

// editorFor starts editing the translation ids names for actor.
func editorFor(tx *Tx, ids scopeIDs, actor index.Actor) *unitEditor {
	tx.touchUnits(ids.translationID)
	tx.touch(unitsDep(0))
	return &unitEditor{tx: tx, ids: ids, actor: actor}
}

// editorOf starts editing translation t, already read in tx, for actor:
// newUnitEditor without reading the translation's scope again, nor its
// component's file format (fileFormat).
func editorOf(tx *Tx, t *index.Translation, actor index.Actor) *unitEditor {
	e := editorFor(tx, scopeIDs{translationID: t.ID, componentID: t.ComponentID,
		projectID: t.Component.ProjectID, languageCode: t.LanguageCode}, actor)
	format := t.Component.FileFormat
	e.format = &format
	return e
}

// translationScope reads the ids a translation's statistics and changes
// are filed under.
func translationScope(tx *Tx, translationID int64) (scopeIDs, error) {
	ids := scopeIDs{translationID: translationID}
	err := tx.QueryRow(`SELECT t.component_id, c.project_id, t.language_code
		FROM translations t JOIN components c ON c.id = t.component_id WHERE t.id = ?`, translationID).
		Scan(&ids.componentID, &ids.projectID, &ids.languageCode)
	return ids, err
}

// findUnitTx reads a unit inside a transaction, seeing its own writes.
func findUnitTx(tx *Tx, id int64) (index.Unit, error) {
	return scanUnit(tx.QueryRow(`SELECT `+unitColumns+` FROM units WHERE id = ?`, id))
}

// changeDetails is what a unit change keeps beyond its target: the state
// before and after and the previous target, so that history (and a later
// sync that must re-apply or explain an edit) loses nothing.
type changeDetails struct {
	State    index.State `json:"state"`
	OldState index.State `json:"old_state"`
	Old      string      `json:"old"`
	Source   string      `json:"source"`
	Context  string      `json:"context"`
}

// edit sets u's target and state, records the change (action 0 picks the
// reference's action for the state transition) and updates u in place.
// It reports false, doing nothing, when u already holds the edit.
func (e *unitEditor) edit(u *index.Unit, ed index.UnitEdit, action index.Action) (bool, error) {
	if ed.Autofix && !index.IsBlank(ed.Target) {
		fixed, applied, err := e.autofix(u, ed.Target)
		if err != nil {
			return false, err
		}
		ed.Target, u.Fixups = fixed, applied
	}
	if index.NeedsSettling(ed.State, ed.Target) { // a plural with a hole is not translated
		format, err := e.fileFormat()
		if err != nil {
			return false, err
		}
		ed.State = index.SettleState(ed.State, ed.Target, format)
	}
	if ed.State == u.State && slices.Equal(ed.Target, u.Target) {
		return false, nil
	}
	if action == 0 {
		action = index.EditAction(u.State, ed.State)
	}
	if u.State.Translated() && (!ed.State.Translated() || !slices.Equal(ed.Target, u.Target)) {
		e.tx.leftTarget(u.TranslationID, index.JoinPlural(u.Target))
	}
	target := index.JoinPlural(ed.Target)
	if e.bulk != nil {
		e.bulk.units = append(e.bulk.units, unitRow{u.ID, target, ed.State})
	} else {
		// pending_since keeps when the unit's pending work began
		// (migration 0011): an edit of a unit already pending leaves it.
		update, err := e.tx.prepare(unitEditSQL)
		if err != nil {
			return false, err
		}
		now := formatTime(e.tx.now)
		if err := update.execLater(target, ed.State, now, now, boolInt(e.auto), u.ID); err != nil {
			return false, err
		}
	}
	chars := u.NumChars()
	e.delta.CountUnit(ed.State, u.NumWords, chars)
	var old index.Stats
	old.CountUnit(u.State, u.NumWords, chars)
	e.delta.Add(old, -1)

	details, err := json.Marshal(changeDetails{State: ed.State, OldState: u.State, Old: index.JoinPlural(u.Target),
		Source: index.JoinPlural(u.Source), Context: u.Context})
	if err != nil {
		return false, err
	}
	if err := e.change(action, u.ID, target, string(details)); err != nil {
		return false, err
	}
	if err := e.newContributor(u.ID); err != nil {
		return false, err
	}
	u.Target, u.State, u.Pending, u.Timestamp = slices.Clone(ed.Target), ed.State, true, e.tx.now
	u.AutomaticallyTranslated = e.auto
	e.tx.recheckUnit(u, true, e.actor)
	e.tx.historyEnds(u.ID, action)
	return true, nil
}

// add inserts u as a new unit of the translation at its end, records
// "New string added" (31) and counts it in the statistics; it sets u's
// ID, TranslationID, Position and Timestamp. A unit whose SourceUnitID is
// 0 is its own source unit (a string added to the source translation).
// pending marks it for the next commit, for units the file must gain.
func (e *unitEditor) add(u *index.Unit, pending bool) error {
	if e.nextPosition == 0 {
		if err := e.tx.QueryRow(`SELECT coalesce(max(position), 0) + 1 FROM units
			WHERE translation_id = ?`, e.ids.translationID).Scan(&e.nextPosition); err != nil {
			return err
		}
	}
	ins, err := newUnitInserter(e.tx)
	if err != nil {
		return err
	}
	u.TranslationID, u.Position, u.Timestamp = e.ids.translationID, e.nextPosition, e.tx.now
	if u.SourceUnitID != 0 && index.NeedsSettling(u.State, u.Target) {
		format, err := e.fileFormat()
		if err != nil {
			return err
		}
		u.State = index.SettleState(u.State, u.Target, format)
	}
	chars := u.NumChars()
	target := index.JoinPlural(u.Target)
	if u.ID, err = ins.add(u.TranslationID, u.Position, u.Context, index.JoinPlural(u.Source), target,
		u.IDHash, u.ContentHash, u.Location, u.Note, u.Flags, u.Explanation, u.State, u.NumWords, chars,
		formatTime(e.tx.now), nullID(u.SourceUnitID)); err != nil {
		return err
	}
	e.nextPosition++
	if u.SourceUnitID == 0 || pending {
		if u.SourceUnitID == 0 {
			u.SourceUnitID = u.ID
		}
		u.Pending = pending
		var since any // a new row: pending work begins now, if any
		if pending {
			since = formatTime(e.tx.now)
		}
		if _, err := e.tx.Exec(`UPDATE units SET source_unit_id = ?, pending = ?, pending_since = ?
			WHERE id = ?`, u.SourceUnitID, pending, since, u.ID); err != nil {
			return err
		}
	}
	e.delta.CountUnit(u.State, u.NumWords, chars)
	e.tx.recheckUnit(u, false, e.actor)
	// The reference records the source text as the target of 31.
	return e.change(index.ActionNewSource, u.ID, index.JoinPlural(u.Source), "")
}

// change records one change of this translation by the editor's actor.
func (e *unitEditor) change(action index.Action, unitID int64, target, details string) error {
	c := index.Change{Action: action, ProjectID: e.ids.projectID,
		ComponentID: e.ids.componentID, TranslationID: e.ids.translationID, UnitID: unitID,
		LanguageCode: e.ids.languageCode, UserID: e.actor.UserID, AuthorID: e.actor.AuthorID,
		Target: target, Details: details}
	if e.bulk != nil {
		e.bulk.changes = append(e.bulk.changes, c)
		return nil
	}
	return insertChange(e.tx, c)
}

// newContributor records "New contributor" (45), with the unit, the
// first time the author edits this translation.
func (e *unitEditor) newContributor(unitID int64) error {
	if e.contributorChecked || e.actor.AuthorID == 0 {
		return nil
	}
	e.contributorChecked = true
	k := [2]int64{e.ids.translationID, e.actor.AuthorID}
	if knownContributor(e.tx, k) {
		return nil
	}
	res, err := e.tx.Exec(`INSERT INTO contributors (translation_id, user_id) VALUES (?, ?)
		ON CONFLICT DO NOTHING`, e.ids.translationID, e.actor.AuthorID)
	if err != nil {
		return err
	}
	e.tx.contributed = append(e.tx.contributed, k)
	if n, _ := res.RowsAffected(); n == 0 {
		return nil
	}
	return e.change(index.ActionNewContributor, unitID, "", "")
}

// finish writes a bulk editor's waiting rows (flush) and the statistics
// the edits owe (writeStats).
func (e *unitEditor) finish() error {
	if err := e.flush(); err != nil {
		return err
	}
	return e.writeStats()
}

// writeStats writes the statistics the edits so far owe to the
// translation and its component, project and language.
func (e *unitEditor) writeStats() error {
	if e.delta == (index.Stats{}) {
		return nil
	}
	if err := addStats(e.tx, "t", itoa(e.ids.translationID), e.delta); err != nil {
		return err
	}
	for _, s := range aggregateScopes(e.ids) {
		if err := addStats(e.tx, s.scope, s.key, e.delta); err != nil {
			return err
		}
	}
	e.delta = index.Stats{}
	return nil
}

// fileFormat is the file format of the editor's component, read once
// (given by editorOf): whether a plural's empty form is a hole depends
// on it (index.SettleState).
func (e *unitEditor) fileFormat() (string, error) {
	if e.format == nil {
		c, err := findComponentByID(e.tx, e.ids.componentID)
		if err != nil {
			return "", err
		}
		e.format = &c.FileFormat
	}
	return *e.format, nil
}

// unitEditSQL is an edit's UPDATE of its unit: target, state, pending,
// pending_since, timestamp, automatically_translated, by id. On
// PostgreSQL no index of units names one of these columns (migration
// 0114), so that the update is heap-only when the row's page has room
// (TestUnitEditHeapOnly).
const unitEditSQL = `UPDATE units SET target = ?, state = ?, pending = 1,
			pending_since = coalesce(pending_since, ?), timestamp = ?, automatically_translated = ? WHERE id = ?`
