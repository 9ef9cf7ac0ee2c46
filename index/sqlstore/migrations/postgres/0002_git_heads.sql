-- Each component's head commit and the git objects of its local commits
-- (those upstream lacks), so that every process sharing this database
-- serves and commits on the same files: see index.GitHead.
CREATE TABLE git_heads (
	component_id BIGINT PRIMARY KEY REFERENCES components(id) ON DELETE CASCADE,
	head         TEXT NOT NULL,
	base         TEXT NOT NULL DEFAULT ''
);

CREATE TABLE git_objects (
	component_id BIGINT NOT NULL REFERENCES components(id) ON DELETE CASCADE,
	hash         TEXT NOT NULL,
	type         TEXT NOT NULL,
	data         BYTEA NOT NULL,
	PRIMARY KEY (component_id, hash)
);

-- The objects arrive compressed (zlib, as git's loose objects): TOAST
-- compressing them again would cost time for nothing.
ALTER TABLE git_objects ALTER COLUMN data SET STORAGE EXTERNAL;
