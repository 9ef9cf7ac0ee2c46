-- The ids of the quality checks a suggestion's text fails, comma
-- separated, as the write that adds it ran them (reference workspace
-- §2.4: suggestions are checked, for display in the editor). Stored
-- rather than run per read: the checks need the component's flags and
-- the languages' plurals, which the writer already holds.
ALTER TABLE suggestions ADD COLUMN checks TEXT NOT NULL DEFAULT '';
