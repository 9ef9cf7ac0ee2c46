package sqlite

import (
	"context"
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
	rows, err := db.r.QueryContext(ctx, `SELECT u.id, us.id, us.username, us.full_name, us.email, us.is_active,
			us.is_bot, us.is_superuser, us.date_joined
		FROM units u
		JOIN changes c ON c.id = (SELECT max(id) FROM changes
			WHERE unit_id = u.id AND action IN (`+contentActionList+`))
		JOIN users us ON us.id = coalesce(c.author_id, c.user_id)
		WHERE u.translation_id = ? AND u.pending != 0`, translationID)
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
// with the user set and no author.
func (db *DB) MarkCommitted(ctx context.Context, rec index.Committed) error {
	return db.write(ctx, func(tx *Tx) error {
		clear, err := tx.prepare(ctx, `UPDATE units SET pending = 0
			WHERE id = ? AND translation_id = ? AND target = ?`)
		if err != nil {
			return err
		}
		for _, t := range rec.Translations {
			for _, u := range t.Units {
				if _, err := clear.ExecContext(ctx, u.ID, t.TranslationID, index.JoinPlural(u.Target)); err != nil {
					return err
				}
			}
			for _, id := range t.Removed {
				if _, err := tx.ExecContext(ctx, `DELETE FROM removed_units WHERE id = ? AND translation_id = ?`,
					id, t.TranslationID); err != nil {
					return err
				}
			}
			if t.Revision != "" {
				if _, err := tx.ExecContext(ctx, `UPDATE translations SET revision = ? WHERE id = ?`,
					t.Revision, t.TranslationID); err != nil {
					return err
				}
			}
			if !t.Record {
				continue
			}
			ch := index.Change{Action: index.ActionCommit, ComponentID: rec.ComponentID,
				TranslationID: t.TranslationID, UserID: rec.UserID}
			ids, err := translationScope(ctx, tx, t.TranslationID)
			if err != nil {
				return err
			}
			ch.ProjectID, ch.LanguageCode = ids.projectID, ids.languageCode
			if err := insertChange(ctx, tx, ch); err != nil {
				return err
			}
		}
		for _, p := range rec.Files {
			if _, err := tx.ExecContext(ctx, `DELETE FROM pending_files WHERE component_id = ? AND path = ?`,
				rec.ComponentID, p); err != nil {
				return err
			}
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
		return componentChange(ctx, tx, componentID, action, userID, target)
	})
}
