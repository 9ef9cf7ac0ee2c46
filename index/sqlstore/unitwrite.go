package sqlstore

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"slices"

	"github.com/tolk-project/tolk/index"
)

// The unit writes of the API. Each reads the objects it decides on inside
// its write transaction and hands them to the caller's rules (package
// index), so that concurrent writes of one unit are serialized by the
// single writer and each decides on, and records, what the one before it
// left: no update is lost and every change's "old" is the real previous
// value.

// findTranslationTx reads a translation with its component, project and
// language inside a write transaction, seeing its own writes.
func findTranslationTx(tx *Tx, id int64) (index.Translation, error) {
	return scanTranslation(tx.QueryRow(translationSelect+` WHERE t.id = ?`, id), tx.db.formatPlural)
}

// cachedTranslation is findTranslationTx answered from the lookup cache
// (FindTranslationByID's) while the batch has changed no translation,
// component, project or language: while its writes so far, this one
// included, were narrow ones, which change none of them (a write that
// does widens). The cache then holds what tx would read, the state of
// the last commit, which the clock it checks has seen (the writer
// advances it, and on a shared engine catches it up at BEGIN). A miss
// is read in tx and kept. A unit edit's translation read was a tenth of
// the writer's time. (cachedAt, not lookup: the writer has caught up at
// BEGIN, and must not wait for a reader's query.)
func cachedTranslation(tx *Tx, id int64) (index.Translation, error) {
	if !tx.cachesAnswer() {
		return findTranslationTx(tx, id)
	}
	return cachedAt(tx.db, &tx.db.translationsByID, id, noDep, maxCachedLookups, one,
		func(uint64) (index.Translation, error) { return findTranslationTx(tx, id) })
}

// findUnitAndTranslation reads a unit and its translation in tx.
func findUnitAndTranslation(tx *Tx, id int64) (index.Unit, index.Translation, error) {
	u, err := findUnitTx(tx, id)
	if err != nil {
		return u, index.Translation{}, err
	}
	t, err := cachedTranslation(tx, u.TranslationID)
	if err != nil {
		// The unit's translation exists (a foreign key says so): a miss
		// is internal, not the client's 404, hence %v over %w.
		return u, t, fmt.Errorf("translation %d of unit %d: %v", u.TranslationID, id, err)
	}
	return u, t, nil
}

// UpdateUnit writes one unit as decide says, in one transaction: it reads
// the unit and its translation (with component, project and language),
// calls decide, and applies the update it returns: the target and state
// (marking the unit pending, recording the change, and for a template's
// source string moving the source of every translation), explanation and
// extra flags, and the statistics at every level. An error from decide
// (or an unknown id: ErrNotFound) is returned as is and nothing is
// stored. It returns the unit as written.
func (db *DB) UpdateUnit(ctx context.Context, id int64, actor index.Actor,
	decide func(u index.Unit, t index.Translation) (index.UnitUpdate, error)) (index.Unit, error) {
	return db.UpdateUnitExpecting(ctx, id, actor, nil, decide)
}

