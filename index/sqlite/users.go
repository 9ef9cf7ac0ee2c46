package sqlite

import (
	"context"

	"github.com/tolk-project/tolk/index"
)

// FindUser returns the user with the given username, or ErrNotFound.
func (db *DB) FindUser(ctx context.Context, username string) (index.User, error) {
	var u index.User
	var joined string
	err := db.rdb.QueryRowContext(ctx, `SELECT id, username, full_name, email, is_active, is_bot, date_joined
		FROM users WHERE username = ?`, username).Scan(&u.ID, &u.Username, &u.FullName, &u.Email,
		&u.IsActive, &u.IsBot, &joined)
	u.Joined = parseTime(joined)
	return u, formatError(err)
}

// SaveUser creates the user or updates the one with the same username.
func (db *DB) SaveUser(ctx context.Context, u index.User) (index.User, error) {
	err := db.write(ctx, func(tx *Tx) error {
		if u.Joined.IsZero() {
			u.Joined = tx.now
		}
		return tx.QueryRowContext(ctx, `INSERT INTO users (username, full_name, email, is_active, is_bot, date_joined)
			VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT (username) DO UPDATE SET full_name = excluded.full_name,
			email = excluded.email, is_active = excluded.is_active, is_bot = excluded.is_bot
			RETURNING id`, u.Username, u.FullName, u.Email, u.IsActive, u.IsBot, formatTime(u.Joined)).Scan(&u.ID)
	})
	return u, err
}
