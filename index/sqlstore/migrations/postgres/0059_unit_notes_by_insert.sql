-- New units are noted for the trigram index by the code that inserted
-- them (see the SQLite migration of the same number): the import's
-- INSERT … RETURNING hands their ids to one INSERT of notes, as SQLite's
-- rows do. The delete trigger (a statement trigger over its transition
-- table) and the update trigger stay; so does units_trigrams_note, which
-- the delete trigger runs.
DROP TRIGGER units_trigrams_insert ON units;