// UpdateUnitExpecting is UpdateUnit told the target the write expects to
// save (nil: none), before decide has settled it, as the API's PATCH and
// the editor's save know it: a hint, never the write's answer. On
// PostgreSQL the same-target lookups of the reused check are sent on it
// with the batch's first round trip (targetGuess, issue 31); a write
// that saves another target (an autofix, a refusal) costs what it cost
// without the hint.
func (db *DB) UpdateUnitExpecting(ctx context.Context, id int64, actor index.Actor, expect []string,
	decide func(u index.Unit, t index.Translation) (index.UnitUpdate, error)) (index.Unit, error) {
	var out index.Unit
	// Every row it changes is a unit of a translation its editors open, a
	// change or a statistics row, except an explanation's (setProperties).
	err := db.writeUnitEdit(ctx, id, actor.AuthorID, expect, func(tx *Tx) error {
		u, t, err := readUnitForEdit(tx, id, actor.AuthorID)
		if err != nil {
			return err
		}
		upd, err := decide(u, t)
		if err != nil {
			return err
		}
		if upd.SameLabels != nil {
			if err := sameLabels(tx, &u, t.Component.ProjectID, *upd.SameLabels); err != nil {
				return err
			}
		}
		e := editorOf(tx, &t, actor)
		if err := e.setProperties(&u, upd.Explanation, upd.ExtraFlags); err != nil {
			return err
		}
		if t.IsSource {
			// Only a source unit's own labels are its write's answer
			// (the reference's write serializer shows the unit's own).
			units := []index.Unit{u}
			if err := withLabels(runCtx, tx.queryer(), units); err != nil {
				return err
			}
			u = units[0]
		}
		if upd.Labels != nil {
			if err := e.setLabels(&u, t.Component.ProjectID, *upd.Labels); err != nil {
				return err
			}
		}
		if upd.Edit != nil {
			if t.IsMonolingualSource() {
				err = e.editTemplate(&u, *upd.Edit)
			} else {
				var edited bool
				if edited, err = e.edit(&u, *upd.Edit, upd.Edit.Action); err == nil && edited {
					err = propagate(tx, &t, &u, actor)
				}
			}
			if err != nil {
				return err
			}
		}
		// The answer shows the unit as its checks leave it.
		err = finishUnitWrite(e, &u)
		out = u
		return err
	})
	return out, err
}

// setProperties stores a source unit's explanation and extra flags and
// records "Explanation updated" (66) and "Extra flags updated" (79) for
// what changed; the reference records neither through its API, Tolk keeps
// them in the history. The explanation goes to the string's unit in
// every translation too, as an import gives it.
func (e *unitEditor) setProperties(u *index.Unit, explanation, extraFlags *string) error {
	if explanation != nil && *explanation != u.Explanation {
		e.tx.widen() // every translation of the component
		if _, err := e.tx.Exec(`UPDATE units SET explanation = ? WHERE id_hash = ?
			AND translation_id IN (SELECT id FROM translations WHERE component_id = ?)`,
			*explanation, u.IDHash, e.ids.componentID); err != nil {
			return err
		}
		if err := e.propertyChange(u, index.ActionExplanation, u.Explanation, *explanation); err != nil {
			return err
		}
		u.Explanation = *explanation
	}
	if extraFlags != nil && *extraFlags != u.ExtraFlags {
		if _, err := e.tx.Exec(`UPDATE units SET extra_flags = ? WHERE id = ?`, *extraFlags, u.ID); err != nil {
			return err
		}
		if err := e.propertyChange(u, index.ActionExtraFlags, u.ExtraFlags, *extraFlags); err != nil {
			return err
		}
		delete(e.tx.extraFlags, u.ID)
		clear(e.tx.componentExtras)
		if u.SourceUnitID == u.ID {
			// A source string's flags apply to it in every translation.
			e.tx.widen()
			e.tx.recheckSource(u.ID)
		} else {
			e.tx.recheckUnit(u, false, e.actor)
		}
		u.ExtraFlags = *extraFlags
	}
	return nil
}

// propertyChange marks u pending (its file may hold the property) and
// records the change of one of its properties from old to value.
func (e *unitEditor) propertyChange(u *index.Unit, action index.Action, old, value string) error {
	now := formatTime(e.tx.now)
	if _, err := e.tx.Exec(`UPDATE units SET pending = 1, pending_since = coalesce(pending_since, ?),
		timestamp = ? WHERE id = ?`, now, now, u.ID); err != nil {
		return err
	}
	u.Pending, u.Timestamp = true, e.tx.now
	details, err := json.Marshal(map[string]string{"old": old})
	if err != nil {
		return err
	}
	return e.change(action, u.ID, value, string(details))
}

