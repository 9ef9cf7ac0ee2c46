-- A pending file operation is one language's: in a one-file component (an
-- Apple String Catalog, formats.Format.OneFile) every translation's file
-- is the same path, so rows keyed by (component_id, path) kept one of two
-- languages deleted (or added) in one commit window, and the other came
-- back on the next import. The language joins the key; for every other
-- format a path is one language's anyway, so nothing else changes.
ALTER TABLE pending_files DROP CONSTRAINT pending_files_pkey;
ALTER TABLE pending_files ADD PRIMARY KEY (component_id, path, language_code);
