-- Signing in from the browser (issue 16). A user's password is stored as
-- its bcrypt hash ('' for none: such a user signs in with tokens only).
-- A session is stored as the SHA-256 of its cookie, never the cookie, as
-- tokens are; it dies with its user.
ALTER TABLE users ADD COLUMN password TEXT NOT NULL DEFAULT '';

CREATE TABLE sessions (
	hash    TEXT PRIMARY KEY,
	user_id INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,
	created TEXT NOT NULL,
	expires TEXT NOT NULL
) WITHOUT ROWID;
CREATE INDEX sessions_user ON sessions(user_id);
