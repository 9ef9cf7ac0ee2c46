-- Trigrams of the units' keys (issue 27; see the SQLite migration of the
-- same number for why): key:/context: searches read the units whose key
-- holds the needle's trigrams, not those whose text does.
--
-- A column of unit_trigrams under a GIN index of its own, written by the
-- same step (trigram_pending.go) from the same notes: the key folded by
-- lower() and cut in Go, or the long-unit mark for a unit whose text is
-- longer than maxIndexedText.
ALTER TABLE unit_trigrams ADD COLUMN key_trigrams TEXT[] NOT NULL DEFAULT '{}';
CREATE INDEX unit_trigrams_key_gin ON unit_trigrams USING gin (key_trigrams);

-- The rows hold no key yet: the step indexes every unit that has one
-- anew, in batches after the upgrade (as migration 0044 did), and the
-- searches read the noted units exactly meanwhile. A unit already noted
-- keeps its note.
INSERT INTO unit_trigrams_pending (unit_id, indexed)
	SELECT g.unit_id, 1 FROM unit_trigrams g JOIN units u ON u.id = g.unit_id WHERE u.context != ''
	ON CONFLICT (unit_id) DO NOTHING;
