-- A batch of unit edits outside glossaries locks its scopes with a
-- statement of a few plan nodes, and takes the locks in simple
-- expressions (issue 31: the server's CPU per batch at concurrency 8).
--
-- lock_write_scopes (migrations 0095, 0100, 0104, 0113) ran one statement
-- of about 25 plan nodes for every batch: the named units' translations
-- materialized, their components joined through LATERAL subqueries, the
-- glossary's recheck translations (0113) joined in behind a one-time
-- filter, the keys grouped, unioned and sorted, each lock a call in the
-- executor. The executor initializes and shuts down every node of a plan
-- at every run, whether a one-time filter leaves it idle or not: the
-- writer backend's profile at concurrency 8 had about a seventh of its
-- CPU in ExecutorStart, and the function cost about 260 us a call there
-- (about 150 of them in its statement's run, the rest its start, end and
-- the function's frame). A batch that names units only (the common one:
-- unit edits) now reads the keys in one aggregate over the units, their
-- translations and components (each translation by its key through a
-- LATERAL subquery, as 0100 reads them: the generic plan's guess of ten
-- units hashed the whole table otherwise), and takes the locks
-- in plpgsql loops whose calls are simple expressions (no executor). The
-- keys, their kinds, spaces and order are 0104's: every whole key
-- (component, or project where the component propagates) in key order,
-- shared where each of its translations has a part key, else exclusive
-- (a source translation's edit), then every part key (a translation, or
-- the project's language where it propagates) in key order, exclusive;
-- two batches, of this version or an older one, still lock in the same
-- order. A batch that names a glossary's unit (a quarter of tolk-bench's
-- edits) reads the translations its recheck rewrites in a second
-- statement, only then, from the glossary rows the aggregate kept (each
-- component's translations by its key, as 0113), merged with the keys
-- above before any lock is taken.
CREATE OR REPLACE FUNCTION lock_write_scopes(space INTEGER, part_space INTEGER, unit_ids BIGINT[],
	wide_unit_ids BIGINT[], suggestion_ids BIGINT[], comment_ids BIGINT[], translation_ids BIGINT[])
	RETURNS TEXT LANGUAGE plpgsql SET plan_cache_mode = force_generic_plan AS $$
DECLARE
	wholes INTEGER[];
	exclusive INTEGER[];
	parts INTEGER[];
	g_projects BIGINT[];
	g_languages TEXT[];
	g_sources INTEGER[];
	k INTEGER;
	done TEXT;
BEGIN
	IF cardinality(wide_unit_ids) = 0 AND cardinality(suggestion_ids) = 0 AND cardinality(comment_ids) = 0
		AND cardinality(translation_ids) = 0 THEN
		SELECT array_agg(DISTINCT s.whole ORDER BY s.whole),
			array_agg(DISTINCT s.whole ORDER BY s.whole) FILTER (WHERE s.part IS NULL),
			array_agg(DISTINCT s.part ORDER BY s.part) FILTER (WHERE s.part IS NOT NULL),
			array_agg(s.project_id) FILTER (WHERE s.glossary),
			array_agg(s.language_code) FILTER (WHERE s.glossary),
			array_agg(s.is_source) FILTER (WHERE s.glossary)
		INTO wholes, exclusive, parts, g_projects, g_languages, g_sources
		FROM (SELECT hashint8(CASE WHEN c.propagates THEN -c.project_id ELSE c.id END) AS whole,
				CASE WHEN t.is_source != 0 THEN NULL
					WHEN c.propagates THEN hashtext(c.project_id || ':' || t.language_code)
					ELSE hashint8(t.id) END AS part,
				c.is_glossary != 0 AS glossary, c.project_id, t.language_code, t.is_source
			FROM units u
			CROSS JOIN LATERAL (SELECT t.is_source, t.language_code, t.id, t.component_id FROM translations t
				WHERE t.id = u.translation_id LIMIT 1) t
			JOIN components c ON c.id = t.component_id
			WHERE u.id = ANY(unit_ids)) s;
		IF g_projects IS NOT NULL THEN
			-- A glossary's unit: its recheck's translations too (0113), each
			-- component's read by its key, merged with the keys above.
			SELECT array_agg(DISTINCT r.whole ORDER BY r.whole) FILTER (WHERE r.whole IS NOT NULL),
				array_agg(DISTINCT r.whole ORDER BY r.whole) FILTER (WHERE r.whole IS NOT NULL AND r.part IS NULL),
				array_agg(DISTINCT r.part ORDER BY r.part) FILTER (WHERE r.is_part AND r.part IS NOT NULL)
			INTO wholes, exclusive, parts
			FROM (
				SELECT w AS whole, CASE WHEN w = ANY(exclusive) THEN NULL ELSE 0 END AS part, false AS is_part
					FROM unnest(wholes) w
				UNION ALL SELECT NULL, p, true FROM unnest(parts) p
				UNION ALL
				SELECT hashint8(CASE WHEN xc.propagates THEN -xc.project_id ELSE xc.id END),
					CASE WHEN NOT xc.propagates AND g.is_source != 0 THEN NULL
						WHEN xc.propagates THEN hashtext(xc.project_id || ':' || x.language_code)
						ELSE hashint8(x.id) END, true
				FROM unnest(g_projects, g_languages, g_sources) g(project_id, language_code, is_source)
				JOIN components xc ON xc.project_id = g.project_id AND xc.is_glossary = 0
					AND xc.settings LIKE '%check-glossary%'
				CROSS JOIN LATERAL (SELECT x.language_code, x.id FROM translations x
					WHERE x.component_id = xc.id AND x.is_source = 0
						AND (g.is_source != 0 OR x.language_code = g.language_code) OFFSET 0) x) r;
		END IF;
		FOREACH k IN ARRAY coalesce(wholes, '{}') LOOP
			IF k = ANY(exclusive) THEN
				done := pg_advisory_xact_lock(space, k)::TEXT;
			ELSE
				done := pg_advisory_xact_lock_shared(space, k)::TEXT;
			END IF;
		END LOOP;
		FOREACH k IN ARRAY coalesce(parts, '{}') LOOP
			done := pg_advisory_xact_lock(part_space, k)::TEXT;
		END LOOP;
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
