-- Changes within a time window are found by id: timestamps never decrease
-- in id order (the writer's clock guard, migration 0002), so the changes
-- after a time are those from the first of them on, which changes_timestamp
-- finds in one seek. The scope indexes ending in the id (the _list
-- indexes, and this new one for languages) then serve every windowed
-- count and list, and the (scope, timestamp, id) indexes only cost every
-- change recorded a page each: three of the eleven index pages an edit
-- dirtied.
DROP INDEX changes_translation;
DROP INDEX changes_component;
DROP INDEX changes_project;
DROP INDEX changes_language;
-- Ends in the rowid, so it is in id order within a language.
CREATE INDEX changes_language_list ON changes(language_code);
