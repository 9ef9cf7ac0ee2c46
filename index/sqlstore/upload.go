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

	"github.com/tolk-project/tolk/index"
)

// errPluralMismatch is the reference's answer to a file whose plural
// forms differ from the language's.
var errPluralMismatch = &index.FieldError{Fields: map[string]index.FieldProblem{
	"file": {Code: "invalid", Detail: "Plural forms do not match the language."}}}

// ApplyUpload applies a parsed file to the translation with the given id
// in one transaction: the merge methods (translate, fuzzy, approve) edit
// the matching units through the unit editor, recording "Translation
// uploaded" (9) per unit written, and add inserts the strings the
// translation lacks, suggest adds suggestions (suggestUpload). Either way one "File uploaded" (78) change follows
// with the counts, and the statistics are updated once. A file whose
// plural forms do not fit the language answers a FieldError on "file"
// and stores nothing. Other methods answer ErrInvalid: the API refuses
// them before parsing.
func (db *DB) ApplyUpload(ctx context.Context, translationID int64, up index.Upload) (index.UploadResult, error) {
	var res index.UploadResult
	// Narrow: it writes units of the translation through its editor,
	// changes, statistics and perhaps the author's user row, which no
	// cache holds. Scoped (writers.go) unless it may create that user,
	// whose name and address other scopes share.
	write := db.writeNarrow
	if up.AuthorEmail == "" {
		write = func(ctx context.Context, fn func(*Tx) error) error {
			return db.writeScoped(ctx, writeScope{scopeTranslation, translationID}, fn)
		}
	}
	err := write(ctx, func(tx *Tx) error {
		actor := index.Actor{UserID: up.UserID, AuthorID: up.UserID}
		if up.AuthorEmail != "" {
			author, err := authorByEmail(tx, up.AuthorName, up.AuthorEmail)
			if err != nil {
				return fmt.Errorf("upload author: %w", err)
			}
			actor.AuthorID = author
		}
		t, err := findTranslationTx(tx, translationID)
		if err != nil {
			return err
		}
		e := bulkEditor(tx, &t, actor)
		shape := translationShape{monolingual: t.Component.IsMonolingual(), template: t.IsTemplate,
			plurals: t.Language.Plural.Number}
		switch {
		case up.Method.Merges():
			res, err = mergeUpload(e, &t, shape, &up)
		case up.Method == index.UploadAdd:
			res, err = addUpload(e, shape, &up)
		case up.Method == index.UploadReplace:
			res, err = replaceUpload(e, shape, &up)
		case up.Method == index.UploadSuggest:
			res, err = suggestUpload(e, &t, shape, &up)
		default:
			err = index.Errorf(index.ErrInvalid, "Upload method %q is not supported.", up.Method)
		}
		if err != nil {
			return err
		}
		details, err := json.Marshal(struct {
			Method   index.UploadMethod `json:"method"`
			NotFound int                `json:"not_found"`
			Skipped  int                `json:"skipped"`
			Accepted int                `json:"accepted"`
			Total    int                `json:"total"`
		}{up.Method, res.NotFound, res.Skipped, res.Accepted, res.Total})
		if err != nil {
			return err
		}
		if err := e.change(index.ActionFileUpload, 0, "", string(details)); err != nil {
			return err
		}
		return e.finish()
	})
	if err != nil {
		return index.UploadResult{}, err
	}
	return res, nil
}

// mergeUpload is the reference's merge_translations: every considered
// unit of the file is matched to the translation's unit with its id_hash
// and written when the upload's rules allow it.
//
// Each string written is propagated (propagateUnits, all of them once
// the file's strings are written), as the reference's merge_translations
// saves each through Unit.translate; like it, Tolk looks for the same
// strings only when the project has a translation to propagate to. A
// replace or add upload propagates nothing, as there.
func mergeUpload(e *unitEditor, t *index.Translation, shape translationShape, up *index.Upload) (index.UploadResult, error) {
	res := index.UploadResult{Total: len(up.Units)}
	units, err := loadUnitsByHash(e.tx, e.ids.translationID)
	if err != nil {
		return res, err
	}
	var written []*index.Unit
	for i := range up.Units {
		in := &up.Units[i]
		ok, fuzzy := up.Considers(in)
		if !ok {
			continue
		}
		u, found := units[index.IDHash(shape.monolingual, in.Source, in.Context)]
		if !found {
			res.NotFound++
			continue
		}
		if len(in.Target) != index.PluralForms(u, shape.plurals) {
			return res, errPluralMismatch
		}
		ed, ok := up.MergeEdit(u, in, fuzzy)
		if !ok {
			res.Skipped++
			continue
		}
		if err := index.CheckUploadText(in, ed.Target, shape.sourceOf(u)); err != nil {
			return res, err
		}
		edited, err := e.edit(u, ed, index.ActionUpload)
		if err != nil {
			return res, err
		}
		if edited {
			written = append(written, u)
		}
		res.Accepted++
	}
	return res, propagateUnits(e.tx, t, written, e.actor)
}

