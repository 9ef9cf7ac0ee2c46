-- Changes within a time window are found by id: timestamps never decrease
-- in id order (the writer's clock guard), so the changes after a time are
-- those from the first of them on, which changes_timestamp finds in one
-- seek. The (scope, id) indexes then serve every windowed count and list,
-- and the (scope, timestamp, id) indexes only cost every change recorded
-- a page each.
DROP INDEX changes_translation;
DROP INDEX changes_component;
DROP INDEX changes_project;
DROP INDEX changes_language;
CREATE INDEX changes_language_list ON changes(language_code, id);
