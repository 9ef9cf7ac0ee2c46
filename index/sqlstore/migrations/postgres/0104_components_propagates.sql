-- lock_write_scopes (migration 0095) asked of every object a scoped batch
-- names whether its component propagates translations, by parsing the
-- component's settings as jsonb: at 7 edits a batch, the parse was about
-- 30 µs of the PostgreSQL server's CPU an edit at concurrency 8 (jsonb_in
-- 6% of the writer's backend in perf; issue 31). The answer now lives in
-- a column of its own, kept by a trigger whenever the settings are
-- written (components are written rarely), and the lock reads it. The
-- column is the trigger's: nothing in the process writes it, so a copy
-- of the rows keeps it right and an older process writing settings
-- during an upgrade has it kept for it.
ALTER TABLE components ADD COLUMN propagates BOOLEAN NOT NULL DEFAULT false;

CREATE FUNCTION components_propagates() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
	NEW.propagates := NEW.settings::jsonb @> '{"AllowTranslationPropagation": true}';
	RETURN NEW;
END $$;

CREATE TRIGGER components_propagates BEFORE INSERT OR UPDATE OF settings, propagates ON components
	FOR EACH ROW EXECUTE FUNCTION components_propagates();

UPDATE components SET propagates = settings::jsonb @> '{"AllowTranslationPropagation": true}';

-- The function, both of its statements reading the column. Besides: a
-- batch of unit edits, the common one (writers.go: scopes), names units
-- only, yet 0095's function ran its statement for every kind of object:
-- five UNION ALL branches, the units looked up once for each edit of the
-- batch and joined to their translation and component one by one. Its generic plan was started anew at each batch
-- (ExecutorStart about a third of the call's CPU in perf of the writer's
-- backend at concurrency 8; issue 31). When only units are named, the
-- same scopes now come from a smaller statement over the batch's
-- distinct translations (a batch's edits are mostly of one or a few);
-- other batches keep the whole statement. Both read each translation by
-- its key (a LATERAL subquery with LIMIT 1), as session 10's scale
-- branch does in its migration 0100 for the whole statement: on the
-- generic plan (force_generic_plan), a join guessed ten ids an array and
-- hashed a scan of every translation. This migration replaces the
-- function after 0100 and keeps that. The keys, their kinds and their
-- order are those of 0095: a process running either version excludes
-- the other's batches as before.
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
			scopes AS (
				SELECT hashint8(CASE WHEN c.propagates THEN -c.project_id ELSE c.id END) AS whole,
					CASE WHEN t.is_source != 0 THEN NULL
						WHEN c.propagates THEN hashtext(c.project_id || ':' || t.language_code)
						ELSE hashint8(t.id) END AS part
				FROM named n
				CROSS JOIN LATERAL (SELECT t.is_source, t.language_code, t.id, t.component_id FROM translations t
					WHERE t.id = n.tid LIMIT 1) t
				JOIN components c ON c.id = t.component_id)
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
			FROM named n
			CROSS JOIN LATERAL (SELECT t.is_source, t.language_code, t.id, t.component_id FROM translations t
				WHERE t.id = n.tid LIMIT 1) t
			JOIN components c ON c.id = t.component_id)
		SELECT 0 AS level, whole AS k, bool_and(part IS NOT NULL) AS parts FROM scopes GROUP BY whole
		UNION ALL
		SELECT DISTINCT 1, part, false FROM scopes WHERE part IS NOT NULL
		ORDER BY 1, 2) s;
	RETURN coalesce((SELECT timestamp FROM changes ORDER BY id DESC LIMIT 1), '');
END $$;