// replaceUpload makes the translation hold what the file holds: every
// unit of the file takes the file's target (translated, or needing
// editing where the file says so), and every unit the file lacks becomes
// untranslated. The reference overwrites the file byte for byte and
// commits it; Tolk records the same content as pending edits, so the next
// commit writes them into the file with only the changed values' bytes
// touched, as every other edit. A unit whose text the file repeats keeps
// its state (an approved string stays approved). Read-only units are
// skipped. One "Translation replaced file by upload" (54) follows the
// units' changes. Accepted counts the file's units the translation now
// holds, as the reference counts a re-parse.
func replaceUpload(e *unitEditor, shape translationShape, up *index.Upload) (index.UploadResult, error) {
	res := index.UploadResult{Total: len(up.Units)}
	units, err := loadUnitsByHash(e.tx, e.ids.translationID)
	if err != nil {
		return res, err
	}
	inFile := make(map[int64]bool, len(up.Units))
	for i := range up.Units {
		in := &up.Units[i]
		hash := index.IDHash(shape.monolingual, in.Source, in.Context)
		u, found := units[hash]
		if !found {
			res.NotFound++
			continue
		}
		inFile[hash] = true
		if u.State == index.StateReadOnly {
			res.Skipped++
			continue
		}
		if len(in.Target) != index.PluralForms(u, shape.plurals) {
			return res, errPluralMismatch
		}
		res.Accepted++
		if slices.Equal(u.Target, in.Target) {
			continue
		}
		if err := index.CheckUploadText(in, in.Target, shape.sourceOf(u)); err != nil {
			return res, err
		}
		state := index.StateTranslated
		switch {
		case index.IsBlank(in.Target):
			state = index.StateEmpty
		case in.State == index.StateFuzzy:
			state = index.StateFuzzy
		}
		if _, err := e.edit(u, index.UnitEdit{Target: slices.Clone(in.Target), State: state}, index.ActionUpload); err != nil {
			return res, err
		}
	}
	// Units the file lacks, in id order so that their changes are too.
	var gone []*index.Unit
	for hash, u := range units {
		if !inFile[hash] && u.State != index.StateReadOnly && u.State != index.StateEmpty {
			gone = append(gone, u)
		}
	}
	slices.SortFunc(gone, func(a, b *index.Unit) int { return cmp.Compare(a.ID, b.ID) })
	for _, u := range gone {
		empty := index.UnitEdit{Target: make([]string, len(u.Target)), State: index.StateEmpty}
		if _, err := e.edit(u, empty, index.ActionUpload); err != nil {
			return res, err
		}
	}
	return res, e.change(index.ActionReplaceUpload, 0, "", "")
}

// translationShape is what an upload needs to know of its translation:
// whether its component is monolingual (units are identified by context
// alone), whether it is the template, and how many plural forms its
// language has (the language table's, 2 for a language it lacks).
type translationShape struct {
	monolingual, template bool
	plurals               int
}

// sourceOf is what a text uploaded to u is measured against
// (index.CheckText): u's source string, or nil in a template, whose
// texts are source strings.
func (s translationShape) sourceOf(u *index.Unit) []string {
	if s.template {
		return nil
	}
	return u.Source
}

// loadUnitsByHash reads a translation's units by id_hash, as the
// transaction sees them.
func loadUnitsByHash(tx *Tx, translationID int64) (map[int64]*index.Unit, error) {
	rows, err := tx.Query(`SELECT `+unitColumns+` FROM units WHERE translation_id = ?`, translationID)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := map[int64]*index.Unit{}
	for rows.Next() {
		u, err := scanUnit(rows)
		if err != nil {
			return nil, err
		}
		out[u.IDHash] = &u
	}
	return out, rows.Err()
}

// authorByEmail returns the id of the user an upload credits, as the
// reference's get_author_by_email: the user with that address (ignoring
// case, active users first), or a new inactive user named after it, who
// can never sign in but owns the changes.
func authorByEmail(tx *Tx, name, email string) (int64, error) {
	var id int64
	err := tx.QueryRow(`SELECT id FROM users WHERE lower(email) = lower(?)
		ORDER BY is_active DESC, id LIMIT 1`, email).Scan(&id)
	if !errors.Is(err, sql.ErrNoRows) {
		return id, err
	}
	if name == "" {
		name, _, _ = strings.Cut(email, "@")
	}
	// The address is the username, as the reference names such users;
	// a clash with another user's name takes a numbered one.
	username := email
	for n := 2; ; n++ {
		err := tx.QueryRow(`INSERT INTO users (username, full_name, email, is_active, date_joined)
			VALUES (?, ?, ?, 0, ?) ON CONFLICT (username) DO NOTHING RETURNING id`,
			username, name, email, formatTime(tx.now)).Scan(&id)
		if !errors.Is(err, sql.ErrNoRows) {
			return id, err
		}
		username = fmt.Sprintf("%s-%d", email, n)
	}
}

