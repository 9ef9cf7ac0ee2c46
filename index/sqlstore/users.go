package sqlstore

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/tolk-project/tolk/index"
)

const userColumns = `id, username, full_name, email, is_active, is_bot, is_superuser, date_joined, secondary_languages`

func scanUser(s interface{ Scan(...any) error }) (index.User, error) {
	var u index.User
	var joined, secondary string
	err := s.Scan(&u.ID, &u.Username, &u.FullName, &u.Email, &u.IsActive, &u.IsBot, &u.IsSuperuser, &joined, &secondary)
	u.Joined = parseTime(joined)
	if secondary != "" {
		u.SecondaryLanguages = strings.Split(secondary, ",")
	}
	return u, err
}

// checkSecondaryLanguages refuses codes of languages the index does not
// know, and more than index.MaxSecondaryLanguages, and drops repeats:
// the column's text (migration 0056).
func checkSecondaryLanguages(tx *Tx, codes []string) (string, error) {
	problem := func(detail string) error {
		return &index.FieldError{Fields: map[string]index.FieldProblem{"secondary_languages": {Code: "invalid", Detail: detail}}}
	}
	var kept []string
	for _, c := range codes {
		if slices.Contains(kept, c) {
			continue
		}
		var n int
		if err := tx.QueryRow(`SELECT count(*) FROM languages WHERE code = ?`, c).Scan(&n); err != nil {
			return "", err
		}
		if n == 0 {
			return "", problem(fmt.Sprintf("Unknown language: %q.", c))
		}
		kept = append(kept, c)
	}
	if len(kept) > index.MaxSecondaryLanguages {
		return "", problem(fmt.Sprintf("At most %d secondary languages are allowed.", index.MaxSecondaryLanguages))
	}
	return strings.Join(kept, ","), nil
}

// FindUser returns the user with the given username, or ErrNotFound.
func (db *DB) FindUser(ctx context.Context, username string) (index.User, error) {
	u, err := scanUser(db.r.QueryRowContext(ctx, `SELECT `+userColumns+` FROM users WHERE username = ?`, username))
	return u, formatError(err)
}

// FindUsers returns one page of the users matching f in ascending id
// order, and the number of matches. The page is read through the primary
// key, so skipping earlier pages costs an index walk, not a table scan;
// user tables are small next to units and changes.
func (db *DB) FindUsers(ctx context.Context, f index.UserFilter) ([]index.User, int, error) {
	var conds []string
	var args []any
	if f.UsernamePrefix != "" {
		// A range on the unique username index instead of LIKE, which
		// would ignore case and treat % and _ as wildcards.
		conds = append(conds, "username >= ? AND substr(username, 1, ?) = ?")
		args = append(args, f.UsernamePrefix, len([]rune(f.UsernamePrefix)), f.UsernamePrefix)
	}
	if f.ID != 0 {
		conds = append(conds, "id = ?")
		args = append(args, f.ID)
	}
	if f.IsActive != nil {
		conds = append(conds, "is_active = ?")
		args = append(args, *f.IsActive)
	}
	if f.Email != "" {
		conds = append(conds, "lower(email) = lower(?)")
		args = append(args, f.Email)
	}
	where := ""
	if len(conds) > 0 {
		where = " WHERE " + strings.Join(conds, " AND ")
	}
	var total int
	if err := db.r.QueryRowContext(ctx, `SELECT count(*) FROM users`+where, args...).Scan(&total); err != nil {
		return nil, 0, formatError(err)
	}
	if total == 0 || f.Page.Offset() >= total {
		return nil, total, nil
	}
	rows, err := db.r.QueryContext(ctx, `SELECT `+userColumns+` FROM users`+where+` ORDER BY id LIMIT ? OFFSET ?`,
		append(args, f.Page.Size, f.Page.Offset())...)
	if err != nil {
		return nil, 0, formatError(err)
	}
	defer rows.Close()
	out := make([]index.User, 0, min(f.Page.Size, total))
	for rows.Next() {
		u, err := scanUser(rows)
		if err != nil {
			return nil, 0, err
		}
		out = append(out, u)
	}
	return out, total, rows.Err()
}

// SaveUser creates the user or updates the one with the same username.
func (db *DB) SaveUser(ctx context.Context, u index.User) (index.User, error) {
	err := db.write(ctx, func(tx *Tx) error {
		if u.Joined.IsZero() {
			u.Joined = tx.now
		}
		return tx.QueryRow(`INSERT INTO users (username, full_name, email, is_active, is_bot,
			is_superuser, date_joined) VALUES (?, ?, ?, ?, ?, ?, ?) ON CONFLICT (username) DO UPDATE SET
			full_name = excluded.full_name, email = excluded.email, is_active = excluded.is_active,
			is_bot = excluded.is_bot, is_superuser = excluded.is_superuser
			RETURNING id`, u.Username, u.FullName, u.Email, u.IsActive, u.IsBot, u.IsSuperuser,
			formatTime(u.Joined)).Scan(&u.ID)
	})
	return u, err
}

// The reference's messages for a username or address already taken.
var (
	usernameTaken = index.FieldProblem{Code: "unique", Detail: "A user with that username already exists."}
	emailTaken    = index.FieldProblem{Code: "unique", Detail: "User with this E-mail already exists."}
)

