-- A source string's trigrams stored once, not in every translation
-- (issues 26 and 31; see the PostgreSQL migration of the same number).
-- A unit whose source is its source unit's (the same text, the source
-- unit's row current) is indexed in unit_trigrams without it, as
-- tolk_unit_text(context, '', target), and linked here to the source
-- unit whose row holds the source; a search for a needle that may be in
-- the source reads the units linked to the rows that hold its trigrams
-- too (trigram.go, trigramCandidates). A unit with no row here has its
-- whole text in unit_trigrams. The rows here are written and deleted
-- with the unit's text row by the step (trigram_pending.go), which notes
-- the units linked to a source unit it indexes anew.
CREATE TABLE unit_trigram_sources (
	unit_id        INTEGER PRIMARY KEY,
	source_unit_id INTEGER NOT NULL
);
CREATE INDEX unit_trigram_sources_source ON unit_trigram_sources(source_unit_id);

-- Every unit is indexed anew by the step, in batches after the upgrade;
-- the searches read the noted units exactly meanwhile. Only the text's
-- rows change (indexed 2: the keys' rows stay, migration 0065).
INSERT INTO unit_trigrams_pending (unit_id, indexed) SELECT id, 2 FROM units WHERE true ON CONFLICT DO NOTHING;
