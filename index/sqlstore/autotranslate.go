package sqlstore

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/tolk-project/tolk/index"
)

// Automatic translation (reference workspace §6.3) as jobs: a job's row
// (migration 0036) holds its request and a cursor, the last unit id
// done. The units are taken in id order a batch at a time; each batch's
// edits and the job's new cursor commit in one write, so the writer is
// never held for a whole translation and a job killed midway resumes
// after its last batch with no unit done twice.

// autoJobColumns are an autotranslate_jobs row as scanAutoJob reads it.
const autoJobColumns = `id, project_id, component_id, translation_id, coalesce(user_id, 0), params, cursor,
	total, done, updated, completed, error, created, coalesce(finished, '')`

func scanAutoJob(row interface{ Scan(...any) error }) (index.AutoTranslateJob, error) {
	var j index.AutoTranslateJob
	var params, created, finished string
	err := row.Scan(&j.ID, &j.ProjectID, &j.ComponentID, &j.TranslationID, &j.UserID, &params, &j.Cursor,
		&j.Total, &j.Done, &j.Updated, &j.Completed, &j.Err, &created, &finished)
	if err != nil {
		return j, err
	}
	if err := json.Unmarshal([]byte(params), &j.Params); err != nil {
		return j, fmt.Errorf("autotranslate job %s: parameters: %w", j.ID, err)
	}
	j.Created = parseTime(created)
	if finished != "" {
		j.Finished = parseTime(finished)
	}
	return j, nil
}

// autoUnitWhere selects the units a job works on after a cursor: the
// translation's units matching its search, never read-only ones, and in
// suggest mode not those that have a suggestion already (as the
// reference's AutoTranslate.get_units).
func autoUnitWhere(j *index.AutoTranslateJob, postgres bool, now time.Time, after int64) (string, []any, error) {
	where, args, err := unitWhere(index.UnitFilter{TranslationID: j.TranslationID, Query: j.Params.Query}, postgres, now)
	if err != nil {
		return "", nil, err
	}
	where += " AND id > ? AND state != ?"
	args = append(args, after, index.StateReadOnly)
	if j.Params.Mode == index.AutoSuggest {
		where += " AND has_suggestion = 0"
	}
	return where, args, nil
}

// CreateAutoTranslateJob stores a new job, counting the units it will
// look at as its Total, and returns it as stored. A search the index
// cannot run is an error wrapping ErrInvalid.
func (db *DB) CreateAutoTranslateJob(ctx context.Context, j index.AutoTranslateJob) (index.AutoTranslateJob, error) {
	params, err := json.Marshal(j.Params)
	if err != nil {
		return j, err
	}
	where, args, err := autoUnitWhere(&j, db.dialect.name == "postgres", db.now(), 0)
	if err != nil {
		return j, err
	}
	cctx, cancel := context.WithTimeout(ctx, searchTimeout)
	defer cancel()
	if err := db.r.QueryRowContext(cctx, `SELECT count(*) FROM units`+where, args...).Scan(&j.Total); err != nil {
		return j, formatError(searchError(cctx, err))
	}
	err = db.write(ctx, func(tx *Tx) error {
		j.Created = tx.now
		_, err := tx.Exec(`INSERT INTO autotranslate_jobs (id, project_id, component_id, translation_id, user_id,
			params, total, created) VALUES (?, ?, ?, ?, ?, ?, ?, ?)`, j.ID, j.ProjectID, j.ComponentID,
			j.TranslationID, nullID(j.UserID), string(params), j.Total, formatTime(tx.now))
		return err
	})
	return j, formatError(err)
}

// FindAutoTranslateJob returns a job, or an error wrapping ErrNotFound.
func (db *DB) FindAutoTranslateJob(ctx context.Context, id string) (index.AutoTranslateJob, error) {
	j, err := scanAutoJob(db.r.QueryRowContext(ctx, `SELECT `+autoJobColumns+` FROM autotranslate_jobs WHERE id = ?`, id))
	return j, formatError(err)
}

