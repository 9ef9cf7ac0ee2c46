package sqlstore

import (
	"cmp"
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/tolk-project/tolk/index"
)

// existingUnit is what reconciliation compares against.
type existingUnit struct {
	id                                      int64
	position                                int
	sourceUnitID                            int64 // 0 when unlinked
	context, source, target, previousSource string
	note, explanation, flags, location      string
	state                                   index.State
	// pending: an edit or addition through the API that no commit has
	// written yet; the import must not undo it.
	pending bool
	seen    bool
}

// ImportTranslation reconciles one translation with a parsed file in a
// single transaction: units are matched by id_hash, so their ids stay
// stable; new ones are added, changed ones updated, vanished ones removed,
// statistics refreshed and the changes recorded as automatic (no user,
// no author). Importing the content the index already holds changes
// nothing and records nothing.
func (db *DB) ImportTranslation(ctx context.Context, imp index.TranslationImport) (index.ImportResult, error) {
	res, err := db.ImportTranslations(ctx, []index.TranslationImport{imp})
	if err != nil {
		return index.ImportResult{}, err
	}
	return res[0], nil
}

// ImportTranslations imports each of imps as ImportTranslation does, in
// order, all in one transaction: either every one is committed, revision
// included, or none is. A batch spares the per-transaction costs (the
// commit, the statements prepared, the source units looked up) that
// dominate files of a few thousand units. The results follow imps.
func (db *DB) ImportTranslations(ctx context.Context, imps []index.TranslationImport) ([]index.ImportResult, error) {
	units := 0
	for _, imp := range imps {
		units += len(imp.Units)
	}
	if units >= trigramBatch {
		// A large import is a bulk writer: the trigram index's step
		// waits for it to pause rather than taking the writer between
		// its batches (0.2 s of the writer's 3.4 s of CPU in a corpus
		// import's profile at load 15, one batch a second until 20,000
		// units were noted); the units are indexed once it ends.
		db.bulkWriting()
	}
	// What each unit's row derives from the file alone, on the caller's
	// goroutine: the writer is the import's critical path.
	preps := make([][]unitPrep, len(imps))
	for i, imp := range imps {
		preps[i] = prepareUnits(imp)
	}
	results := make([]index.ImportResult, 0, len(imps))
	err := db.write(ctx, func(tx *Tx) error {
		// A write may run again (a retry, a batch run apart: writer.go);
		// each run's results are its own.
		results = results[:0]
		sources := sourceUnitCache{}
		for i, imp := range imps {
			res, err := importTranslation(tx, imp, preps[i], sources)
			if err != nil {
				return fmt.Errorf("%s: %w", imp.LanguageCode, err)
			}
			results = append(results, res)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	added := 0
	for _, r := range results {
		added += r.Added
	}
	db.analyzeImported(ctx, added)
	return results, nil
}

// analyzeMinUnits: imports adding fewer units since the last ANALYZE
// never ask for one (analyzeImported).
const analyzeMinUnits = 1000

// analyzeImported has PostgreSQL analyze units, on the import's path
// after its commit, once imports have added three times as many units
// since the last ANALYZE this process ran as the table's statistics
// count (a table never analyzed counts none), and at least
// analyzeMinUnits. Why: a table never analyzed has no statistics of its
// columns, and the plans made then (generic ones, which prepared
// statements keep until the next ANALYZE invalidates them) read the
// peers whole; autovacuum's first ANALYZE came up to a minute after a
// large import, while the edits it enabled were running (BATCH12:
// pgSameStrings at 228-330 µs and 93-166 blocks a call instead of 6-9
// µs and 3.5, in a third of tolk-bench's runs). Statistics of a quarter
// of the table plan as the whole's (a column's distinct values scale
// with the table), so the table may grow fourfold between two: the
// corpus's import (277,429 units) runs three, 0.6-1.1 s each at load
// 10-11 (samples of 30,000 rows, as one of autovacuum's; doubling, it
// ran about six). A failed ANALYZE is logged, not the import's error (its
// units are committed): the next import asks again, and autovacuum
// analyzes in time anyway.
func (db *DB) analyzeImported(ctx context.Context, added int) {
	if db.dialect.name != "postgres" || added <= 0 {
		return
	}
	if err := db.analyzeUnits(ctx, added); err != nil && db.log != nil {
		db.log.Warn("analyze units after an import", "err", err)
	}
}

// analyzeUnits is analyzeImported's ANALYZE, when due.
func (db *DB) analyzeUnits(ctx context.Context, added int) error {
	n := db.importedUnits.Add(int64(added))
	if n < analyzeMinUnits || !db.analyzing.TryLock() {
		// Below the floor, or another import's ANALYZE is running:
		// these units stay counted for the next import's question.
		return nil
	}
	defer db.analyzing.Unlock()
	n = db.importedUnits.Load()
	var rows float64
	if err := db.rdb.QueryRowContext(ctx, `SELECT reltuples FROM pg_class WHERE oid = 'units'::regclass`).Scan(&rows); err != nil {
		return fmt.Errorf("units' statistics: %w", err)
	}
	if float64(n) < 3*rows {
		return nil
	}
	if _, err := db.rdb.ExecContext(ctx, `ANALYZE units`); err != nil {
		return fmt.Errorf("analyze units: %w", err)
	}
	db.importedUnits.Add(-n)
	return nil
}

// sourceUnitCache holds loadSourceUnits answers for one transaction, by
// source translation id: the translations of a component share one.
type sourceUnitCache map[int64]map[int64]int64

func (c sourceUnitCache) get(tx *Tx, sourceTranslationID int64) (map[int64]int64, error) {
	if m, ok := c[sourceTranslationID]; ok {
		return m, nil
	}
	m, err := loadSourceUnits(tx, sourceTranslationID)
	if err != nil {
		return nil, err
	}
	c[sourceTranslationID] = m
	return m, nil
}

// unitPrep is what a file's unit gives its row whatever the index
// holds: its keys, its texts as stored and its size.
type unitPrep struct {
	hash, contentHash int64
	source, target    string
	words, chars      int
}

// prepareUnits derives imp's units' unitPrep, in imp.Units' order. It
// runs before the write (the writer was busy 87-95% of a corpus import's
// wall time, and these are per unit hashing, counting and joining).
func prepareUnits(imp index.TranslationImport) []unitPrep {
	if imp.LoadError != "" {
		return nil
	}
	out := make([]unitPrep, len(imp.Units))
	for i, in := range imp.Units {
		p := &out[i]
		p.source, p.target = index.JoinPlural(in.Source), index.JoinPlural(in.Target)
		// index.ContentHash and IDHash, from the source joined once.
		p.contentHash = index.HashParts(p.source, in.Context)
		p.hash = p.contentHash // IDHashJoined's bilingual rule, without hashing twice
		if imp.Monolingual {
			p.hash = index.IDHashJoined(true, p.source, in.Context)
		}
		p.words = index.CountWords(in.Source)
		for _, s := range in.Source {
			p.chars += utf8.RuneCountInString(s)
		}
	}
	return out
}

func importTranslation(tx *Tx, imp index.TranslationImport, preps []unitPrep, sources sourceUnitCache) (index.ImportResult, error) {
	var res index.ImportResult
	ids := scopeIDs{componentID: imp.ComponentID, languageCode: imp.LanguageCode}
	if err := tx.QueryRow(`SELECT project_id FROM components WHERE id = ?`,
		imp.ComponentID).Scan(&ids.projectID); err != nil {
		return res, err
	}
	var revision, loadError string
	err := tx.QueryRow(`SELECT id, revision, load_error FROM translations
		WHERE component_id = ? AND language_code = ?`, imp.ComponentID, imp.LanguageCode).
		Scan(&ids.translationID, &revision, &loadError)
	if errors.Is(err, sql.ErrNoRows) {
		err = tx.QueryRow(`INSERT INTO translations (component_id, language_code, filename,
			is_source, is_template) VALUES (?, ?, ?, ?, ?) RETURNING id`, imp.ComponentID, imp.LanguageCode,
			imp.Filename, imp.IsSource, imp.IsTemplate).Scan(&ids.translationID)
		res.Created = true
	}
	if err != nil {
		return res, err
	}
	res.TranslationID = ids.translationID
	change := func(action index.Action, unitID int64, target, details string) error {
		return insertChange(tx, index.Change{Action: action, ProjectID: ids.projectID,
			ComponentID: ids.componentID, TranslationID: ids.translationID, UnitID: unitID,
			LanguageCode: ids.languageCode, Target: target, Details: details})
	}

	if imp.LoadError != "" {
		orphans, err := removeOrphans(tx, ids.translationID, change)
		if err != nil {
			return res, err
		}
		if orphans > 0 {
			res.Removed, res.Changed = orphans, true
			if err := refreshTranslationStats(tx, ids); err != nil {
				return res, err
			}
		}
		if imp.LoadError == loadError {
			return res, nil
		}
		res.Changed = true
		if _, err := tx.Exec(`UPDATE translations SET load_error = ?, filename = ? WHERE id = ?`,
			imp.LoadError, imp.Filename, ids.translationID); err != nil {
			return res, err
		}
		// The reference shows the parser's message as the change's
		// target; details keep it too, as before.
		return res, change(index.ActionParseError, 0, imp.LoadError, imp.LoadError)
	}

	existing, err := loadExisting(tx, ids.translationID)
	if err != nil {
		return res, err
	}
	removed, err := loadRemovedHashes(tx, ids.translationID)
	if err != nil {
		return res, err
	}
	isSource := imp.SourceTranslationID == 0 || imp.SourceTranslationID == ids.translationID
	var sourceUnits map[int64]int64
	if !isSource {
		if sourceUnits, err = sources.get(tx, imp.SourceTranslationID); err != nil {
			return res, err
		}
	}
	// Whatever this import adds or removes, a later translation of the
	// batch linking to it must see.
	delete(sources, ids.translationID)
	var created index.Stats // of the units a new translation received
	var newUnits []checkedUnit
	if err := reconcileUnits(tx, imp, preps, ids, existing, removed, sourceUnits, &res, &created, &newUnits, change); err != nil {
		return res, err
	}
	if isSource {
		if err := linkSourceToItself(tx, ids.translationID); err != nil {
			return res, err
		}
	}
	res.Changed = res.Created || res.Added+res.Updated+res.Removed > 0 || loadError != ""
	if res.Changed || revision != imp.Revision {
		if _, err := tx.Exec(`UPDATE translations SET revision = ?, filename = ?, is_source = ?,
			is_template = ?, load_error = '' WHERE id = ?`, imp.Revision, imp.Filename, imp.IsSource,
			imp.IsTemplate, ids.translationID); err != nil {
			return res, err
		}
	}
	if !res.Changed {
		return res, nil
	}
	if err := change(index.ActionUpdate, 0, "", ""); err != nil {
		return res, err
	}
	if res.Created {
		// Its units are the import's, as inserted: checked from memory
		// while the write goes on.
		if err := tx.checkCreated(ids.translationID, newUnits); err != nil {
			return res, err
		}
	} else {
		tx.recheckTranslation(ids.translationID)
	}
	if res.Created {
		// Every unit was just inserted and counted on the way.
		return res, applyTranslationStats(tx, ids, created)
	}
	return res, refreshTranslationStats(tx, ids)
}

func loadExisting(tx *Tx, translationID int64) (map[int64]*existingUnit, error) {
	rows, err := tx.Query(`SELECT id, id_hash, position, coalesce(source_unit_id, 0), context, source,
		target, previous_source, note, explanation, flags, location, state, pending FROM units
		WHERE translation_id = ?`, translationID)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := map[int64]*existingUnit{}
	for rows.Next() {
		var e existingUnit
		var hash int64
		if err := rows.Scan(&e.id, &hash, &e.position, &e.sourceUnitID, &e.context, &e.source, &e.target, &e.previousSource,
			&e.note, &e.explanation, &e.flags, &e.location, &e.state, &e.pending); err != nil {
			return nil, err
		}
		out[hash] = &e
	}
	return out, rows.Err()
}

// loadRemovedHashes returns the id_hash of every unit removed from a
// translation through the API since its file was last committed.
func loadRemovedHashes(tx *Tx, translationID int64) (map[int64]bool, error) {
	rows, err := tx.Query(`SELECT id_hash FROM removed_units WHERE translation_id = ?`, translationID)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := map[int64]bool{}
	for rows.Next() {
		var h int64
		if err := rows.Scan(&h); err != nil {
			return nil, err
		}
		out[h] = true
	}
	return out, rows.Err()
}

// loadSourceUnits maps the id_hash of every unit of the source
// translation to its id: a unit's source unit is the one with its id_hash.
func loadSourceUnits(tx *Tx, sourceTranslationID int64) (map[int64]int64, error) {
	rows, err := tx.Query(`SELECT id_hash, id FROM units WHERE translation_id = ?`, sourceTranslationID)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := map[int64]int64{}
	for rows.Next() {
		var hash, id int64
		if err := rows.Scan(&hash, &id); err != nil {
			return nil, err
		}
		out[hash] = id
	}
	return out, rows.Err()
}

// reconcileUnits applies the file's units to the stored ones. Units of a
// translation are linked to their source units (by id_hash, from
// sourceUnits) in the same pass; a source translation's units are linked
// to themselves afterwards, once their ids exist.
//
// Edits not yet committed win over the file (the index is the truth for
// translations until the write-back writes them): a pending unit keeps
// its target and state, and a different target in the file is recorded
// as "String updated in the repository" (59) with that text, so nothing
// is lost either way; a pending unit the file lacks (added through the
// API) stays; a unit removed through the API and still in the file is
// not added back.
func reconcileUnits(tx *Tx, imp index.TranslationImport, preps []unitPrep, ids scopeIDs,
	existing map[int64]*existingUnit, removed map[int64]bool, sourceUnits map[int64]int64, res *index.ImportResult,
	created *index.Stats, newUnits *[]checkedUnit, change func(index.Action, int64, string, string) error) error {
	insert, err := newUnitInserter(tx)
	if err != nil {
		return err
	}
	update, err := tx.prepare(`UPDATE units SET position = ?, context = ?, source = ?, target = ?,
		previous_source = ?, content_hash = ?, location = ?, note = ?, flags = ?, explanation = ?, state = ?,
		num_words = ?, num_chars = ?, timestamp = ? WHERE id = ?`)
	if err != nil {
		return err
	}
	// A source link moves without any content change when the source
	// file is re-imported; that is not an update of this translation.
	relink, err := tx.prepare(`UPDATE units SET source_unit_id = ? WHERE id = ?`)
	if err != nil {
		return err
	}
	unpend, err := tx.prepare(`UPDATE units SET pending = 0, pending_since = NULL WHERE id = ?`)
	if err != nil {
		return err
	}

	now := formatTime(tx.now)
	var format *string // the component's file format, read at the first plural with a hole
	seen := make(map[int64]bool, len(imp.Units))
	for i, in := range imp.Units {
		p := &preps[i]
		hash := p.hash
		if seen[hash] {
			res.Duplicates++
			continue
		}
		seen[hash] = true
		position := i + 1
		source, target := p.source, p.target
		words, chars := p.words, p.chars
		contentHash := p.contentHash
		text := target
		if imp.IsSource {
			text = source
		}
		sourceUnitID := sourceUnits[hash] // 0 for a source translation, linked below

		ex, ok := existing[hash]
		if !ok && removed[hash] {
			continue
		}
		if !ok {
			in.State = imp.NewUnits.State(in, imp.IsSource, imp.IsTemplate)
		}
		if !imp.IsSource && index.NeedsSettling(in.State, in.Target) { // a plural with a hole is not translated
			if format == nil {
				c, err := findComponentByID(tx, imp.ComponentID)
				if err != nil {
					return err
				}
				format = &c.FileFormat
			}
			in.State = index.SettleState(in.State, in.Target, *format)
		}
		if !ok {
			// On SQLite Exec and LastInsertId, not RETURNING: SQLite
			// gathers RETURNING rows in an ephemeral table built and freed
			// per statement, which cost half of a corpus import
			// (dialect.returning).
			// Values database/sql passes on as they are (int64, string,
			// nil): an int, a State or a NullInt64 took its reflective
			// conversion, five of the sixteen per row.
			var sourceArg any // NULL for a source translation's unit, linked below
			if sourceUnitID != 0 {
				sourceArg = sourceUnitID
			}
			row := []any{ids.translationID, int64(position), in.Context, source, target, hash, contentHash,
				in.Location, in.Note, in.Flags, in.Explanation, int64(in.State), int64(words), int64(chars), now, sourceArg}
			res.Added++
			if res.Created {
				// A new translation records no change per unit, so its
				// units need no id back and go in batches.
				created.CountUnit(in.State, words, chars)
				// What the checks read of it (checkCreated): the row
				// as inserted.
				*newUnits = append(*newUnits, checkedUnit{translationID: ids.translationID, hash: hash,
					source: source, target: target, state: in.State, flags: in.Flags, sourceUnitID: sourceUnitID,
					sourceUnit: sourceUnitID == 0, words: words, chars: chars, context: in.Context, hasContext: true})
				if err := insert.queue(row...); err != nil {
					return err
				}
				continue
			}
			id, err := insert.add(row...)
			if err != nil {
				return err
			}
			if err := change(index.ActionStringRepoAdd, id, text, ""); err != nil {
				return err
			}
			continue
		}
		ex.seen = true
		if sourceUnits != nil && ex.sourceUnitID != sourceUnitID {
			if _, err := relink.Exec(nullID(sourceUnitID), ex.id); err != nil {
				return err
			}
			if err := noteRelinked(tx, ex.id); err != nil {
				return err
			}
		}
		state, previous := in.State, ex.previousSource
		upstream := ""
		keep := ex.pending
		if fileText, exText := text, ex.target; keep {
			if imp.IsSource {
				exText = ex.source
			}
			base, known := imp.Base[hash]
			switch {
			case fileText == exText:
			case imp.Base != nil && known && base == fileText:
				// Upstream still holds the text the edit replaced:
				// no conflict, nothing to record.
			case imp.TakeUpstream:
				// Upstream changed the string too and the component
				// takes upstream's text; the edit stays in the history.
				keep = false
				if _, err := unpend.Exec(ex.id); err != nil {
					return err
				}
			default:
				upstream = fileText
			}
		}
		if keep {
			// The translator's edit wins; the file's differing text is
			// kept in the history.
			if imp.IsSource {
				source, in.Source, contentHash = ex.source, index.SplitPlural(ex.source), index.HashParts(ex.source, in.Context)
				words, chars = index.CountWords(in.Source), (&index.Unit{Source: in.Source}).NumChars()
			}
			target, state = ex.target, ex.state
			text = target
			if imp.IsSource {
				text = source
			}
		}
		switch {
		case templateStateKept(imp, in, ex.state):
			// A template's file says nothing of its strings' review
			// (the import reads every one as read-only, 100): one the
			// index holds edited, approved or marked under source
			// review keeps that state while upstream holds its text,
			// as the reference keeps a state no file stores. A text
			// changed upstream is translated (20, "waiting for review"
			// under source review): the reference's get_unit_state
			// with string_changed drops both the approval and the
			// needs-editing mark, as nobody reviewed the new text.
			state = ex.state
			switch {
			case ex.source != source && index.IsBlank(in.Target):
				state = index.StateEmpty
			case ex.source != source:
				state = index.StateTranslated
			}
			if !state.Fuzzy() {
				previous = ""
			}
		case keep && !imp.IsSource && ex.source != source:
			// The source moved under a pending translation: it is kept,
			// and flagged for review against the new source.
			state, previous = index.StateNeedsRewriting, ex.source
		case !imp.IsSource && ex.source != source && target != "" && ex.target == target:
			// The source text moved under an existing translation
			// (approved or not): like the reference, keep the
			// translation but flag it "needs rewriting" (11) against the
			// new source, which re-opens its review.
			state, previous = index.StateNeedsRewriting, ex.source
		case ex.state.Fuzzy() && ex.target == target && ex.source == source:
			// The file format cannot say "fuzzy", or says only 10; keep
			// the index's mark.
			state = ex.state
		case ex.state == index.StateApproved && state == index.StateTranslated && ex.target == target && ex.source == source:
			// Nor "approved" (JSON cannot): a string the file holds
			// unchanged keeps its approval, as the reference keeps it
			// for such formats. Unlike the reference, a text changed
			// upstream is not approved any more: nobody reviewed it.
			state, previous = ex.state, ""
		case !state.Fuzzy():
			previous = ""
		}
		if !imp.IsSource && ex.source != source {
			// The unit leaves its old string's group (inconsistent.go).
			tx.inconsistentLeft(ids.projectID, ids.componentID, ids.languageCode)
		}
		if !imp.IsSource && ex.source != source && state == index.StateNeedsRewriting && ex.state != state {
			// The history says why a string left its state (an approved
			// one its approval): "Source string changed" (30), as a
			// template edit records it, with both states.
			details, err := json.Marshal(sourceChangeDetails{Old: ex.source, State: state, OldState: ex.state})
			if err != nil {
				return err
			}
			if err := change(index.ActionSourceChange, ex.id, source, string(details)); err != nil {
				return err
			}
		}
		if upstream != "" {
			if err := change(index.ActionStringRepoUpdate, ex.id, upstream, `{"kept":"pending edit"}`); err != nil {
				return err
			}
		}
		if ex.position == position && ex.context == in.Context && ex.source == source && ex.target == target &&
			ex.previousSource == previous && ex.note == in.Note && ex.explanation == in.Explanation &&
			ex.flags == in.Flags && ex.location == in.Location && ex.state == state {
			continue
		}
		if _, err := update.Exec(position, in.Context, source, target, previous, contentHash,
			in.Location, in.Note, in.Flags, in.Explanation, state, words, chars, now, ex.id); err != nil {
			return err
		}
		res.Updated++
		textBefore := ex.target
		if imp.IsSource {
			textBefore = ex.source
		}
		if textBefore != text {
			if err := change(index.ActionStringRepoUpdate, ex.id, text, ""); err != nil {
				return err
			}
		}
	}
	if err := insert.noted(); err != nil {
		return err
	}

	var gone []*existingUnit
	var live map[int64]bool // source unit ids, built when a pending unit needs it
	for _, ex := range existing {
		if ex.seen {
			continue
		}
		if ex.pending && sourceUnits != nil && ex.sourceUnitID != 0 {
			// A pending unit the file lacks stays, unless its source
			// unit is gone (removeOrphans).
			if live == nil {
				live = make(map[int64]bool, len(sourceUnits))
				for _, id := range sourceUnits {
					live[id] = true
				}
			}
			ex.pending = live[ex.sourceUnitID]
		}
		if !ex.pending {
			gone = append(gone, ex)
		}
	}
	slices.SortFunc(gone, func(a, b *existingUnit) int { return cmp.Compare(a.id, b.id) })
	if len(gone) > 0 && !imp.IsSource {
		tx.inconsistentLeft(ids.projectID, ids.componentID, ids.languageCode)
	}
	if err := deleteUnits(tx, gone); err != nil {
		return err
	}
	for _, ex := range gone {
		res.Removed++
		// The unit row is gone: the change keeps its text, as the
		// reference's "String removed" (63) does.
		text := ex.target
		if imp.IsSource {
			text = ex.source
		}
		if err := change(index.ActionStringRemove, 0, text, ""); err != nil {
			return err
		}
	}
	return nil
}

// unitDeleteBatch is how many units one DELETE removes. The statement
// triggers that keep list_counts (migration 0002) then update each bucket
// row once per batch rather than once per unit: PostgreSQL keeps every
// version of an updated row until the commit.
const unitDeleteBatch = 64

// deleteUnits deletes units, unitDeleteBatch at a time.
func deleteUnits(tx *Tx, units []*existingUnit) error {
	if err := countBeforeDelete(tx); err != nil {
		return err
	}
	ids := make([]any, 0, unitDeleteBatch)
	for start := 0; start < len(units); start += unitDeleteBatch {
		ids = ids[:0]
		for _, ex := range units[start:min(start+unitDeleteBatch, len(units))] {
			ids = append(ids, ex.id)
		}
		// A full batch is prepared once: SQLite compiles the triggers and
		// foreign key actions a delete fires into the statement.
		del, err := tx.prepare(`DELETE FROM units WHERE id IN (?` + strings.Repeat(", ?", len(ids)-1) + `)`)
		if err != nil {
			return err
		}
		if _, err := del.Exec(ids...); err != nil {
			return err
		}
	}
	return nil
}

// removeOrphans deletes the units of a translation whose source unit is
// gone, recording "String removed" (63) with each one's text, and
// returns how many it deleted. A translation whose file parses loses
// them when its units are reconciled with the new source; one whose file
// does not parse is not reconciled, and would otherwise keep units that
// link to a removed source unit (a 404) and count in every total. The
// reference deletes them too: its source_unit foreign key cascades.
// Pending edits among them go as well, their text kept in the change.
func removeOrphans(tx *Tx, translationID int64,
	change func(index.Action, int64, string, string) error) (int, error) {
	rows, err := tx.Query(`SELECT u.id, u.target FROM units u
		WHERE u.translation_id = ? AND u.source_unit_id IS NOT NULL AND u.source_unit_id != u.id
		AND NOT EXISTS (SELECT 1 FROM units s WHERE s.id = u.source_unit_id)
		ORDER BY u.id`, translationID)
	if err != nil {
		return 0, err
	}
	type orphan struct {
		id     int64
		target string
	}
	var orphans []orphan
	defer rows.Close()
	for rows.Next() {
		var o orphan
		if err := rows.Scan(&o.id, &o.target); err != nil {
			return 0, err
		}
		orphans = append(orphans, o)
	}
	if err := rows.Err(); err != nil {
		return 0, err
	}
	rows.Close()
	if err := countBeforeDelete(tx); err != nil {
		return 0, err
	}
	if len(orphans) > 0 {
		ids, err := translationScope(tx, translationID)
		if err != nil {
			return 0, err
		}
		tx.inconsistentLeft(ids.projectID, ids.componentID, ids.languageCode)
	}
	for _, o := range orphans {
		if _, err := tx.Exec(`DELETE FROM units WHERE id = ?`, o.id); err != nil {
			return 0, err
		}
		if err := change(index.ActionStringRemove, 0, o.target, ""); err != nil {
			return 0, err
		}
	}
	return len(orphans), nil
}

// linkSourceToItself links the units of a source translation to
// themselves; only units added by this import need it.
func linkSourceToItself(tx *Tx, translationID int64) error {
	_, err := tx.Exec(`UPDATE units SET source_unit_id = id
		WHERE translation_id = ? AND source_unit_id IS DISTINCT FROM id`, translationID)
	return err
}

// templateStateKept reports whether a template's string, in the file as
// in, takes its state from the index (reconcileUnits): the file gives it
// the template's read-only 100 without flagging it read-only, and the
// index holds another state (an edit, a review, a needs-editing mark).
func templateStateKept(imp index.TranslationImport, in index.ImportUnit, stored index.State) bool {
	return imp.IsSource && imp.IsTemplate && in.State == index.StateReadOnly && stored != index.StateReadOnly &&
		!index.HasFlag(in.Flags, "read-only")
}
