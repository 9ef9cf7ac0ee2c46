-- A trigram index of the imported entries' source texts (issue 27): the
-- memory list's source= filter (memory.go FindMemory) reads the entries
-- that hold the needle's trigrams, as unit searches read unit_trigrams
-- (migration 0033, trigram.go), and matches them exactly; a count or a
-- deep page no longer reads every imported entry. The text is folded as
-- unit_trigrams' (tolk_unit_text, with no context or target), a text
-- over maxIndexedText indexed as the long-text mark that every lookup
-- also asks for. Imports of entries are rare and written by the import
-- itself, so triggers keep the index, without unit_trigrams' notes.
CREATE VIRTUAL TABLE memory_trigrams USING fts5(text, content = '', contentless_delete = 1, detail = none,
	tokenize = 'trigram case_sensitive 1');

INSERT INTO memory_trigrams (rowid, text) SELECT id, tolk_unit_text('', source, '') FROM memory;

CREATE TRIGGER memory_trigrams_insert AFTER INSERT ON memory BEGIN
	INSERT INTO memory_trigrams (rowid, text) VALUES (new.id, tolk_unit_text('', new.source, ''));
END;

CREATE TRIGGER memory_trigrams_update AFTER UPDATE OF id, source ON memory
	WHEN old.id != new.id OR old.source != new.source BEGIN
	DELETE FROM memory_trigrams WHERE rowid = old.id;
	INSERT INTO memory_trigrams (rowid, text) VALUES (new.id, tolk_unit_text('', new.source, ''));
END;

CREATE TRIGGER memory_trigrams_delete AFTER DELETE ON memory BEGIN
	DELETE FROM memory_trigrams WHERE rowid = old.id;
END;
