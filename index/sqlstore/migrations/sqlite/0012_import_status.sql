-- How a component's last import or update went, for the API: the error
-- that stopped it ('' when it finished: a clone or fetch that failed,
-- a filemask that matches too much) and the files matching the filemask
-- that it left out, as a JSON array of {"filename", "reason"} (odd file
-- names, symbolic links leaving the repository). Parse errors of single
-- files stay on their translation (translations.load_error).
ALTER TABLE components ADD COLUMN import_error TEXT NOT NULL DEFAULT '';
ALTER TABLE components ADD COLUMN import_skipped TEXT NOT NULL DEFAULT '[]';