// editTemplate edits a template's source string: its target is the
// source, so the source moves with it, here and in the string's unit of
// every translation. Those record "Source string changed" (30) and, when
// translated (approved ones included: a source change re-opens review),
// go back to needing editing as "needs rewriting" (11) with the old
// source kept as their previous source, as the reference's
// update_source_units does (reference workspace §4.4); one that needed
// editing for a source the edit restores is translated again, as the
// reference reverts it. Their files hold no source, so they are not
// marked pending.
func (e *unitEditor) editTemplate(u *index.Unit, ed index.UnitEdit) error {
	oldSource := index.JoinPlural(u.Source)
	changed, err := e.edit(u, ed, 0)
	newSource := index.JoinPlural(ed.Target)
	if err != nil || !changed || oldSource == newSource {
		return err
	}
	if err := e.setSource(u, ed.Target, u.State, u.PreviousSource); err != nil {
		return err
	}
	deps, err := dependentUnits(e.tx, u, e.ids.componentID)
	if err != nil {
		return err
	}
	return forEachTranslation(e, deps, func(de *unitEditor, d *index.Unit) error {
		state, previous := d.State, d.PreviousSource
		switch {
		case d.State.Fuzzy() && d.PreviousSource != "" && d.PreviousSource == newSource:
			state, previous = index.StateTranslated, ""
		case d.State.Translated() && d.State != index.StateReadOnly:
			state, previous = index.StateNeedsRewriting, oldSource
		}
		details, err := json.Marshal(sourceChangeDetails{Old: oldSource, State: state, OldState: d.State})
		if err != nil {
			return err
		}
		if err := de.setSource(d, ed.Target, state, previous); err != nil {
			return err
		}
		// d leaves its old string's group (inconsistent.go).
		de.tx.inconsistentLeft(de.ids.projectID, de.ids.componentID, de.ids.languageCode)
		return de.change(index.ActionSourceChange, d.ID, newSource, string(details))
	})
}

// sourceChangeDetails is what "Source string changed" (30) keeps: the
// old source, and the unit's state before and after, as every change of
// a unit's state does.
type sourceChangeDetails struct {
	Old      string      `json:"old"`
	State    index.State `json:"state"`
	OldState index.State `json:"old_state"`
}

// dependentUnits reads the string of source unit u in every other
// translation of its component, by translation. They are found by
// id_hash (the key units are linked by) through the index every import
// uses, rather than by source_unit_id, which no index serves.
func dependentUnits(tx *Tx, u *index.Unit, componentID int64) ([]index.Unit, error) {
	rows, err := tx.Query(`SELECT `+unitColumns+` FROM units
		WHERE translation_id IN (SELECT id FROM translations WHERE component_id = ? AND id != ?) AND id_hash = ?
		ORDER BY translation_id, id`, componentID, u.TranslationID, u.IDHash)
	if err != nil {
		return nil, err
	}
	return scanUnits(rows, 0)
}

// forEachTranslation calls fn for each unit with an editor of its
// translation (sharing e's transaction and actor), units of one
// translation in a row, and finishes every editor it started.
func forEachTranslation(e *unitEditor, units []index.Unit,
	fn func(*unitEditor, *index.Unit) error) error {
	var cur *unitEditor
	for i := range units {
		if cur == nil || cur.ids.translationID != units[i].TranslationID {
			if cur != nil {
				if err := cur.finish(); err != nil {
					return err
				}
			}
			var err error
			if cur, err = newUnitEditor(e.tx, units[i].TranslationID, e.actor); err != nil {
				return err
			}
		}
		if err := fn(cur, &units[i]); err != nil {
			return err
		}
	}
	if cur == nil {
		return nil
	}
	return cur.finish()
}

