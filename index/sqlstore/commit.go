package sqlstore

import (
	"context"
	"database/sql"
	"errors"
	"strconv"
	"strings"

	"github.com/tolk-project/tolk/index"
)

// contentActionList is the SQL list of the actions that change a unit's
// content, whose author is the author of a pending edit.
var contentActionList = func() string {
	var ids []string
	for a := index.Action(0); a < 128; a++ {
		if a.IsContent() {
			ids = append(ids, strconv.Itoa(int(a)))
		}
	}
	return strings.Join(ids, ", ")
}()

// PendingAuthors returns, for each pending unit of a translation, the
// author of its last content change (the change's author, else its
// user): who a commit names as the author of that edit. Units whose
// changes name nobody, or a user since removed, are left out.
func (db *DB) PendingAuthors(ctx context.Context, translationID int64) (map[int64]index.User, error) {
	from, where, _ := db.dialect.pendingUnits(true, true)
	rows, err := db.r.QueryContext(ctx, `SELECT u.id, us.id, us.username, us.full_name, us.email, us.is_active,
			us.is_bot, us.is_superuser, us.date_joined
		FROM `+from+`
		JOIN changes c ON c.id = (SELECT max(id) FROM changes
			WHERE unit_id = u.id AND action IN (`+contentActionList+`))
		JOIN users us ON us.id = coalesce(c.author_id, c.user_id)
		WHERE `+where, translationID)
	if err != nil {
		return nil, formatError(err)
	}
	defer rows.Close()
	out := map[int64]index.User{}
	for rows.Next() {
		var unitID int64
		var u index.User
		var joined string
		if err := rows.Scan(&unitID, &u.ID, &u.Username, &u.FullName, &u.Email, &u.IsActive, &u.IsBot,
			&u.IsSuperuser, &joined); err != nil {
			return nil, err
		}
		u.Joined = parseTime(joined)
		out[unitID] = u
	}
	return out, formatError(rows.Err())
}

// FindUserByID returns the user with the given id, or ErrNotFound.
func (db *DB) FindUserByID(ctx context.Context, id int64) (index.User, error) {
	u, err := scanUser(db.r.QueryRowContext(ctx, `SELECT `+userColumns+` FROM users WHERE id = ?`, id))
	return u, formatError(err)
}

// MarkCommitted makes the index forget what a commit wrote, in one
// transaction: units stop being pending (unless their target changed since), removed
// units and pending files done are deleted, revisions are set and
// "Changes committed" (17) is recorded per translation that asks for it,
// with the user set and no author; rec.Head, when set, is recorded with
// them (RecordGitHead).
func (db *DB) MarkCommitted(ctx context.Context, rec index.Committed) error {
	return db.write(ctx, func(tx *Tx) error {
		clear, err := tx.prepare(`UPDATE units SET pending = 0, pending_since = NULL
			WHERE id = ? AND translation_id = ? AND target = ?`)
		if err != nil {
			return err
		}
		for _, t := range rec.Translations {
			for _, u := range t.Units {
				if _, err := clear.Exec(u.ID, t.TranslationID, index.JoinPlural(u.Target)); err != nil {
					return err
				}
			}
			for _, id := range t.Removed {
				if _, err := tx.Exec(`DELETE FROM removed_units WHERE id = ? AND translation_id = ?`,
					id, t.TranslationID); err != nil {
					return err
				}
			}
			if t.Revision != "" {
				if _, err := tx.Exec(`UPDATE translations SET revision = ? WHERE id = ?`,
					t.Revision, t.TranslationID); err != nil {
					return err
				}
			}
			if !t.Record {
				continue
			}
			ch := index.Change{Action: index.ActionCommit, ComponentID: rec.ComponentID,
				TranslationID: t.TranslationID, UserID: rec.UserID}
			ids, err := translationScope(tx, t.TranslationID)
			if err != nil {
				return err
			}
			ch.ProjectID, ch.LanguageCode = ids.projectID, ids.languageCode
			if err := insertChange(tx, ch); err != nil {
				return err
			}
		}
		for _, f := range rec.Files {
			if _, err := tx.Exec(`DELETE FROM pending_files WHERE component_id = ? AND path = ?
				AND language_code = ?`, rec.ComponentID, f.Path, f.LanguageCode); err != nil {
				return err
			}
		}
		if rec.Head != nil && db.SharedCheckouts() {
			return recordGitHead(tx, *rec.Head)
		}
		return nil
	})
}

// RecordRepositoryChange records a change of a component's repository
// (a push, 18, or a failed one, 28) by userID (0: nobody), with target
// as its text.
func (db *DB) RecordRepositoryChange(ctx context.Context, componentID int64, action index.Action,
	userID int64, target string) error {
	return db.write(ctx, func(tx *Tx) error {
		return componentChange(tx, componentID, action, userID, target)
	})
}

