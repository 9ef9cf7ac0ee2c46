-- A batch of scoped writes locks its scopes (writers.go) with this
-- function, and reads the newest change's time in the same call (the
-- clock guard). The statement was sent as is, and PostgreSQL planned it
-- anew for every batch: a custom plan for each array of ids looked
-- cheaper than the generic one, whose estimate assumes arrays of ten, so
-- the plan cache never settled, and planning its joins took 301 µs a
-- batch against 78 µs to run them (pg_stat_statements with
-- track_planning, serial unit edits). The function keeps one generic
-- plan per session (its SET applies inside it only): every branch is a
-- lookup by primary or foreign key whatever the arrays hold. Scopes are
-- locked in key order, so that two batches never wait on each other in
-- a circle; the project stands for the component when the component
-- propagates translations (propagate.go).
CREATE FUNCTION lock_scopes(space INTEGER, unit_ids BIGINT[], suggestion_ids BIGINT[],
	comment_ids BIGINT[], translation_ids BIGINT[]) RETURNS TEXT LANGUAGE plpgsql
	SET plan_cache_mode = force_generic_plan AS $$
BEGIN
	PERFORM pg_advisory_xact_lock(space, k) FROM (
		SELECT DISTINCT hashint8(CASE WHEN c.settings::jsonb @> '{"AllowTranslationPropagation": true}'
			THEN -c.project_id ELSE c.id END) AS k
		FROM translations t JOIN components c ON c.id = t.component_id
		WHERE t.id IN (SELECT u.translation_id FROM units u WHERE u.id = ANY(unit_ids)
			UNION ALL SELECT u.translation_id FROM suggestions s JOIN units u ON u.id = s.unit_id
				WHERE s.id = ANY(suggestion_ids)
			UNION ALL SELECT u.translation_id FROM comments m JOIN units u ON u.id = m.unit_id
				WHERE m.id = ANY(comment_ids)
			UNION ALL SELECT unnest(translation_ids))
		ORDER BY 1) s;
	RETURN coalesce((SELECT timestamp FROM changes ORDER BY id DESC LIMIT 1), '');
END $$;
