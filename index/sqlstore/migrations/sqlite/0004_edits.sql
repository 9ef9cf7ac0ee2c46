-- Who has contributed to a translation: the first edit of a user in a
-- translation records "New contributor" (45), which this answers in one
-- lookup instead of a scan of the translation's changes.
CREATE TABLE contributors (
	translation_id INTEGER NOT NULL REFERENCES translations(id) ON DELETE CASCADE,
	user_id        INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,
	PRIMARY KEY (translation_id, user_id)
) WITHOUT ROWID;
INSERT INTO contributors (translation_id, user_id)
	SELECT DISTINCT translation_id, author_id FROM changes
	WHERE translation_id IS NOT NULL AND author_id IS NOT NULL;

-- Pending units are what the next commit writes back (sync); finding
-- them must not scan every unit.
CREATE INDEX units_pending ON units(translation_id) WHERE pending != 0;
