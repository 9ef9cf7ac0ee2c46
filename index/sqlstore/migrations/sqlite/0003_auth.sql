-- Accounts and access (issue: writes). Tokens are stored as the SHA-256
-- of the token, never the token; grants give a user a built-in role in
-- one project or (project_id 0) site-wide.
ALTER TABLE users ADD COLUMN is_superuser INTEGER NOT NULL DEFAULT 0;

ALTER TABLE projects ADD COLUMN access_control INTEGER NOT NULL DEFAULT 0;

CREATE TABLE tokens (
	id         INTEGER PRIMARY KEY,
	user_id    INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,
	name       TEXT NOT NULL DEFAULT '',
	hash       TEXT NOT NULL UNIQUE,
	prefix     TEXT NOT NULL,
	scope      TEXT NOT NULL DEFAULT 'admin',
	project_id INTEGER NOT NULL DEFAULT 0,
	created    TEXT NOT NULL,
	expires    TEXT NOT NULL DEFAULT '',
	last_used  TEXT NOT NULL DEFAULT ''
);
CREATE INDEX tokens_user ON tokens(user_id);

CREATE TABLE grants (
	user_id    INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,
	role       TEXT NOT NULL,
	project_id INTEGER NOT NULL DEFAULT 0,
	PRIMARY KEY (user_id, role, project_id)
) WITHOUT ROWID;
-- A project's removal takes its grants and tokens along (project_id 0 is
-- site-wide, so these cannot be foreign keys).
CREATE TRIGGER projects_delete_access AFTER DELETE ON projects BEGIN
	DELETE FROM grants WHERE project_id = old.id;
	DELETE FROM tokens WHERE project_id = old.id;
END;
