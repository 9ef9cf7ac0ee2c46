-- The writer counts the changes lists of the changes it inserts in its
-- batches of scoped writes (issue 31; changes.go, countedChanges). In
-- such a batch (tolk.defer_counts on, migration 0046) every change
-- reached list_counts in three steps: changes_list_insert, a statement
-- trigger over a transition table, wrote five rows an edit into
-- list_counts_delta (14 µs of the server's CPU an edit at concurrency 8,
-- pg_stat_statements), and the batch's fold deleted them again and added
-- them up (17 µs an edit). Now each change INSERT of such a batch notes
-- its rows' keys in the transaction's setting tolk.new_changes itself
-- ("id,translation,component,project,unit," with 0 for none), a setting
-- that a ROLLBACK TO SAVEPOINT undoes with the rows it noted, and the
-- fold adds them up from there with what the delta table holds (the
-- suggestions' lists, 0057). The keys are noted when the row is
-- inserted, as the trigger counted them: a later update or delete of the
-- row in the same transaction counts against them in place, as before.
-- Other transactions keep the trigger. Such a batch says so with a
-- setting of its own, tolk.changes_noted, not with tolk.defer_counts: a
-- process from before this migration, still running during an upgrade,
-- sets defer_counts but notes nothing, and its changes must still be
-- counted by the trigger.
DROP TRIGGER changes_list_insert ON changes;
CREATE TRIGGER changes_list_insert AFTER INSERT ON changes
	REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT
	WHEN (current_setting('tolk.changes_noted', true) IS DISTINCT FROM 'on')
	EXECUTE FUNCTION changes_list_insert();

-- The fold's statement reads the setting itself: a PL/pgSQL variable
-- would be its parameter, and its custom plans, made anew at every
-- batch, won every comparison with the generic one (26 µs of planning a
-- batch's edit); without parameters it keeps one plan.
CREATE OR REPLACE FUNCTION list_counts_fold() RETURNS void LANGUAGE plpgsql AS $$
BEGIN
	IF current_setting('tolk.new_changes', true) != '' THEN
		WITH a AS MATERIALIZED (SELECT string_to_array(rtrim(current_setting('tolk.new_changes', true), ','), ',')::BIGINT[] AS k),
			noted AS (SELECT k[i] AS id, k[i + 1] AS tr, k[i + 2] AS co, k[i + 3] AS pr, k[i + 4] AS un
				FROM a, generate_series(1, cardinality(k), 5) i),
			d AS (DELETE FROM list_counts_delta WHERE xid = txid_current() RETURNING list, scope, bucket, n),
			r AS (SELECT list, scope, bucket, n FROM d
				UNION ALL SELECT 'c', 0, id >> 10, 1 FROM noted
				UNION ALL SELECT 'ct', tr, id >> 10, 1 FROM noted WHERE tr != 0
				UNION ALL SELECT 'cc', co, id >> 10, 1 FROM noted WHERE co != 0
				UNION ALL SELECT 'cp', pr, id >> 10, 1 FROM noted WHERE pr != 0
				UNION ALL SELECT 'cu', un, id >> 10, 1 FROM noted WHERE un != 0)
		INSERT INTO list_counts (list, scope, bucket, n)
			SELECT list, scope, bucket, sum(n) FROM r GROUP BY 1, 2, 3 ORDER BY 1, 2, 3
			ON CONFLICT (list, scope, bucket) DO UPDATE SET n = list_counts.n + excluded.n;
		PERFORM set_config('tolk.new_changes', '', true);
		RETURN;
	END IF;
	WITH d AS (DELETE FROM list_counts_delta WHERE xid = txid_current() RETURNING list, scope, bucket, n)
	INSERT INTO list_counts (list, scope, bucket, n)
		SELECT list, scope, bucket, sum(n) FROM d GROUP BY 1, 2, 3 ORDER BY 1, 2, 3
		ON CONFLICT (list, scope, bucket) DO UPDATE SET n = list_counts.n + excluded.n;
END $$;
