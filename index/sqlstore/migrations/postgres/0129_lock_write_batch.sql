-- A batch of several scoped writes takes the shared write lock, its
-- settings and its scopes' locks in one call (issue 31: the server's CPU
-- a batch of several unit edits, concurrency 8's common batch).
--
-- Such a batch sent two statements: the shared write lock with the
-- settings (writers.go's postgresLocks: tolk.defer_counts,
-- tolk.changes_noted, tolk.activity_counted), then lock_write_scopes
-- (0117). Each statement has a fixed price on the server (bind, portal,
-- executor start and end, its locks: about 9 us of a prepared SELECT 1,
-- session 13's profile); lock_write_unit (0123) folded the two for a
-- batch of one unit edit, and this function does for the others. It
-- takes the lock and the settings as the statement did, in the same
-- order, then calls lock_write_scopes (whose SET clause keeps its
-- aggregate's generic plan), whose answer (the newest change's time) it
-- returns. The locks held after it are the two statements'
-- (TestLockWriteBatchLocks).
CREATE FUNCTION lock_write_batch(write_space INTEGER, space INTEGER, part_space INTEGER, unit_ids BIGINT[],
	wide_unit_ids BIGINT[], suggestion_ids BIGINT[], comment_ids BIGINT[], translation_ids BIGINT[])
	RETURNS TEXT LANGUAGE plpgsql AS $$
DECLARE
	done TEXT;
BEGIN
	done := pg_advisory_xact_lock_shared(write_space, 0)::TEXT;
	done := set_config('tolk.defer_counts', 'on', true);
	done := set_config('tolk.changes_noted', 'on', true);
	done := set_config('tolk.activity_counted', 'on', true);
	RETURN lock_write_scopes(space, part_space, unit_ids, wide_unit_ids, suggestion_ids, comment_ids, translation_ids);
END $$;