// Repend makes the index owe its repository again what local commits
// hold and upstream lacks (see index.Repended), in one transaction, so
// that a pull can move the checkout onto upstream without losing them:
// units become pending, removed entries get their removed_units rows back
// (once per id_hash) and added or deleted files their pending_files rows
// (a row already there is kept, being newer).
func (db *DB) Repend(ctx context.Context, rep index.Repended) error {
	return db.write(ctx, func(tx *Tx) error {
		now := formatTime(tx.now)
		// A re-pended edit's work began when it was made, which the
		// index no longer knows: now, so that it is due at once only
		// with commit_pending_age 0 (a pull commits it anyway).
		pend, err := tx.prepare(`UPDATE units SET pending = 1, pending_since = coalesce(pending_since, ?)
			WHERE translation_id = ? AND id_hash = ? AND pending = 0`)
		if err != nil {
			return err
		}
		removed, err := tx.prepare(`INSERT INTO removed_units (translation_id, id_hash, context, source, removed)
			SELECT ?, ?, ?, ?, ? WHERE NOT EXISTS
				(SELECT 1 FROM removed_units WHERE translation_id = ? AND id_hash = ?)`)
		if err != nil {
			return err
		}
		for _, t := range rep.Translations {
			for _, h := range t.IDHashes {
				if _, err := pend.Exec(now, t.TranslationID, h); err != nil {
					return err
				}
			}
			for _, r := range t.Removed {
				if _, err := removed.Exec(t.TranslationID, r.IDHash, r.Context,
					index.JoinPlural(r.Source), now, t.TranslationID, r.IDHash); err != nil {
					return err
				}
			}
		}
		for _, f := range rep.Files {
			if _, err := tx.Exec(`INSERT INTO pending_files (component_id, path, operation,
				language_code, user_id, created) VALUES (?, ?, ?, ?, ?, ?)
				ON CONFLICT (component_id, path, language_code) DO NOTHING`, rep.ComponentID, f.Path, f.Operation,
				f.LanguageCode, nullID(f.UserID), now); err != nil {
				return err
			}
		}
		return nil
	})
}

// repositoryActionList is the SQL list of the actions that record an
// operation on a component's repository.
var repositoryActionList = func() string {
	var ids []string
	for _, a := range []index.Action{index.ActionCommit, index.ActionPush, index.ActionReset, index.ActionMerge,
		index.ActionRebase, index.ActionFailedMerge, index.ActionFailedRebase, index.ActionFailedPush} {
		ids = append(ids, strconv.Itoa(int(a)))
	}
	return strings.Join(ids, ", ")
}()

// RepositoryFailure returns the text of the component's newest repository
// change when that change is a failure (a failed merge, rebase or push),
// else "": the repository status's merge_failure, as the reference
// derives it.
func (db *DB) RepositoryFailure(ctx context.Context, componentID int64) (string, error) {
	var action index.Action
	var target string
	// The latest by id is the latest in time (insertChange).
	err := db.r.QueryRowContext(ctx, `SELECT action, target FROM changes
		WHERE component_id = ? AND action IN (`+repositoryActionList+`)
		ORDER BY id DESC LIMIT 1`, componentID).Scan(&action, &target)
	if errors.Is(err, sql.ErrNoRows) {
		return "", nil
	}
	if err != nil {
		return "", formatError(err)
	}
	switch action {
	case index.ActionFailedMerge, index.ActionFailedRebase, index.ActionFailedPush:
		return target, nil
	}
	return "", nil
}

// DiscardPending forgets everything the component owes its repository,
// in one transaction, for a reset to upstream: units stop being pending,
// removed_units and pending_files rows go, and every translation's
// revision is cleared so that the next import re-reads every file and
// the index takes upstream's text back. It records "Repository reset"
// (19) by userID (0: nobody) with target as its text, and returns what
// was discarded.
func (db *DB) DiscardPending(ctx context.Context, componentID, userID int64, target func(index.Pending) string) (index.Pending, error) {
	var p index.Pending
	err := db.write(ctx, func(tx *Tx) error {
		if err := tx.QueryRow(tx.db.dialect.pendingCounts(), componentID, componentID, componentID).
			Scan(&p.Units, &p.Removed, &p.Files); err != nil {
			return err
		}
		from, where, id := tx.db.dialect.pendingUnits(false, false)
		for _, q := range []string{
			`UPDATE units SET pending = 0, pending_since = NULL WHERE pending != 0 AND id IN
				(SELECT ` + id + ` FROM ` + from + ` WHERE ` + where + ` AND t.component_id = ?)`,
			`DELETE FROM removed_units WHERE translation_id IN (SELECT id FROM translations WHERE component_id = ?)`,
			`DELETE FROM pending_files WHERE component_id = ?`,
			`UPDATE translations SET revision = '' WHERE component_id = ?`,
		} {
			if _, err := tx.Exec(q, componentID); err != nil {
				return err
			}
		}
		ch := index.Change{Action: index.ActionReset, ComponentID: componentID, UserID: userID, Target: target(p)}
		if err := tx.QueryRow(`SELECT project_id FROM components WHERE id = ?`, componentID).
			Scan(&ch.ProjectID); err != nil {
			return err
		}
		return insertChange(tx, ch)
	})
	return p, err
}
