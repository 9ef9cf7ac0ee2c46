-- One-time sign-in links (issue 30); see the SQLite migration of the
-- same number.
CREATE TABLE login_links (
	hash    TEXT PRIMARY KEY,
	user_id BIGINT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
	created TEXT NOT NULL,
	expires TEXT NOT NULL
);
CREATE INDEX login_links_user ON login_links(user_id);
