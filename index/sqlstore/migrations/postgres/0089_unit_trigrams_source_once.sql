-- A source string's trigrams stored once, not in every translation
-- (issues 26 and 31: the index of 100x the corpus must fit the disk,
-- and its background step took 28 s after the corpus's import). Each
-- translation unit holds its source unit's text beside its target, so
-- its row of unit_trigrams repeated the source's trigrams in each of a
-- component's translations: about 70% of the trigram data.
--
-- A unit whose source and key are its source unit's (the same texts,
-- the source unit's row current) is now indexed without them: its row
-- holds its target's trigrams, no key trigrams, and source_unit_id
-- names the source unit whose row holds the source and key. A search
-- for a needle that may be in the source or key reads the rows that
-- hold the needle's trigrams and the rows linked to those (trigram.go,
-- trigramCandidates). A unit whose source or key differs (a monolingual
-- translation keeps the source it was imported with when its template
-- changes) or whose source unit is itself noted keeps the whole text,
-- source_unit_id NULL. The step keeps the links exact:
-- indexing a noted source unit anew notes the units linked to it
-- (trigram_pending.go). See the SQLite migration of the same number,
-- which keeps the links in a table of their own (unit_trigram_sources)
-- beside its contentless FTS5 table.
ALTER TABLE unit_trigrams ADD COLUMN source_unit_id BIGINT;
CREATE INDEX unit_trigrams_source ON unit_trigrams(source_unit_id) WHERE source_unit_id IS NOT NULL;

-- Every row holds the whole text, which stays true: the rows shrink as
-- the step indexes them anew, every unit in batches after the upgrade
-- (as migrations 0044, 0062 and 0077 did); the searches read the noted
-- units exactly meanwhile.
INSERT INTO unit_trigrams_pending (unit_id, indexed) SELECT unit_id, 1 FROM unit_trigrams ON CONFLICT (unit_id) DO NOTHING;