// AutoTranslateJobs returns the jobs kept, newest first: all of them, or
// with open only those not completed (what a restart resumes).
func (db *DB) AutoTranslateJobs(ctx context.Context, open bool) ([]index.AutoTranslateJob, error) {
	cond := ""
	if open {
		cond = " WHERE completed = 0"
	}
	rows, err := db.r.QueryContext(ctx, `SELECT `+autoJobColumns+` FROM autotranslate_jobs`+cond+
		` ORDER BY created DESC, id`)
	if err != nil {
		return nil, formatError(err)
	}
	defer rows.Close()
	var out []index.AutoTranslateJob
	for rows.Next() {
		j, err := scanAutoJob(rows)
		if err != nil {
			return nil, formatError(err)
		}
		out = append(out, j)
	}
	return out, formatError(rows.Err())
}

// NextAutoTranslateUnits returns the next units a job works on, after
// its cursor, at most limit, in id order.
func (db *DB) NextAutoTranslateUnits(ctx context.Context, j index.AutoTranslateJob, limit int) ([]index.Unit, error) {
	where, args, err := autoUnitWhere(&j, db.dialect.name == "postgres", db.now(), j.Cursor)
	if err != nil {
		return nil, err
	}
	cctx, cancel := context.WithTimeout(ctx, searchTimeout)
	defer cancel()
	rows, err := db.r.QueryContext(cctx, `SELECT `+unitColumns+` FROM units`+where+` ORDER BY id LIMIT ?`,
		withArgs(args, limit)...)
	if err != nil {
		return nil, formatError(searchError(cctx, err))
	}
	units, err := scanUnits(rows, limit)
	return units, formatError(searchError(cctx, err))
}

// ErrAutoJobDone is a batch for a job that is completed (cancelled).
var ErrAutoJobDone = index.Errorf(index.ErrConflict, "The automatic translation is no longer running.")

// ApplyAutoTranslateBatch writes one batch of a job in one transaction
// and returns how many units it changed: each result becomes a
// suggestion (mode suggest; a text the unit has or refuses is skipped)
// or the unit's target in the mode's state, recorded as "Automatically
// translated" (6) and marked automatically_translated. Units that became
// read-only, or approved under review when the mode is not approved,
// are skipped. The job's cursor, done and updated move in the same
// transaction; a batch whose cursor the job has passed already (a retry
// after a lost answer) changes nothing and answers 0.
func (db *DB) ApplyAutoTranslateBatch(ctx context.Context, jobID string, b index.AutoBatch) (int, error) {
	db.bulkWriting()
	var updated int
	err := db.writeNarrow(ctx, func(tx *Tx) error {
		updated = 0
		j, err := scanAutoJob(tx.QueryRow(`SELECT `+autoJobColumns+` FROM autotranslate_jobs WHERE id = ?`, jobID))
		if err != nil {
			return err
		}
		if j.Completed {
			return ErrAutoJobDone
		}
		if b.Cursor <= j.Cursor {
			return nil
		}
		t, err := findTranslationTx(tx, j.TranslationID)
		if err != nil {
			return err
		}
		e := bulkEditor(tx, &t, index.Actor{UserID: j.UserID, AuthorID: j.UserID})
		review := t.ReviewEnabled()
		units, err := autoUnits(tx, t.ID, b.Results)
		if err != nil {
			return err
		}
		sources := make([]int64, 0, len(units))
		for _, u := range units {
			if u.SourceUnitID != u.ID {
				sources = append(sources, u.SourceUnitID)
			}
		}
		if err := tx.readSourceExtraFlags(sources); err != nil {
			return err
		}
		for _, r := range b.Results {
			u, ok := units[r.UnitID]
			if !ok {
				continue // removed since it was read, or another translation's
			}
			if u.State == index.StateReadOnly || (review && u.State == index.StateApproved && j.Params.Mode != index.AutoApproved) {
				continue
			}
			if len(r.Target) != index.PluralForms(&u, t.Language.Plural.Number) {
				continue // the plural forms do not fit the language
			}
			// The change is the credited user's: whoever made the
			// memory match copied (AutoResult.UserID), else who asked.
			actor := index.Actor{UserID: j.UserID, AuthorID: j.UserID}
			if r.UserID != 0 {
				actor = index.Actor{UserID: r.UserID, AuthorID: r.UserID}
			}
			if actor != e.actor {
				e.actor, e.contributorChecked = actor, false
			}
			changed, err := applyAutoResult(e, &u, &t, &j, r, review)
			if err != nil {
				return err
			}
			if changed {
				updated++
			}
		}
		if err := e.finish(); err != nil {
			return err
		}
		if _, err := settleChecks(tx); err != nil {
			return err
		}
		_, err = tx.Exec(`UPDATE autotranslate_jobs SET cursor = ?, done = done + ?, updated = updated + ?
			WHERE id = ?`, b.Cursor, b.Seen, updated, jobID)
		return err
	})
	return updated, formatError(err)
}

