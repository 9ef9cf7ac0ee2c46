-- A batch of one unit edit takes its locks in one call of a function
-- without a SET clause (issue 31: the server's CPU a batch at
-- concurrency 1, and at 8 where most batches name one or two units).
--
-- Such a batch sent two statements: the write lock taken shared with the
-- batch's settings (writers.go, postgresLocks' shared), then
-- lock_write_scopes (0117), whose keys come from an aggregate of six
-- array_agg (three of them DISTINCT and ORDER BY: a sort each) and whose
-- SET plan_cache_mode = force_generic_plan saves and restores the setting
-- at every call. pgbench on a kept 1x index (BEGIN, the statements,
-- COMMIT; the backend's own CPU from /proc, load 7-8): the two statements
-- 120-128 us a transaction, this function 97-109, BEGIN; SELECT 1; COMMIT
-- 24-29.
--
-- lock_write_unit takes the same locks in the same order and modes as
-- those two statements: the write lock (write_space, 0) shared, then
-- the unit's whole key (its component, or its project where the
-- component propagates) shared with its part key (its translation, or
-- the project's language where it propagates) exclusive, or the whole
-- key exclusive for a source string's edit (0095, 0104); a glossary's
-- unit, whose recheck locks other translations too (0113), is left to
-- lock_write_scopes, called from here. The settings are the ones the
-- shared write lock's statement sets (tolk.defer_counts, 0046;
-- tolk.changes_noted, 0096; tolk.activity_counted, 0085), local to the
-- transaction: a function with a SET clause would keep them local to
-- itself. Its one statement reads the unit by its key: its custom and
-- generic plans are the same, and the plan cache keeps the generic one
-- after its first five calls in a connection.
CREATE FUNCTION lock_write_unit(write_space INTEGER, space INTEGER, part_space INTEGER, unit_id BIGINT)
	RETURNS TEXT LANGUAGE plpgsql AS $$
DECLARE
	whole INTEGER;
	part INTEGER;
	glossary BOOLEAN;
	done TEXT;
BEGIN
	done := pg_advisory_xact_lock_shared(write_space, 0)::TEXT;
	done := set_config('tolk.defer_counts', 'on', true);
	done := set_config('tolk.changes_noted', 'on', true);
	done := set_config('tolk.activity_counted', 'on', true);
	SELECT hashint8(CASE WHEN c.propagates THEN -c.project_id ELSE c.id END),
		CASE WHEN t.is_source != 0 THEN NULL
			WHEN c.propagates THEN hashtext(c.project_id || ':' || t.language_code)
			ELSE hashint8(t.id) END,
		c.is_glossary != 0
	INTO whole, part, glossary
	FROM units u
	JOIN translations t ON t.id = u.translation_id
	JOIN components c ON c.id = t.component_id
	WHERE u.id = unit_id;
	IF glossary THEN
		RETURN lock_write_scopes(space, part_space, ARRAY[unit_id], '{}', '{}', '{}', '{}');
	END IF;
	IF whole IS NULL THEN
		-- No such unit (deleted before the batch): nothing to lock, as
		-- lock_write_scopes locks nothing for it; the edit finds none.
		NULL;
	ELSIF part IS NULL THEN
		done := pg_advisory_xact_lock(space, whole)::TEXT;
	ELSE
		done := pg_advisory_xact_lock_shared(space, whole)::TEXT;
		done := pg_advisory_xact_lock(part_space, part)::TEXT;
	END IF;
	RETURN coalesce((SELECT timestamp FROM changes ORDER BY id DESC LIMIT 1), '');
END $$;
