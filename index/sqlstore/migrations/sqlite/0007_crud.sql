-- Creating and removing through the API (issue: writes).
--
-- pending_files is what the next commit must do to whole files, beside
-- the pending units it writes back (units.pending):
--   'add'    a translation added through the API has no file yet; the
--            commit creates it at path from the component's new_base, or
--            from its template with every target empty, when HEAD lacks
--            it, then writes the translation's units into it;
--   'delete' a translation removed through the API; the commit removes
--            the file at path.
-- One row per path of a component: adding a translation whose deletion
-- is pending turns the row into 'add', and removing a translation whose
-- file was never committed drops the row, so the commit has nothing to
-- undo. A translation with a pending 'add' is never taken for stale by an
-- import that finds no file for it.
CREATE TABLE pending_files (
	component_id  INTEGER NOT NULL REFERENCES components(id) ON DELETE CASCADE,
	path          TEXT NOT NULL,
	operation     TEXT NOT NULL CHECK (operation IN ('add', 'delete')),
	language_code TEXT NOT NULL,
	user_id       INTEGER REFERENCES users(id) ON DELETE SET NULL,
	created       TEXT NOT NULL,
	PRIMARY KEY (component_id, path)
) WITHOUT ROWID;

-- A language created or changed through the API is the deployment's
-- own: seeding the built-in table on start (and an import that meets an
-- unknown code) must not overwrite it.
ALTER TABLE languages ADD COLUMN custom INTEGER NOT NULL DEFAULT 0;
