package sqlstore

import (
	"context"
	"database/sql"
	"errors"

	"github.com/tolk-project/tolk/index"
)

// SetPassword stores the password hash of the user with the given id
// ("" removes the password), and signs the user out everywhere: a
// changed password must end the sessions an old one opened. It answers
// ErrNotFound for an unknown user.
func (db *DB) SetPassword(ctx context.Context, userID int64, hash string) error {
	return db.write(ctx, func(tx *Tx) error {
		res, err := tx.Exec(`UPDATE users SET password = ? WHERE id = ?`, hash, userID)
		if err != nil {
			return err
		}
		if n, _ := res.RowsAffected(); n == 0 {
			return index.Errorf(index.ErrNotFound, "No user with id %d.", userID)
		}
		_, err = tx.Exec(`DELETE FROM sessions WHERE user_id = ?`, userID)
		return err
	})
}

// FindPassword returns the user with the given username and the hash of
// their password ("" when they have none), or ErrNotFound.
func (db *DB) FindPassword(ctx context.Context, username string) (index.User, string, error) {
	var hash string
	row := db.r.QueryRowContext(ctx, `SELECT `+userColumns+`, password FROM users WHERE username = ?`, username)
	u, err := scanUser(scanExtra{row, &hash})
	return u, hash, formatError(err)
}

// scanExtra scans a row into what Scan is given, then its last column
// into extra: for a scanner of a table's columns (scanUser,
// scanComponent) followed by a column of the query's own.
type scanExtra struct {
	s     interface{ Scan(...any) error }
	extra any
}

func (x scanExtra) Scan(dest ...any) error { return x.s.Scan(append(dest, x.extra)...) }

// CreateSession stores a session and drops the expired ones. Sessions
// are rows no cache holds, so a sign-in is a narrow write that makes no
// cached answer stale (a wide one dropped them all at every sign-in).
func (db *DB) CreateSession(ctx context.Context, s index.Session) error {
	if s.Hash == "" || s.UserID == 0 {
		return errors.New("sqlstore: create session: missing hash or user")
	}
	return db.writeNarrow(ctx, func(tx *Tx) error {
		if _, err := tx.Exec(`DELETE FROM sessions WHERE expires <= ?`, formatTime(tx.now)); err != nil {
			return err
		}
		_, err := tx.Exec(`INSERT INTO sessions (hash, user_id, created, expires) VALUES (?, ?, ?, ?)`,
			s.Hash, s.UserID, formatTime(tx.now), formatTime(s.Expires))
		return err
	})
}

// DeleteSession removes the session stored under hash; removing one that
// is gone is no error. Like CreateSession, a narrow write.
func (db *DB) DeleteSession(ctx context.Context, hash string) error {
	return db.writeNarrow(ctx, func(tx *Tx) error {
		_, err := tx.Exec(`DELETE FROM sessions WHERE hash = ?`, hash)
		return err
	})
}

// SessionPrincipal returns the principal a session cookie stands for:
// its user with their grants and no token scope, so that a browser may
// do what the user may, checked by the same Principal.Can as a token.
// An unknown or expired session, or one whose user is inactive, answers
// ErrUnauthenticated. As with tokens, nothing is cached: a revoked grant
// or a changed password applies at once.
func (db *DB) SessionPrincipal(ctx context.Context, cookie string) (index.Principal, error) {
	denied := index.Errorf(index.ErrUnauthenticated, "Your session has ended; sign in again.")
	if !index.LooksLikeSession(cookie) {
		return index.Principal{}, denied
	}
	var s index.Session
	var expires string
	err := db.r.QueryRowContext(ctx, `SELECT hash, user_id, expires FROM sessions WHERE hash = ?`,
		index.HashToken(cookie)).Scan(&s.Hash, &s.UserID, &expires)
	if errors.Is(err, sql.ErrNoRows) || err == nil && !index.TokenMatches(cookie, s.Hash) {
		return index.Principal{}, denied
	}
	if err != nil {
		return index.Principal{}, formatError(err)
	}
	if !db.now().Before(parseTime(expires)) {
		return index.Principal{}, denied
	}
	return db.userPrincipal(ctx, s.UserID, denied)
}
