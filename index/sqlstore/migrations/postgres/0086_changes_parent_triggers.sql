-- A change's INSERT checked four of its six foreign keys against rows
-- every edit of a project shares: its project, component, user and
-- author (issue 31). Each check is an AFTER ROW trigger that reads the
-- parent row and locks it FOR KEY SHARE, so every change queued four
-- trigger events and four lookups, and two processes editing one
-- project (or one user editing in two) took share locks on the same
-- rows. The writer itself gives a change the ids of the objects it has
-- just read in its transaction, under the write lock that every delete
-- of them takes exclusively (writers.go): those four keys can only
-- fail for a bug. They go; what they did on a delete stays, done by
-- triggers on the parents: a project's or component's changes are
-- deleted with it, a user's are kept with no user or author. The keys
-- of the translation (the changes lists' scope) and of the unit stay.
ALTER TABLE changes DROP CONSTRAINT changes_project_id_fkey,
	DROP CONSTRAINT changes_component_id_fkey,
	DROP CONSTRAINT changes_user_id_fkey,
	DROP CONSTRAINT changes_author_id_fkey;

CREATE FUNCTION projects_delete_changes() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
	DELETE FROM changes WHERE project_id = old.id;
	RETURN NULL;
END $$;
CREATE TRIGGER projects_delete_changes AFTER DELETE ON projects FOR EACH ROW
	EXECUTE FUNCTION projects_delete_changes();

CREATE FUNCTION components_delete_changes() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
	DELETE FROM changes WHERE component_id = old.id;
	RETURN NULL;
END $$;
CREATE TRIGGER components_delete_changes AFTER DELETE ON components FOR EACH ROW
	EXECUTE FUNCTION components_delete_changes();

CREATE FUNCTION users_delete_changes() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
	UPDATE changes SET user_id = NULL WHERE user_id = old.id;
	UPDATE changes SET author_id = NULL WHERE author_id = old.id;
	RETURN NULL;
END $$;
CREATE TRIGGER users_delete_changes AFTER DELETE ON users FOR EACH ROW
	EXECUTE FUNCTION users_delete_changes();
