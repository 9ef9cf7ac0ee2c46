package sqlstore

import (
	"context"
	"database/sql"
	"errors"

	"github.com/tolk-project/tolk/index"
)

// CreateLoginLink stores a one-time sign-in link (its hash, its user and
// when it expires; index/loginlink.go) and drops the expired ones.
// Links, like sessions, are rows no cache holds: a narrow write that
// makes no cached answer stale (CreateSession).
func (db *DB) CreateLoginLink(ctx context.Context, l index.Session) error {
	if l.Hash == "" || l.UserID == 0 {
		return errors.New("sqlstore: create login link: missing hash or user")
	}
	return db.writeNarrow(ctx, func(tx *Tx) error {
		if _, err := tx.Exec(`DELETE FROM login_links WHERE expires <= ?`, formatTime(tx.now)); err != nil {
			return err
		}
		_, err := tx.Exec(`INSERT INTO login_links (hash, user_id, created, expires) VALUES (?, ?, ?, ?)`,
			l.Hash, l.UserID, formatTime(tx.now), formatTime(l.Expires))
		return err
	})
}

// RedeemLoginLink signs in with a one-time link: in one write it removes
// the link stored under the hash of secret and stores session for the
// link's user (session.UserID is ignored), and returns that user. The
// delete decides, inside the single writer, so two browsers racing with
// one link get one session. An unknown, used or expired link, or one
// whose user is inactive, answers ErrUnauthenticated (the last keeps its
// link until it expires: nothing was signed in). A narrow write, as
// CreateSession.
func (db *DB) RedeemLoginLink(ctx context.Context, secret string, session index.Session) (index.User, error) {
	denied := index.Errorf(index.ErrUnauthenticated, "This sign-in link is not valid: it was used already, has expired or never existed.")
	if !index.LooksLikeLoginLink(secret) || session.Hash == "" {
		return index.User{}, denied
	}
	var u index.User
	err := db.writeNarrow(ctx, func(tx *Tx) error {
		var userID int64
		err := tx.QueryRow(`DELETE FROM login_links WHERE hash = ? AND expires > ? RETURNING user_id`,
			index.HashToken(secret), formatTime(tx.now)).Scan(&userID)
		if errors.Is(err, sql.ErrNoRows) {
			return denied
		}
		if err != nil {
			return err
		}
		u, err = scanUser(tx.QueryRow(`SELECT `+userColumns+` FROM users WHERE id = ?`, userID))
		if err != nil {
			return err
		}
		if !u.IsActive {
			return denied
		}
		_, err = tx.Exec(`INSERT INTO sessions (hash, user_id, created, expires) VALUES (?, ?, ?, ?)`,
			session.Hash, userID, formatTime(tx.now), formatTime(session.Expires))
		return err
	})
	if err != nil {
		return index.User{}, formatError(err)
	}
	return u, nil
}
