-- The last two foreign keys of changes, to its translation and its unit,
-- go as the other four went in migration 0086 (issue 31): each change's
-- INSERT queued two AFTER ROW trigger events, read both parents and
-- locked them FOR KEY SHARE, which writes the translation row's xmax at
-- every edit (a multixact when two processes edit one translation) and
-- cost the writer's server ~8 µs an edit (pg_stat_statements at
-- concurrency 8). The writer gives a change the ids of the unit and
-- translation it has just read in its transaction, and every delete of
-- either takes the write lock exclusively (writers.go), so the keys
-- could only fail for a bug. What they did on a delete stays, done by
-- triggers on the parents: a translation's changes are deleted with it,
-- a unit's are kept with no unit (changes_list_update_unit counts them
-- out of the unit's list, as the key's SET NULL made it do).
ALTER TABLE changes DROP CONSTRAINT changes_translation_id_fkey,
	DROP CONSTRAINT changes_unit_id_fkey;

CREATE FUNCTION translations_delete_changes() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
	DELETE FROM changes WHERE translation_id = old.id;
	RETURN NULL;
END $$;
CREATE TRIGGER translations_delete_changes AFTER DELETE ON translations FOR EACH ROW
	EXECUTE FUNCTION translations_delete_changes();

-- A statement trigger: an import removes many units in one statement.
CREATE FUNCTION units_delete_changes() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
	UPDATE changes SET unit_id = NULL WHERE unit_id IN (SELECT id FROM old_rows);
	RETURN NULL;
END $$;
CREATE TRIGGER units_delete_changes AFTER DELETE ON units
	REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT
	EXECUTE FUNCTION units_delete_changes();
