-- The trigram index of the units' text (issue 27): substring, bare-word
-- and regex searches on source, target and context (search.go,
-- trigram.go) read the units that hold every trigram of the needle (of
-- a regex's required literals) instead of every unit, then match them
-- exactly as before.
--
-- An FTS5 table with the trigram tokenizer, contentless (the text is in
-- units) and detail=none (only which rows hold a trigram, not where: a
-- third of the size of detail=full; the exact match afterwards checks
-- the order). Each row is tolk_unit_text(context, source, target): the
-- three joined by a newline and lower-cased by Go's strings.ToLower, the
-- folding the search's own matching uses (tolk_icontains), so the index
-- never misses a unit the search would match. tolk_unit_text is a Go
-- function registered by the sqlstore package: the triggers below run in
-- Tolk's connections only, and a write to units from another program
-- (the sqlite3 shell) fails with "no such function" rather than leave
-- the index stale.
--
-- The triggers keep it exact under every write: inserts (imports, new
-- strings), edits of the three columns (the WHEN skips the edits of
-- state, flags and counters that most writes are) and deletes, cascades
-- from translations, components and projects included.
CREATE VIRTUAL TABLE unit_trigrams USING fts5(text, content = '', contentless_delete = 1, detail = none,
	tokenize = 'trigram case_sensitive 1');

-- No merging of the index's segments on every write (automerge 0):
-- with it, a write of 20,000 units' text (an import's update, a
-- removal) cost 4 to 10 times more, merging what the next write merges
-- again. Segments still merge when 16 pile up on one level
-- (crisismerge), so a search reads a bounded number of them.
INSERT INTO unit_trigrams (unit_trigrams, rank) VALUES ('automerge', 0);

INSERT INTO unit_trigrams (rowid, text) SELECT id, tolk_unit_text(context, source, target) FROM units;

CREATE TRIGGER units_trigrams_insert AFTER INSERT ON units BEGIN
	INSERT INTO unit_trigrams (rowid, text) VALUES (new.id, tolk_unit_text(new.context, new.source, new.target));
END;

CREATE TRIGGER units_trigrams_update AFTER UPDATE OF context, source, target ON units
	WHEN old.context != new.context OR old.source != new.source OR old.target != new.target BEGIN
	DELETE FROM unit_trigrams WHERE rowid = old.id;
	INSERT INTO unit_trigrams (rowid, text) VALUES (new.id, tolk_unit_text(new.context, new.source, new.target));
END;

CREATE TRIGGER units_trigrams_delete AFTER DELETE ON units BEGIN
	DELETE FROM unit_trigrams WHERE rowid = old.id;
END;
