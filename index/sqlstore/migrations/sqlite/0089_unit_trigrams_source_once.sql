-- A source string's trigrams stored once, not in every translation
-- (issues 26 and 31; see the PostgreSQL migration of the same number).
-- A unit whose source and key are its source unit's (the same texts,
-- the source unit's rows current) is indexed in unit_trigrams on its
-- target alone, as tolk_unit_text('', '', target), its row of
-- unit_key_trigrams empty, and linked here to the source unit whose
-- rows hold the source and key; a search for a needle that may be in
-- the source or key reads the units linked to the rows that hold its
-- trigrams too (trigram.go, trigramCandidates). A unit with no row here
-- has its whole text in its rows. The rows here are written and deleted
-- with the unit's rows by the step (trigram_pending.go), which notes
-- the units linked to a source unit it indexes anew.
CREATE TABLE unit_trigram_sources (
	unit_id        INTEGER PRIMARY KEY,
	source_unit_id INTEGER NOT NULL
);
CREATE INDEX unit_trigram_sources_source ON unit_trigram_sources(source_unit_id);

-- No unit is noted here: migration 0090 drops the links again on SQLite
-- (whole text in every row, as before 0089), so an upgrade from 0088
-- re-indexes nothing.
