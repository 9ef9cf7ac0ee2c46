-- A batch of unit edits, the common one (writers.go: scopes), names units
-- only, yet lock_write_scopes (migrations 0095, 0104) ran its statement
-- for every kind of object: five UNION ALL branches, the units looked up
-- once for each edit of the batch and joined to their translation and
-- component one by one. Its generic plan was started anew at each batch
-- (ExecutorStart about a third of the call's CPU in perf of the writer's
-- backend at concurrency 8; issue 31). When only units are named, the
-- same scopes now come from a smaller statement over the batch's
-- distinct translations (a batch's edits are mostly of one or a few);
-- other batches keep the whole statement. The keys, their kinds and
-- their order are those of 0095: a process running either version
-- excludes the other's batches as before.
CREATE OR REPLACE FUNCTION lock_write_scopes(space INTEGER, part_space INTEGER, unit_ids BIGINT[],
	wide_unit_ids BIGINT[], suggestion_ids BIGINT[], comment_ids BIGINT[], translation_ids BIGINT[])
	RETURNS TEXT LANGUAGE plpgsql SET plan_cache_mode = force_generic_plan AS $$
BEGIN
	IF cardinality(wide_unit_ids) = 0 AND cardinality(suggestion_ids) = 0 AND cardinality(comment_ids) = 0
		AND cardinality(translation_ids) = 0 THEN
		PERFORM CASE WHEN s.level = 1 THEN pg_advisory_xact_lock(part_space, s.k)
			WHEN s.parts THEN pg_advisory_xact_lock_shared(space, s.k)
			ELSE pg_advisory_xact_lock(space, s.k) END
		FROM (
			WITH scopes AS (
				SELECT hashint8(CASE WHEN c.propagates THEN -c.project_id ELSE c.id END) AS whole,
					CASE WHEN t.is_source != 0 THEN NULL
						WHEN c.propagates THEN hashtext(c.project_id || ':' || t.language_code)
						ELSE hashint8(t.id) END AS part
				FROM (SELECT DISTINCT u.translation_id FROM units u WHERE u.id = ANY(unit_ids)) n
					JOIN translations t ON t.id = n.translation_id JOIN components c ON c.id = t.component_id)
			SELECT 0 AS level, whole AS k, bool_and(part IS NOT NULL) AS parts FROM scopes GROUP BY whole
			UNION ALL
			SELECT DISTINCT 1, part, false FROM scopes WHERE part IS NOT NULL
			ORDER BY 1, 2) s;
		RETURN coalesce((SELECT timestamp FROM changes ORDER BY id DESC LIMIT 1), '');
	END IF;
	PERFORM CASE WHEN s.level = 1 THEN pg_advisory_xact_lock(part_space, s.k)
		WHEN s.parts THEN pg_advisory_xact_lock_shared(space, s.k)
		ELSE pg_advisory_xact_lock(space, s.k) END
	FROM (
		WITH named AS (
			SELECT u.translation_id AS tid, false AS wide FROM units u WHERE u.id = ANY(unit_ids)
			UNION ALL SELECT u.translation_id, true FROM units u WHERE u.id = ANY(wide_unit_ids)
			UNION ALL SELECT u.translation_id, false FROM suggestions s JOIN units u ON u.id = s.unit_id
				WHERE s.id = ANY(suggestion_ids)
			UNION ALL SELECT u.translation_id, true FROM comments m JOIN units u ON u.id = m.unit_id
				WHERE m.id = ANY(comment_ids)
			UNION ALL SELECT unnest(translation_ids), false),
		scopes AS (
			SELECT hashint8(CASE WHEN c.propagates THEN -c.project_id ELSE c.id END) AS whole,
				CASE WHEN n.wide OR t.is_source != 0 THEN NULL
					WHEN c.propagates THEN hashtext(c.project_id || ':' || t.language_code)
					ELSE hashint8(t.id) END AS part
			FROM named n JOIN translations t ON t.id = n.tid JOIN components c ON c.id = t.component_id)
		SELECT 0 AS level, whole AS k, bool_and(part IS NOT NULL) AS parts FROM scopes GROUP BY whole
		UNION ALL
		SELECT DISTINCT 1, part, false FROM scopes WHERE part IS NOT NULL
		ORDER BY 1, 2) s;
	RETURN coalesce((SELECT timestamp FROM changes ORDER BY id DESC LIMIT 1), '');
END $$;