// setSource gives u a new source string with the state and previous
// source that go with it, and the content hash and counts that follow.
// Its id_hash stays: a unit whose source can change is a monolingual
// one, identified by its key alone.
func (e *unitEditor) setSource(u *index.Unit, source []string, state index.State, previous string) error {
	var old index.Stats
	old.Count(u)
	e.delta.Add(old, -1)
	u.Source, u.State, u.PreviousSource = slices.Clone(source), state, previous
	u.NumWords, u.ContentHash = index.CountWords(source), index.ContentHash(source, u.Context)
	e.delta.Count(u)
	e.tx.recheckUnit(u, false, e.actor)
	_, err := e.tx.Exec(`UPDATE units SET source = ?, state = ?, previous_source = ?,
		content_hash = ?, num_words = ?, num_chars = ? WHERE id = ?`, index.JoinPlural(source), state,
		previous, u.ContentHash, u.NumWords, u.NumChars(), u.ID)
	return err
}

// errUnitExists is the reference's answer to adding a string a
// translation already holds.
var errUnitExists = &index.FieldError{Fields: map[string]index.FieldProblem{
	"non_field_errors": {Code: "invalid", Detail: "This string seems to already exist."}}}

// AddUnit adds a string to a translation as decide settles it, in one
// transaction: decide gets the translation (with component, project and
// language) and returns the new unit or an error, returned as is. Added
// to a source translation, the string also goes untranslated to every
// other translation of the component; added to a bilingual translation,
// its source string is added to the source translation when missing.
// Every unit added is pending (its file does not hold it yet), linked to
// its source unit, placed after the translation's last unit, counted in
// the statistics and recorded as "New string added" (31). A string the
// translation already holds (same id_hash) is a FieldError. It returns
// the unit added to the translation asked for.
func (db *DB) AddUnit(ctx context.Context, translationID int64, actor index.Actor,
	decide func(t index.Translation) (index.NewUnit, error)) (index.Unit, error) {
	var out index.Unit
	err := db.writeNarrow(ctx, func(tx *Tx) error {
		t, err := findTranslationTx(tx, translationID)
		if err != nil {
			return err
		}
		n, err := decide(t)
		if err != nil {
			return err
		}
		hash := index.IDHash(t.Component.IsMonolingual(), n.Source, n.Context)
		if _, ok, err := unitByHash(tx, t.ID, hash); err != nil || ok {
			if ok {
				return errUnitExists
			}
			return err
		}
		var srcID int64
		err = tx.QueryRow(`SELECT id FROM translations WHERE component_id = ? AND is_source != 0`,
			t.ComponentID).Scan(&srcID)
		if err != nil {
			return fmt.Errorf("source translation of component %d: %v", t.ComponentID, err)
		}
		if t.IsSource {
			out, err = addSourceUnit(tx, t.ComponentID, srcID, actor, n, hash)
			return err
		}
		srcUnitID, ok, err := unitByHash(tx, srcID, hash)
		if err != nil {
			return err
		}
		if !ok {
			su, err := addUnitTo(tx, srcID, actor, index.NewUnit{Context: n.Context, Source: n.Source,
				Target: n.Source, State: index.StateReadOnly}, hash, 0)
			if err != nil {
				return err
			}
			srcUnitID = su.ID
		}
		out, err = addUnitTo(tx, t.ID, actor, n, hash, srcUnitID)
		return err
	})
	return out, err
}

// addSourceUnit adds a source string to the source translation and,
// untranslated, to every other translation of the component that lacks
// it.
func addSourceUnit(tx *Tx, componentID, srcID int64, actor index.Actor,
	n index.NewUnit, hash int64) (index.Unit, error) {
	src, err := addUnitTo(tx, srcID, actor, n, hash, 0)
	if err != nil {
		return src, err
	}
	lacking, err := componentScopes(tx, componentID, srcID, &hash)
	if err != nil {
		return src, err
	}
	next, err := nextPositions(tx, lacking)
	if err != nil {
		return src, err
	}
	empty := index.NewUnit{Context: n.Context, Source: n.Source, Target: []string{""}, State: index.StateEmpty}
	for _, ids := range lacking {
		e := editorFor(tx, ids, actor)
		e.nextPosition = next[ids.translationID]
		if _, err := e.addNew(empty, hash, src.ID); err != nil {
			return src, err
		}
		if err := e.finish(); err != nil {
			return src, err
		}
	}
	return src, nil
}

