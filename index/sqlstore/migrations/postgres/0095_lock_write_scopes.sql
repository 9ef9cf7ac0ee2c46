-- Scoped batches lock a translation, not its whole component (writers.go:
-- Several writers). lock_scopes (migration 0076) locked one key per
-- component, or per project where the component propagates translations,
-- so every edit in a project of propagating components (the default)
-- waited for every other one: two writers of one process, or two
-- processes, editing one project took turns. An edit writes its unit's
-- translation and, through propagation, the same language's translations
-- in the project's other propagating components (propagate.go), and
-- nothing else a scoped write of another translation writes but rows kept
-- by increments. So a batch now takes, for each object it names:
--   - the component's key (the project's where it propagates) SHARED, and
--     a part key EXCLUSIVE in a second space: the translation's, or where
--     the component propagates the project's and language's;
--   - the component's (project's) key EXCLUSIVE instead, when the object
--     is in the source translation (a source string's edit moves every
--     translation's source, its explanation goes to all of them) or is
--     named as reaching it (wide_unit_ids: a comment, which is stored on
--     the source unit where it is about the source string; comment_ids).
-- The whole keys are those of lock_scopes, so a process still running it
-- (an older version during an upgrade) excludes the new ones as before.
-- Keys are taken whole keys first, then parts, each in key order, so two
-- batches never wait on each other in a circle.
CREATE FUNCTION lock_write_scopes(space INTEGER, part_space INTEGER, unit_ids BIGINT[],
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
			FROM named n JOIN translations t ON t.id = n.tid JOIN components c ON c.id = t.component_id
			CROSS JOIN LATERAL (SELECT c.settings::jsonb @> '{"AllowTranslationPropagation": true}' AS on) p)
		SELECT 0 AS level, whole AS k, bool_and(part IS NOT NULL) AS parts FROM scopes GROUP BY whole
		UNION ALL
		SELECT DISTINCT 1, part, false FROM scopes WHERE part IS NOT NULL
		ORDER BY 1, 2) s;
	RETURN coalesce((SELECT timestamp FROM changes ORDER BY id DESC LIMIT 1), '');
END $$;
