-- has:glossary (issue 27; glossary_matches.go): the source units whose
-- source holds a term of their project's glossaries, kept by the
-- trigram index's upkeep (trigram_pending.go) rather than matched at
-- query time, so a search's cost is one semi-join whatever the number
-- of terms and units. A unit's row is written when the step indexes its
-- noted text; a project's rows all again when its term list changed
-- (glossary_sums holds the checksum of the list they were matched
-- against). Units deleted take their row with them.
CREATE TABLE glossary_matches (
	unit_id BIGINT PRIMARY KEY REFERENCES units(id) ON DELETE CASCADE
);

CREATE TABLE glossary_sums (
	project_id BIGINT PRIMARY KEY REFERENCES projects(id) ON DELETE CASCADE,
	sum        TEXT NOT NULL
);