// autoUnits reads the units of translation translationID that results
// name, as they stand in tx, in one statement: a unit at a time was a
// round trip per string, most of a batch's time on PostgreSQL.
func autoUnits(tx *Tx, translationID int64, results []index.AutoResult) (map[int64]index.Unit, error) {
	out := make(map[int64]index.Unit, len(results))
	if len(results) == 0 {
		return out, nil
	}
	ids := make([]int64, len(results))
	for i, r := range results {
		ids[i] = r.UnitID
	}
	list, args := idList(ids)
	rows, err := tx.Query(`SELECT `+unitColumns+` FROM units WHERE translation_id = ? AND id IN `+list,
		append([]any{translationID}, args...)...)
	if err != nil {
		return nil, err
	}
	units, err := scanUnits(rows, len(ids))
	for _, u := range units {
		out[u.ID] = u
	}
	return out, err
}

// applyAutoResult writes one result to u: a suggestion or an edit.
func applyAutoResult(e *unitEditor, u *index.Unit, t *index.Translation, j *index.AutoTranslateJob,
	r index.AutoResult, review bool) (bool, error) {
	if j.Params.Mode == index.AutoSuggest {
		if err := index.ValidateSuggestion(u, t, r.Target); err != nil {
			return false, nil
		}
		out, err := addSuggestion(e, u, t, index.NewSuggestion{Target: r.Target, UserID: e.actor.UserID}, index.SuggestionRights{})
		var fe *index.FieldError
		if errors.As(err, &fe) {
			return false, nil // similar to the translation, or suggested already
		}
		return err == nil && out.Result == index.SuggestionCreated, err
	}
	// No automatic fixups: the reference's AutoTranslate saves the text
	// as found (Unit.translate), and they read each unit's flags, a
	// round trip per string on PostgreSQL.
	e.auto = true
	return e.edit(u, index.UnitEdit{Target: r.Target, State: j.Params.State(review)}, index.ActionAutoTranslated)
}

// FinishAutoTranslateJob marks a job completed, with the error that
// ended it ("" on success). A job already completed keeps its end.
func (db *DB) FinishAutoTranslateJob(ctx context.Context, id, errText string) error {
	err := db.write(ctx, func(tx *Tx) error {
		_, err := tx.Exec(`UPDATE autotranslate_jobs SET completed = 1, error = ?, finished = ?
			WHERE id = ? AND completed = 0`, errText, formatTime(tx.now), id)
		return err
	})
	return formatError(err)
}

// PruneAutoTranslateJobs removes the jobs completed longer than age ago
// by the index's clock, and returns how many.
func (db *DB) PruneAutoTranslateJobs(ctx context.Context, age time.Duration) (int, error) {
	var n int64
	err := db.write(ctx, func(tx *Tx) error {
		res, err := tx.Exec(`DELETE FROM autotranslate_jobs WHERE completed = 1 AND finished < ?`,
			formatTime(tx.now.Add(-age)))
		if err == nil {
			n, err = res.RowsAffected()
		}
		return err
	})
	return int(n), formatError(err)
}
