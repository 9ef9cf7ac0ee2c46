-- New units are noted for the trigram index by the code that inserted
-- them (see the SQLite migration of the same number): the import's
-- INSERT … RETURNING hands their ids to one INSERT of notes, as SQLite's
-- rows do. The delete trigger (a statement trigger over its transition
-- table) and the update trigger stay; so does units_trigrams_note, which
-- the delete trigger runs.
DROP TRIGGER units_trigrams_insert ON units;

-- A note already there is locked by the write that notes its unit again
-- (a no-op DO UPDATE where DO NOTHING took no lock), until that write
-- commits. The step takes the notes FOR UPDATE SKIP LOCKED (its batch
-- runs beside other processes' edits): with DO NOTHING, an edit that
-- found its unit's note already there committed its new text without
-- holding the note, and a step that took that note meanwhile read the
-- text the edit had not committed yet, indexed the old text and removed
-- the note (TestWritersKeepEveryUpdate failed about one run in eight,
-- "the trigram index does not hold its current text"). Now the step
-- skips a note an uncommitted edit holds, and an edit that finds a note
-- the step holds waits for the step's commit, then notes its unit anew.
CREATE OR REPLACE FUNCTION units_trigrams_note() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
	INSERT INTO unit_trigrams_pending (unit_id, indexed)
		SELECT id, CASE TG_OP WHEN 'INSERT' THEN 0 ELSE 1 END FROM noted
		ON CONFLICT (unit_id) DO UPDATE SET indexed = unit_trigrams_pending.indexed;
	RETURN NULL;
END $$;
CREATE OR REPLACE FUNCTION units_trigrams_update() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
	INSERT INTO unit_trigrams_pending (unit_id, indexed) VALUES (new.id, 1)
		ON CONFLICT (unit_id) DO UPDATE SET indexed = unit_trigrams_pending.indexed;
	RETURN NULL;
END $$;
