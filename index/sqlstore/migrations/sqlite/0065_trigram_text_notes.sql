-- An edit's note no longer re-indexes the unit's key (issue 26: the
-- PATCH's cost). Since migration 0062 the upkeep step (trigram_pending.go)
-- deleted and inserted a noted unit's rows in unit_trigrams and in
-- unit_key_trigrams alike, so every edit of a translation, which leaves
-- the key as it was, paid for its key too: 40% of the step's time, and
-- the step was half the writer's time under concurrent PATCHes
-- (tolk-bench's writes section, concurrency 8).
--
-- unit_trigrams_pending.indexed now tells three cases apart:
--   0  neither table holds a row for the unit (a new unit);
--   1  both do, and both are stale (the key changed, or the unit is gone);
--   2  both do, and only unit_trigrams's is stale (the source or target
--      changed, the key did not).
-- A note is upgraded from 2 to 1 by a later change of the key or the
-- unit's removal; 0 and 1 are never changed (the first note of an id
-- still decides whether the rows exist). PostgreSQL keeps a unit's key
-- in the same row as its text (migration 0062) and rewrites that row
-- whatever changed: nothing to migrate there.
DROP TRIGGER units_trigrams_update;
DROP TRIGGER units_trigrams_delete;

CREATE TRIGGER units_trigrams_update AFTER UPDATE OF context, source, target ON units
	WHEN old.context != new.context OR old.source != new.source OR old.target != new.target BEGIN
	INSERT INTO unit_trigrams_pending (unit_id, indexed)
		VALUES (new.id, CASE WHEN old.context != new.context THEN 1 ELSE 2 END)
		ON CONFLICT (unit_id) DO UPDATE SET indexed = 1
		WHERE unit_trigrams_pending.indexed = 2 AND excluded.indexed = 1;
END;

CREATE TRIGGER units_trigrams_delete AFTER DELETE ON units BEGIN
	INSERT INTO unit_trigrams_pending (unit_id, indexed) VALUES (old.id, 1)
		ON CONFLICT (unit_id) DO UPDATE SET indexed = 1 WHERE unit_trigrams_pending.indexed = 2;
END;