// checkUserUnique answers a *index.FieldError when another user than the
// one with id self (0 for none) has the username or, ignoring case, the
// non-empty e-mail address.
func checkUserUnique(tx *Tx, self int64, username, email string) error {
	problems := map[string]index.FieldProblem{}
	var n int
	if err := tx.QueryRow(`SELECT count(*) FROM users WHERE username = ? AND id != ?`,
		username, self).Scan(&n); err != nil {
		return err
	}
	if n > 0 {
		problems["username"] = usernameTaken
	}
	if email != "" {
		if err := tx.QueryRow(`SELECT count(*) FROM users WHERE lower(email) = lower(?) AND id != ?`,
			email, self).Scan(&n); err != nil {
			return err
		}
		if n > 0 {
			problems["email"] = emailTaken
		}
	}
	if len(problems) > 0 {
		return &index.FieldError{Fields: problems}
	}
	return nil
}

// CreateUser adds a user, joined now, and returns it with its ID. A
// username or non-empty e-mail address another user has is an
// *index.FieldError on "username" or "email"; the fields are otherwise
// taken as given (callers validate them).
func (db *DB) CreateUser(ctx context.Context, u index.User) (index.User, error) {
	err := db.write(ctx, func(tx *Tx) error {
		if err := checkUserUnique(tx, 0, u.Username, u.Email); err != nil {
			return err
		}
		u.Joined = tx.now
		return tx.QueryRow(`INSERT INTO users (username, full_name, email, is_active, is_bot,
			is_superuser, date_joined) VALUES (?, ?, ?, ?, ?, ?, ?) RETURNING id`, u.Username, u.FullName,
			u.Email, u.IsActive, u.IsBot, u.IsSuperuser, formatTime(u.Joined)).Scan(&u.ID)
	})
	return u, err
}

// UpdateUser changes the fields upd sets of the user with the given
// username and returns the user as stored. It answers ErrNotFound for an
// unknown user and an *index.FieldError when the new username or e-mail
// address belongs to another user.
func (db *DB) UpdateUser(ctx context.Context, username string, upd index.UserUpdate) (index.User, error) {
	var u index.User
	err := db.write(ctx, func(tx *Tx) error {
		var err error
		if u, err = scanUser(tx.QueryRow(`SELECT `+userColumns+` FROM users WHERE username = ?`,
			username)); err != nil {
			return err
		}
		u.Apply(upd)
		if err := checkUserUnique(tx, u.ID, u.Username, u.Email); err != nil {
			return err
		}
		secondary, err := checkSecondaryLanguages(tx, u.SecondaryLanguages)
		if err != nil {
			return err
		}
		if secondary == "" {
			u.SecondaryLanguages = nil
		} else {
			u.SecondaryLanguages = strings.Split(secondary, ",")
		}
		_, err = tx.Exec(`UPDATE users SET username = ?, full_name = ?, email = ?, is_active = ?,
			is_bot = ?, is_superuser = ?, secondary_languages = ? WHERE id = ?`, u.Username, u.FullName, u.Email, u.IsActive, u.IsBot,
			u.IsSuperuser, secondary, u.ID)
		return err
	})
	return u, err
}

// RemoveUser does what the reference's user removal does: the user's row
// stays, so the changes that name it keep their history, but it is
// anonymised (username deleted-<id>, full name "Deleted User", no e-mail)
// and deactivated, and it loses its tokens, grants and superuser rights,
// all in one transaction. It answers ErrNotFound for an unknown user.
func (db *DB) RemoveUser(ctx context.Context, username string) error {
	return db.write(ctx, func(tx *Tx) error {
		var id int64
		if err := tx.QueryRow(`SELECT id FROM users WHERE username = ?`, username).Scan(&id); err != nil {
			return err
		}
		if _, err := tx.Exec(`UPDATE users SET username = ?, full_name = 'Deleted User', email = '',
			is_active = 0, is_superuser = 0 WHERE id = ?`, "deleted-"+itoa(id), id); err != nil {
			return err
		}
		if _, err := tx.Exec(`DELETE FROM tokens WHERE user_id = ?`, id); err != nil {
			return err
		}
		if _, err := tx.Exec(`DELETE FROM team_admins WHERE user_id = ?`, id); err != nil {
			return err
		}
		_, err := tx.Exec(`DELETE FROM team_members WHERE user_id = ?`, id)
		return err
	})
}

// UserHasChanges reports whether the user with the given id made or is
// credited with a change outside the projects whose ids are hidden: a
// reader who sees such a change may follow its link to the user.
func (db *DB) UserHasChanges(ctx context.Context, userID int64, hidden []int64) (bool, error) {
	visible, args := "", []any(nil)
	if len(hidden) > 0 {
		var cond string
		cond, args = notIn("project_id", hidden)
		visible = " AND (project_id IS NULL OR " + cond + ")"
	}
	var found bool
	err := db.r.QueryRowContext(ctx, `SELECT EXISTS (SELECT 1 FROM changes WHERE user_id = ?`+visible+`)
		OR EXISTS (SELECT 1 FROM changes WHERE author_id = ?`+visible+`)`,
		append(append(append([]any{userID}, args...), userID), args...)...).Scan(&found)
	return found, formatError(err)
}
