-- lock_write_scopes (migration 0095) runs on its generic plan
-- (plan_cache_mode = force_generic_plan: its custom plans were re-made
-- at every batch), which guesses ten ids for each of its arrays, fifty
-- objects named in all: a hash join over a scan of every translation
-- looked cheaper than fifty index probes, and every scoped batch read
-- the whole translations table (43 pages at 10x the corpus, 1,840
-- translations, against 15 at 1x: 15 -> 50 shared blocks a call,
-- pg_stat_statements over tolk-bench's scale edits; issue 31). A batch
-- names a few objects: each one's translation is now read by its key
-- (a LATERAL subquery with LIMIT 1, which the planner keeps as a
-- nested loop over translations_pkey however many ids it guesses).
-- The keys taken, and their order, are unchanged.
CREATE OR REPLACE FUNCTION lock_write_scopes(space INTEGER, part_space INTEGER, unit_ids BIGINT[],
	wide_unit_ids BIGINT[], suggestion_ids BIGINT[], comment_ids BIGINT[], translation_ids BIGINT[])
	RETURNS TEXT LANGUAGE plpgsql SET plan_cache_mode = force_generic_plan AS $$
BEGIN
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
			SELECT hashint8(CASE WHEN p.on THEN -c.project_id ELSE c.id END) AS whole,
				CASE WHEN n.wide OR t.is_source != 0 THEN NULL
					WHEN p.on THEN hashtext(c.project_id || ':' || t.language_code)
					ELSE hashint8(t.id) END AS part
			FROM named n
			CROSS JOIN LATERAL (SELECT t.is_source, t.language_code, t.id, t.component_id FROM translations t
				WHERE t.id = n.tid LIMIT 1) t
			JOIN components c ON c.id = t.component_id
			CROSS JOIN LATERAL (SELECT c.settings::jsonb @> '{"AllowTranslationPropagation": true}' AS on) p)
		SELECT 0 AS level, whole AS k, bool_and(part IS NOT NULL) AS parts FROM scopes GROUP BY whole
		UNION ALL
		SELECT DISTINCT 1, part, false FROM scopes WHERE part IS NOT NULL
		ORDER BY 1, 2) s;
	RETURN coalesce((SELECT timestamp FROM changes ORDER BY id DESC LIMIT 1), '');
END $$;
