-- Page numbers without OFFSET scans (index/sqlite/keyset.go).
--
-- list_counts holds, for every list the API pages, how many of its rows
-- fall in each bucket of 1,024 consecutive ids (bucket = id >> 10). To find
-- page N a reader sums the few bucket rows of the list up to the bucket
-- holding offset (N-1)*size, skips fewer than 1,024 index entries inside it
-- and reads the page by id from there; the sum of all rows is the list's
-- total. Lists:
--   'ut' units of translation <scope>; the list of all units sums the
--        'ut' rows of each bucket (one row per translation and bucket)
--        rather than costing every unit insert a second row
--   'c'  all changes (scope 0)    'ct' changes of translation <scope>
--   'cc' changes of component     'cp' changes of project
--   'cu' changes of unit
-- Triggers keep the rows exact on every write path, cascades and SET NULL
-- included (SQLite fires triggers for foreign key actions), at O(1) per
-- row written. A bucket row whose count drops to zero is deleted, so
-- deleted translations leave nothing behind.
CREATE TABLE list_counts (
	list   TEXT NOT NULL,
	scope  INTEGER NOT NULL,
	bucket INTEGER NOT NULL,
	n      INTEGER NOT NULL,
	PRIMARY KEY (list, scope, bucket)
) WITHOUT ROWID;

INSERT INTO list_counts (list, scope, bucket, n)
	SELECT 'ut', translation_id, id >> 10, count(*) FROM units GROUP BY translation_id, id >> 10;
INSERT INTO list_counts (list, scope, bucket, n)
	SELECT 'c', 0, id >> 10, count(*) FROM changes GROUP BY id >> 10;
INSERT INTO list_counts (list, scope, bucket, n)
	SELECT 'ct', translation_id, id >> 10, count(*) FROM changes
	WHERE translation_id IS NOT NULL GROUP BY translation_id, id >> 10;
INSERT INTO list_counts (list, scope, bucket, n)
	SELECT 'cc', component_id, id >> 10, count(*) FROM changes
	WHERE component_id IS NOT NULL GROUP BY component_id, id >> 10;
INSERT INTO list_counts (list, scope, bucket, n)
	SELECT 'cp', project_id, id >> 10, count(*) FROM changes
	WHERE project_id IS NOT NULL GROUP BY project_id, id >> 10;
INSERT INTO list_counts (list, scope, bucket, n)
	SELECT 'cu', unit_id, id >> 10, count(*) FROM changes
	WHERE unit_id IS NOT NULL GROUP BY unit_id, id >> 10;

-- A page of a change list is read by id from the position list_counts
-- finds (the API orders by (timestamp, id), the same order, see below).
-- The (x, timestamp, id) indexes of 0001 cannot seek on the id: SQLite's
-- row-value seek stops short of the rowid, so ties on a timestamp (every
-- change of one import shares it) would be scanned. These end in the rowid.
-- The older indexes stay: statistics count recent changes by timestamp.
CREATE INDEX changes_translation_list ON changes(translation_id);
CREATE INDEX changes_component_list ON changes(component_id);
CREATE INDEX changes_project_list ON changes(project_id);

-- Changes are listed by (timestamp, id) and counted by id, which agree
-- only while timestamps never decrease in id order. From now on the writer
-- clamps its clock to the last change (DB.write); a change recorded
-- earlier under a clock that went backwards is moved forward to the
-- latest timestamp before it in id order, the order it was recorded in.
UPDATE changes SET timestamp = m.ts
	FROM (SELECT id, max(timestamp) OVER (ORDER BY id) AS ts FROM changes) AS m
	WHERE m.id = changes.id AND m.ts > changes.timestamp;

-- The triggers. A row whose scope column is NULL belongs to no list of
-- that scope (`scope = NULL` matches nothing). Inserts, the hot path of an
-- import, add to all their lists in one statement: in
-- BenchmarkImportTranslation that was a little faster than one statement
-- per list. The unit triggers write one row, not two (see 'ut' above):
-- that took 3% off creating and 11% off removing 20,000 units.
CREATE TRIGGER units_list_insert AFTER INSERT ON units BEGIN
	INSERT INTO list_counts (list, scope, bucket, n) VALUES ('ut', new.translation_id, new.id >> 10, 1)
		ON CONFLICT (list, scope, bucket) DO UPDATE SET n = n + 1;
END;

CREATE TRIGGER units_list_delete AFTER DELETE ON units BEGIN
	UPDATE list_counts SET n = n - 1 WHERE list = 'ut' AND scope = old.translation_id AND bucket = old.id >> 10;
	DELETE FROM list_counts WHERE list = 'ut' AND scope = old.translation_id AND bucket = old.id >> 10 AND n = 0;
END;

-- Nothing moves a unit today; this keeps the counts exact if anything does.
CREATE TRIGGER units_list_update AFTER UPDATE OF id, translation_id ON units
WHEN old.id != new.id OR old.translation_id != new.translation_id BEGIN
	UPDATE list_counts SET n = n - 1 WHERE list = 'ut' AND scope = old.translation_id AND bucket = old.id >> 10;
	DELETE FROM list_counts WHERE list = 'ut' AND scope = old.translation_id AND bucket = old.id >> 10 AND n = 0;
	INSERT INTO list_counts SELECT 'ut', new.translation_id, new.id >> 10, 1 WHERE new.translation_id IS NOT NULL
		ON CONFLICT (list, scope, bucket) DO UPDATE SET n = n + 1;
END;

