-- Trigrams of the units' keys (issue 27): key:/context: searches read
-- the units whose key holds the needle's trigrams. Through unit_trigrams
-- (the context, source and target together) key:Play read the 25,789
-- units that hold "play" anywhere and tested each one's key, where
-- 19,248 keys hold it (tolk-bench's corpus: 38 ms of CPU a request, 74
-- ms p99 on a quiet machine); a rarer substring of keys gains more.
--
-- FTS5 refuses column filters on a detail=none table, and detail=column
-- would store every trigram's column for all three texts, so the keys
-- are a second table of the same kind, kept by the same upkeep
-- (trigram_pending.go) from the same notes: it holds a row for a unit
-- exactly when unit_trigrams does (unit_trigrams_pending.indexed says
-- whether both do), so the step deletes and inserts the two together.
-- A row is tolk_unit_text(context, '', ''): the key folded by Go's
-- strings.ToLower as the matching folds it, and a key longer than
-- maxIndexedText indexed as the long-unit mark only, which every key
-- lookup also asks for.
CREATE VIRTUAL TABLE unit_key_trigrams USING fts5(key, content = '', contentless_delete = 1, detail = none,
	tokenize = 'trigram case_sensitive 1');

-- As unit_trigrams (migration 0033): merged by crisismerge, not per write.
INSERT INTO unit_key_trigrams (unit_key_trigrams, rank) VALUES ('automerge', 0);

-- A row for every unit unit_trigrams holds: every unit but those noted
-- as not indexed, and the units that are gone but still have a row
-- there (noted, indexed 1), whose row the step deletes from both.
INSERT INTO unit_key_trigrams (rowid, key)
	SELECT u.id, tolk_unit_text(u.context, '', '') FROM units u
	WHERE NOT EXISTS (SELECT 1 FROM unit_trigrams_pending p WHERE p.unit_id = u.id AND p.indexed = 0);
INSERT INTO unit_key_trigrams (rowid, key)
	SELECT p.unit_id, '' FROM unit_trigrams_pending p
	WHERE p.indexed = 1 AND NOT EXISTS (SELECT 1 FROM units u WHERE u.id = p.unit_id);
