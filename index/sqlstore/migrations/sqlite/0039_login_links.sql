-- One-time sign-in links (issue 30): the demo prints one for its
-- administrator. Stored as the SHA-256 of the secret, never the secret;
-- a row is removed when it is used (index/loginlink.go).
CREATE TABLE login_links (
	hash    TEXT PRIMARY KEY,
	user_id INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,
	created TEXT NOT NULL,
	expires TEXT NOT NULL
) WITHOUT ROWID;
CREATE INDEX login_links_user ON login_links(user_id);