// FindPendingUnits returns the units of a translation edited since the
// file was last committed (pending), in id order: what a download shows
// on top of the committed file, and what the next commit writes.
func (db *DB) FindPendingUnits(ctx context.Context, translationID int64) ([]index.Unit, error) {
	rows, err := db.r.QueryContext(ctx, db.dialect.findPendingUnits(), translationID)
	if err != nil {
		return nil, formatError(err)
	}
	units, err := scanUnits(rows, 0)
	return units, formatError(err)
}

// findPendingUnits is FindPendingUnits' statement, which takes the
// translation's id. On SQLite the pending units are units' own rows
// (pendingUnits' units u, the partial index units_pending), read in one
// search of the index, already in id order; read through an IN
// subquery of the same rows they were read twice (EXPLAIN QUERY PLAN:
// the subquery's list, then a search by rowid for each unit, ≈ 10% of
// the call for 60 units). On PostgreSQL they are a probe of the side
// table unit_pending, then each unit by its key.
func (d *dialect) findPendingUnits() string {
	from, where, id := d.pendingUnits(true, false)
	if d.name != "postgres" {
		return `SELECT ` + unitColumns + ` FROM ` + from + ` WHERE ` + where + ` ORDER BY id`
	}
	return `SELECT ` + unitColumns + ` FROM units WHERE id IN (SELECT ` + id + ` FROM ` + from + ` WHERE ` + where + `) ORDER BY id`
}

// errAddNotMonolingual answers an add upload anywhere but the template of
// a monolingual component; the API refuses those first.
var errAddNotMonolingual = index.Errorf(index.ErrInvalid,
	"Strings can only be added by uploading to the source language of a monolingual component.")

// addUpload is the reference's handle_add_upload for a monolingual
// component's template: every key of the file the template lacks becomes
// a new source string, pending so that the template file gains it, and
// an untranslated unit in every other translation, as adding a string
// through the API does. Keys already present (or repeated in the file)
// are skipped; units the file marks as needing editing are left out
// unless the upload processes them.
func addUpload(e *unitEditor, shape translationShape, up *index.Upload) (index.UploadResult, error) {
	res := index.UploadResult{Total: len(up.Units)}
	if !shape.monolingual || !shape.template {
		return res, errAddNotMonolingual
	}
	existing, err := loadUnitsByHash(e.tx, e.ids.translationID)
	if err != nil {
		return res, err
	}
	others, err := otherEditors(e)
	if err != nil {
		return res, err
	}
	for i := range up.Units {
		in := &up.Units[i]
		if in.State == index.StateFuzzy && up.Fuzzy == index.FuzzySkip {
			continue
		}
		hash := index.IDHash(true, nil, in.Context)
		if _, ok := existing[hash]; ok {
			res.Skipped++
			continue
		}
		source := in.Source
		if len(source) == 0 {
			source = in.Target
		}
		if err := index.CheckUploadText(in, append([]string{in.Context}, source...), nil); err != nil {
			return res, err
		}
		src := index.Unit{Context: in.Context, Source: source, Target: source, IDHash: hash,
			ContentHash: index.ContentHash(source, in.Context), Note: in.Note, Explanation: in.Explanation,
			Flags: in.Flags, State: index.StateReadOnly, NumWords: index.CountWords(source)}
		if err := e.add(&src, true); err != nil {
			return res, err
		}
		existing[hash] = &src
		for _, o := range others {
			u := index.Unit{Context: in.Context, Source: source, Target: []string{""}, IDHash: hash,
				ContentHash: src.ContentHash, Explanation: in.Explanation, State: index.StateEmpty,
				NumWords: src.NumWords, SourceUnitID: src.ID}
			if err := o.add(&u, false); err != nil {
				return res, err
			}
		}
		res.Accepted++
	}
	for _, o := range others {
		if err := o.finish(); err != nil {
			return res, err
		}
	}
	return res, nil
}

// otherEditors returns an editor, for e's actor, of every other
// translation of e's component.
func otherEditors(e *unitEditor) ([]*unitEditor, error) {
	scopes, err := componentScopes(e.tx, e.ids.componentID, e.ids.translationID, nil)
	if err != nil {
		return nil, err
	}
	out := make([]*unitEditor, len(scopes))
	for i, ids := range scopes {
		out[i] = editorFor(e.tx, ids, e.actor)
	}
	return out, nil
}
