-- Units removed through the API (DELETE /api/units/<id>/) that the next
-- commit must also take out of their translation files. The unit rows are
-- gone by then, so this keeps what a writer needs to find the entry in
-- the file: the key (context), the source and the id_hash they hash to.
-- The write-back (sync) deletes a row once the file it names no longer
-- holds the unit; until then an import must not bring the unit back.
-- Only translations with a file get rows (a bilingual source translation
-- has none).
CREATE TABLE removed_units (
	id             INTEGER PRIMARY KEY,
	translation_id INTEGER NOT NULL REFERENCES translations(id) ON DELETE CASCADE,
	id_hash        INTEGER NOT NULL,
	context        TEXT NOT NULL DEFAULT '',
	source         TEXT NOT NULL DEFAULT '',
	removed        TEXT NOT NULL
);
CREATE INDEX removed_units_translation ON removed_units(translation_id);