CREATE TRIGGER changes_list_insert AFTER INSERT ON changes BEGIN
	INSERT INTO list_counts (list, scope, bucket, n)
		SELECT list, scope, new.id >> 10, 1 FROM (
			SELECT 'c' AS list, 0 AS scope
			UNION ALL SELECT 'ct', new.translation_id
			UNION ALL SELECT 'cc', new.component_id
			UNION ALL SELECT 'cp', new.project_id
			UNION ALL SELECT 'cu', new.unit_id)
		WHERE scope IS NOT NULL
		ON CONFLICT (list, scope, bucket) DO UPDATE SET n = n + 1;
END;

CREATE TRIGGER changes_list_delete AFTER DELETE ON changes BEGIN
	UPDATE list_counts SET n = n - 1 WHERE list = 'c' AND scope = 0 AND bucket = old.id >> 10;
	DELETE FROM list_counts WHERE list = 'c' AND scope = 0 AND bucket = old.id >> 10 AND n = 0;
	UPDATE list_counts SET n = n - 1 WHERE list = 'ct' AND scope = old.translation_id AND bucket = old.id >> 10;
	DELETE FROM list_counts WHERE list = 'ct' AND scope = old.translation_id AND bucket = old.id >> 10 AND n = 0;
	UPDATE list_counts SET n = n - 1 WHERE list = 'cc' AND scope = old.component_id AND bucket = old.id >> 10;
	DELETE FROM list_counts WHERE list = 'cc' AND scope = old.component_id AND bucket = old.id >> 10 AND n = 0;
	UPDATE list_counts SET n = n - 1 WHERE list = 'cp' AND scope = old.project_id AND bucket = old.id >> 10;
	DELETE FROM list_counts WHERE list = 'cp' AND scope = old.project_id AND bucket = old.id >> 10 AND n = 0;
	UPDATE list_counts SET n = n - 1 WHERE list = 'cu' AND scope = old.unit_id AND bucket = old.id >> 10;
	DELETE FROM list_counts WHERE list = 'cu' AND scope = old.unit_id AND bucket = old.id >> 10 AND n = 0;
END;

-- Deleting a unit sets its changes' unit_id to NULL (ON DELETE SET NULL),
-- which takes them out of the unit's list and no other.
CREATE TRIGGER changes_list_update_unit AFTER UPDATE OF unit_id ON changes
WHEN old.unit_id IS NOT new.unit_id AND old.id = new.id
	AND (old.translation_id, old.component_id, old.project_id) IS (new.translation_id, new.component_id, new.project_id) BEGIN
	UPDATE list_counts SET n = n - 1 WHERE list = 'cu' AND scope = old.unit_id AND bucket = old.id >> 10;
	DELETE FROM list_counts WHERE list = 'cu' AND scope = old.unit_id AND bucket = old.id >> 10 AND n = 0;
	INSERT INTO list_counts SELECT 'cu', new.unit_id, new.id >> 10, 1 WHERE new.unit_id IS NOT NULL
		ON CONFLICT (list, scope, bucket) DO UPDATE SET n = n + 1;
END;

-- Nothing else moves a change today; this keeps the counts exact if
-- anything does.
CREATE TRIGGER changes_list_update AFTER UPDATE OF id, translation_id, component_id, project_id ON changes
WHEN (old.id, old.translation_id, old.component_id, old.project_id)
	IS NOT (new.id, new.translation_id, new.component_id, new.project_id) BEGIN
	UPDATE list_counts SET n = n - 1 WHERE list = 'c' AND scope = 0 AND bucket = old.id >> 10;
	DELETE FROM list_counts WHERE list = 'c' AND scope = 0 AND bucket = old.id >> 10 AND n = 0;
	UPDATE list_counts SET n = n - 1 WHERE list = 'ct' AND scope = old.translation_id AND bucket = old.id >> 10;
	DELETE FROM list_counts WHERE list = 'ct' AND scope = old.translation_id AND bucket = old.id >> 10 AND n = 0;
	UPDATE list_counts SET n = n - 1 WHERE list = 'cc' AND scope = old.component_id AND bucket = old.id >> 10;
	DELETE FROM list_counts WHERE list = 'cc' AND scope = old.component_id AND bucket = old.id >> 10 AND n = 0;
	UPDATE list_counts SET n = n - 1 WHERE list = 'cp' AND scope = old.project_id AND bucket = old.id >> 10;
	DELETE FROM list_counts WHERE list = 'cp' AND scope = old.project_id AND bucket = old.id >> 10 AND n = 0;
	UPDATE list_counts SET n = n - 1 WHERE list = 'cu' AND scope = old.unit_id AND bucket = old.id >> 10;
	DELETE FROM list_counts WHERE list = 'cu' AND scope = old.unit_id AND bucket = old.id >> 10 AND n = 0;
	INSERT INTO list_counts VALUES ('c', 0, new.id >> 10, 1)
		ON CONFLICT (list, scope, bucket) DO UPDATE SET n = n + 1;
	INSERT INTO list_counts SELECT 'ct', new.translation_id, new.id >> 10, 1 WHERE new.translation_id IS NOT NULL
		ON CONFLICT (list, scope, bucket) DO UPDATE SET n = n + 1;
	INSERT INTO list_counts SELECT 'cc', new.component_id, new.id >> 10, 1 WHERE new.component_id IS NOT NULL
		ON CONFLICT (list, scope, bucket) DO UPDATE SET n = n + 1;
	INSERT INTO list_counts SELECT 'cp', new.project_id, new.id >> 10, 1 WHERE new.project_id IS NOT NULL
		ON CONFLICT (list, scope, bucket) DO UPDATE SET n = n + 1;
	INSERT INTO list_counts SELECT 'cu', new.unit_id, new.id >> 10, 1 WHERE new.unit_id IS NOT NULL
		ON CONFLICT (list, scope, bucket) DO UPDATE SET n = n + 1;
END;
