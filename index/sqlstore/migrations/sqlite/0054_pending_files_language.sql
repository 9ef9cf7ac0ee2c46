-- A pending file operation is one language's: in a one-file component (an
-- Apple String Catalog, formats.Format.OneFile) every translation's file
-- is the same path, so rows keyed by (component_id, path) kept one of two
-- languages deleted (or added) in one commit window, and the other came
-- back on the next import. The language joins the key; for every other
-- format a path is one language's anyway, so nothing else changes.
-- SQLite cannot change a primary key: the table is rebuilt.
CREATE TABLE pending_files_0054 (
	component_id  INTEGER NOT NULL REFERENCES components(id) ON DELETE CASCADE,
	path          TEXT NOT NULL,
	operation     TEXT NOT NULL CHECK (operation IN ('add', 'delete')),
	language_code TEXT NOT NULL,
	user_id       INTEGER REFERENCES users(id) ON DELETE SET NULL,
	created       TEXT NOT NULL,
	PRIMARY KEY (component_id, path, language_code)
) WITHOUT ROWID;
INSERT INTO pending_files_0054 (component_id, path, operation, language_code, user_id, created)
	SELECT component_id, path, operation, language_code, user_id, created FROM pending_files;
DROP TABLE pending_files;
ALTER TABLE pending_files_0054 RENAME TO pending_files;
