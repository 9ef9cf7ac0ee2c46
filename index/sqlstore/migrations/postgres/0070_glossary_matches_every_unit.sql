-- has:glossary (issue 27; glossary_matches.go): glossary_matches now
-- holds a row for every unit whose source unit's source holds a term,
-- translation units as well as source units, and a search tests the
-- unit's own id (searchCompiler.glossary): the test of the source
-- unit's id counted through units_source, which migration 0068 dropped.
-- Forgetting the checksums the rows were matched against makes the
-- upkeep's next run match every project with terms again
-- (refreshGlossaryMatches), which writes the translation units' rows.
DELETE FROM glossary_sums;
