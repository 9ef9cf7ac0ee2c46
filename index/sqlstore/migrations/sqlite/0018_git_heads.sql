-- Each component's head commit and the git objects of its local commits,
-- for the processes sharing one database (see index.GitHead). SQLite's
-- file belongs to one process, which owns its checkouts: the tables stay
-- empty there (DB.SharedCheckouts), and exist so that both engines keep
-- one schema.
CREATE TABLE git_heads (
	component_id INTEGER PRIMARY KEY REFERENCES components(id) ON DELETE CASCADE,
	head         TEXT NOT NULL,
	base         TEXT NOT NULL DEFAULT ''
);

CREATE TABLE git_objects (
	component_id INTEGER NOT NULL REFERENCES components(id) ON DELETE CASCADE,
	hash         TEXT NOT NULL,
	type         TEXT NOT NULL,
	data         BLOB NOT NULL,
	PRIMARY KEY (component_id, hash)
);