// nextPositions reads the position a unit added at the end of each of
// the translations of scopes takes, maxInList translations a query: a
// string added to a source translation reaches every other one, and
// each editor read its own (on PostgreSQL a round trip per translation,
// 106 for jellyfin).
func nextPositions(tx *Tx, scopes []scopeIDs) (map[int64]int, error) {
	next := make(map[int64]int, len(scopes))
	for chunk := range slices.Chunk(scopes, maxInList) {
		ids := make([]int64, len(chunk))
		for i, s := range chunk {
			ids[i] = s.translationID
		}
		list, args := idList(ids)
		// A subquery per translation: max over a GROUP BY read every
		// unit's position, where each subquery reads one index entry
		// (units_translation_position).
		err := tx.queryEach(`SELECT t.id, coalesce((SELECT max(position) FROM units
			WHERE translation_id = t.id), 0) + 1 FROM translations t WHERE t.id IN `+list,
			func(scan func(...any) error) error {
				var id int64
				var pos int
				if err := scan(&id, &pos); err != nil {
					return err
				}
				next[id] = pos
				return nil
			}, args...)
		if err != nil {
			return nil, err
		}
	}
	return next, nil
}

// componentScopes reads the scopes of the translations of a component
// but exceptID, in id order, in one query (a component may have
// hundreds); with lackingHash, only those without a unit of that id_hash.
func componentScopes(tx *Tx, componentID, exceptID int64, lackingHash *int64) ([]scopeIDs, error) {
	query := `SELECT t.id, c.project_id, t.language_code
		FROM translations t JOIN components c ON c.id = t.component_id
		WHERE t.component_id = ? AND t.id != ?`
	args := []any{componentID, exceptID}
	if lackingHash != nil {
		query += ` AND NOT EXISTS (SELECT 1 FROM units u WHERE u.translation_id = t.id AND u.id_hash = ?)`
		args = append(args, *lackingHash)
	}
	rows, err := tx.Query(query+` ORDER BY t.id`, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []scopeIDs
	for rows.Next() {
		ids := scopeIDs{componentID: componentID}
		if err := rows.Scan(&ids.translationID, &ids.projectID, &ids.languageCode); err != nil {
			return nil, err
		}
		out = append(out, ids)
	}
	return out, rows.Err()
}

// unitByHash finds the unit of a translation with the given id_hash.
func unitByHash(tx *Tx, translationID, hash int64) (int64, bool, error) {
	var id int64
	err := tx.QueryRow(`SELECT id FROM units WHERE translation_id = ? AND id_hash = ? LIMIT 1`,
		translationID, hash).Scan(&id)
	if errors.Is(err, sql.ErrNoRows) {
		return 0, false, nil
	}
	return id, err == nil, err
}

// addUnitTo adds one unit to a translation with its own editor, and
// finishes it.
func addUnitTo(tx *Tx, translationID int64, actor index.Actor, n index.NewUnit,
	hash, sourceUnitID int64) (index.Unit, error) {
	e, err := newUnitEditor(tx, translationID, actor)
	if err != nil {
		return index.Unit{}, err
	}
	u, err := e.addNew(n, hash, sourceUnitID)
	if err != nil {
		return u, err
	}
	if err := e.finish(); err != nil {
		return u, err
	}
	return findUnitTx(tx, u.ID)
}

// addNew adds the unit n, of id_hash hash and linked to sourceUnitID (0:
// it is its own source unit), to the editor's translation; it returns
// the unit as added, not read back.
func (e *unitEditor) addNew(n index.NewUnit, hash, sourceUnitID int64) (index.Unit, error) {
	u := index.Unit{Context: n.Context, Source: n.Source, Target: n.Target, IDHash: hash,
		ContentHash: index.ContentHash(n.Source, n.Context), State: n.State, NumWords: index.CountWords(n.Source),
		SourceUnitID: sourceUnitID}
	// The file must gain the string where it holds text: the source
	// translation always, another one only with a target.
	pending := sourceUnitID == 0 || !index.IsBlank(n.Target)
	err := e.add(&u, pending)
	return u, err
}

// DeleteUnit removes a unit in one transaction once check (given the
// unit and its translation) returns nil; check's error is returned as is
// and nothing is removed. Removing a source string removes it from every
// translation of the component. Each unit removed records "String
// removed" (63) in its translation with its source, target and context
// in the details and no unit (the row is gone, and with it the unit of
// its earlier changes), leaves the statistics, and is remembered for the
// next commit to take out of its file (RemovedUnits).
func (db *DB) DeleteUnit(ctx context.Context, id int64, actor index.Actor,
	check func(u index.Unit, t index.Translation) error) error {
	return db.write(ctx, func(tx *Tx) error {
		u, t, err := findUnitAndTranslation(tx, id)
		if err != nil {
			return err
		}
		if err := check(u, t); err != nil {
			return err
		}
		victims := []index.Unit{u}
		if t.IsSource {
			deps, err := dependentUnits(tx, &u, t.ComponentID)
			if err != nil {
				return err
			}
			victims = append(deps, u)
		}
		e := &unitEditor{tx: tx, actor: actor}
		return forEachTranslation(e, victims, func(de *unitEditor, v *index.Unit) error {
			return de.remove(v)
		})
	})
}

// remove deletes u from the editor's translation (see DeleteUnit).
func (e *unitEditor) remove(u *index.Unit) error {
	details, err := json.Marshal(map[string]string{"source": index.JoinPlural(u.Source),
		"target": index.JoinPlural(u.Target), "context": u.Context})
	if err != nil {
		return err
	}
	if err := e.change(index.ActionStringRemove, 0, "", string(details)); err != nil {
		return err
	}
	if _, err := e.tx.Exec(`INSERT INTO removed_units (translation_id, id_hash, context, source, removed)
		SELECT id, ?, ?, ?, ? FROM translations WHERE id = ? AND filename != ''`, u.IDHash, u.Context,
		index.JoinPlural(u.Source), formatTime(e.tx.now), u.TranslationID); err != nil {
		return err
	}
	var old index.Stats
	old.Count(u)
	e.delta.Add(old, -1)
	if err := countBeforeDelete(e.tx); err != nil {
		return err
	}
	e.tx.forgetUnit(u.ID)
	e.tx.inconsistentLeft(e.ids.projectID, e.ids.componentID, e.ids.languageCode)
	if err := e.tx.removedChecked(u); err != nil {
		return err
	}
	_, err = e.tx.Exec(`DELETE FROM units WHERE id = ?`, u.ID)
	return err
}

// RemovedUnits returns the units removed from a translation that its
// file may still hold, oldest first (see index.RemovedUnit).
func (db *DB) RemovedUnits(ctx context.Context, translationID int64) ([]index.RemovedUnit, error) {
	rows, err := db.r.QueryContext(ctx, `SELECT id, translation_id, id_hash, context, source, removed
		FROM removed_units WHERE translation_id = ? ORDER BY id`, translationID)
	if err != nil {
		return nil, formatError(err)
	}
	defer rows.Close()
	var out []index.RemovedUnit
	for rows.Next() {
		var r index.RemovedUnit
		var source, removed string
		if err := rows.Scan(&r.ID, &r.TranslationID, &r.IDHash, &r.Context, &source, &removed); err != nil {
			return nil, err
		}
		r.Source, r.Removed = index.SplitPlural(source), parseTime(removed)
		out = append(out, r)
	}
	return out, formatError(rows.Err())
}
