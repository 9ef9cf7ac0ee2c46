-- A glossary's write rechecks other components' translations: an edit of
-- a glossary's unit (a term, or its translation) settles check_glossary
-- again on every unit of the project's translations whose components
-- name check-glossary, of the term's language (every language for a
-- source term), in the same transaction (checks_batch.go: rechecks).
-- Its batch locked only the glossary's own scope (migration 0095), so a
-- batch of another writer, in this process or another, editing a unit of
-- such a translation ran beside it: the recheck read the unit before that
-- edit committed and wrote its check rows and has_failing_check after,
-- from the old target (or the edit checked its unit against the old
-- terms), and the counts no longer matched a recount. A batch that names
-- a unit, suggestion or translation of a glossary component now also
-- locks the scope of each translation its recheck may rewrite, as an
-- edit of that translation does (its component's key, or its project's
-- where it propagates, shared; its part key exclusive): the two take
-- turns. The translations are found as the recheck finds them, wider
-- (any source language: a propagated peer glossary's may differ; the
-- settings' text, which holds at least the components whose flags name
-- check-glossary), from the named glossary translations through a
-- LATERAL subquery kept apart (OFFSET 0: pulled up into the join, it was
-- planned as hashes of every translation and component) whose test of
-- the glossary is a one-time filter, so that a batch naming no glossary
-- reads nothing more, and each component's translations are read by its
-- key in another (a join hashed every translation). Keys, their kinds and their order are 0104's.
-- A source term's edit rechecks every language: a component that does
-- not propagate is then locked whole, exclusive (one lock), not
-- translation by translation (50 such components of 100 languages were
-- 5,000 advisory locks in one transaction, against the server's lock
-- table of max_locks_per_transaction a connection); one that propagates
-- keeps its project's language keys (as many as languages, whatever the
-- components).
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
			WITH named AS MATERIALIZED (SELECT DISTINCT u.translation_id AS tid FROM units u WHERE u.id = ANY(unit_ids)),
			own AS MATERIALIZED (
				SELECT t.is_source, t.language_code, t.id, c.id AS cid, c.project_id, c.propagates, c.is_glossary
				FROM named n
				CROSS JOIN LATERAL (SELECT t.is_source, t.language_code, t.id, t.component_id FROM translations t
					WHERE t.id = n.tid LIMIT 1) t
				JOIN components c ON c.id = t.component_id),
			scoped AS (
				SELECT o.is_source, o.language_code, o.id, o.cid, o.project_id, o.propagates FROM own o
				UNION ALL
				SELECT g.* FROM own o CROSS JOIN LATERAL (
					SELECT CASE WHEN xc.propagates THEN 0 ELSE o.is_source END, x.language_code, x.id, xc.id, xc.project_id, xc.propagates
					FROM components xc CROSS JOIN LATERAL (SELECT x.is_source, x.language_code, x.id FROM translations x
						WHERE x.component_id = xc.id AND x.is_source = 0
							AND (o.is_source != 0 OR x.language_code = o.language_code) OFFSET 0) x
					WHERE o.is_glossary != 0 AND xc.project_id = o.project_id AND xc.is_glossary = 0
						AND xc.settings LIKE '%check-glossary%' OFFSET 0) g),
			scopes AS (
				SELECT hashint8(CASE WHEN s.propagates THEN -s.project_id ELSE s.cid END) AS whole,
					CASE WHEN s.is_source != 0 THEN NULL
						WHEN s.propagates THEN hashtext(s.project_id || ':' || s.language_code)
						ELSE hashint8(s.id) END AS part
				FROM scoped s)
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
		own AS MATERIALIZED (
			SELECT t.is_source, t.language_code, t.id, c.id AS cid, c.project_id, c.propagates, c.is_glossary, n.wide
			FROM named n
			CROSS JOIN LATERAL (SELECT t.is_source, t.language_code, t.id, t.component_id FROM translations t
				WHERE t.id = n.tid LIMIT 1) t
			JOIN components c ON c.id = t.component_id),
		scoped AS (
			SELECT o.is_source, o.language_code, o.id, o.cid, o.project_id, o.propagates, o.wide FROM own o
			UNION ALL
			SELECT g.* FROM own o CROSS JOIN LATERAL (
				SELECT CASE WHEN xc.propagates THEN 0 ELSE o.is_source END, x.language_code, x.id, xc.id, xc.project_id, xc.propagates, false
				FROM components xc CROSS JOIN LATERAL (SELECT x.is_source, x.language_code, x.id FROM translations x
					WHERE x.component_id = xc.id AND x.is_source = 0
						AND (o.is_source != 0 OR x.language_code = o.language_code) OFFSET 0) x
				WHERE o.is_glossary != 0 AND xc.project_id = o.project_id AND xc.is_glossary = 0
					AND xc.settings LIKE '%check-glossary%' OFFSET 0) g),
		scopes AS (
			SELECT hashint8(CASE WHEN s.propagates THEN -s.project_id ELSE s.cid END) AS whole,
				CASE WHEN s.wide OR s.is_source != 0 THEN NULL
					WHEN s.propagates THEN hashtext(s.project_id || ':' || s.language_code)
					ELSE hashint8(s.id) END AS part
			FROM scoped s)
		SELECT 0 AS level, whole AS k, bool_and(part IS NOT NULL) AS parts FROM scopes GROUP BY whole
		UNION ALL
		SELECT DISTINCT 1, part, false FROM scopes WHERE part IS NOT NULL
		ORDER BY 1, 2) s;
	RETURN coalesce((SELECT timestamp FROM changes ORDER BY id DESC LIMIT 1), '');
END $$;
