-- The batch's fold of one noted change upserts its five rows from a
-- VALUES list (issue 31: the server's CPU a batch at concurrency 1, and at
-- 8 for a batch of one edit).
--
-- list_counts_fold (0096, 0109) parses the changes a batch's INSERTs noted
-- in tolk.new_changes and upserts their lists' rows from a statement of a
-- CTE scanned five times, grouped and sorted: for one change, the batch of
-- one edit, that statement's parse, scans, sort and grouping cost about as
-- much as its five rows' upserts. pgbench on a kept 1x index (BEGIN, the
-- noting's set_config, the fold, COMMIT; the backend's own CPU from /proc,
-- load 7-9): 0109's fold 144-154 us a transaction, this one 114-130, the
-- same five rows upserted from a VALUES list the client sends 95-107, the
-- transaction without the fold 28-37.
--
-- The one change's keys are parsed into an array by a simple expression
-- (no executor), and its rows upserted from a VALUES list of them: one
-- row a list, so no grouping (a statement's ON CONFLICT may not update a
-- row twice), already in key order (list, then scope and bucket), the
-- order every fold takes its rows' locks in. Its plan has the array as a
-- parameter and the same cost whatever it holds: the plan cache keeps
-- the generic one. Two changes or more, or delta rows (the suggestions'
-- lists), take 0109's statements as before.
CREATE OR REPLACE FUNCTION list_counts_fold() RETURNS void LANGUAGE plpgsql AS $$
DECLARE
	done TEXT;
	keys BIGINT[];
BEGIN
	IF current_setting('tolk.new_changes', true) <> '' THEN
		IF current_setting('tolk.delta_rows', true) IS DISTINCT FROM 'on' THEN
			-- One change noted and no delta rows: its five rows as they
			-- are, in key order ('c' < 'cc' < 'cp' < 'ct' < 'cu'), a
			-- scope of 0 (none) left out as below.
			keys := string_to_array(rtrim(current_setting('tolk.new_changes', true), ','), ',')::BIGINT[];
			IF cardinality(keys) = 5 THEN
				INSERT INTO list_counts (list, scope, bucket, n)
					SELECT v.list, v.scope, keys[1] >> 10, 1
					FROM (VALUES ('c', 0::BIGINT), ('cc', keys[3]), ('cp', keys[4]), ('ct', keys[2]), ('cu', keys[5])) v(list, scope)
					WHERE v.scope <> 0 OR v.list = 'c'
					ON CONFLICT (list, scope, bucket) DO UPDATE SET n = list_counts.n + excluded.n;
				done := set_config('tolk.new_changes', '', true);
				RETURN;
			END IF;
		END IF;
		IF current_setting('tolk.delta_rows', true) = 'on' THEN
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
			done := set_config('tolk.delta_rows', '', true);
		ELSE
			WITH a AS MATERIALIZED (SELECT string_to_array(rtrim(current_setting('tolk.new_changes', true), ','), ',')::BIGINT[] AS k),
				noted AS (SELECT k[i] AS id, k[i + 1] AS tr, k[i + 2] AS co, k[i + 3] AS pr, k[i + 4] AS un
					FROM a, generate_series(1, cardinality(k), 5) i),
				r AS (SELECT 'c' AS list, 0::BIGINT AS scope, id >> 10 AS bucket FROM noted
					UNION ALL SELECT 'ct', tr, id >> 10 FROM noted WHERE tr != 0
					UNION ALL SELECT 'cc', co, id >> 10 FROM noted WHERE co != 0
					UNION ALL SELECT 'cp', pr, id >> 10 FROM noted WHERE pr != 0
					UNION ALL SELECT 'cu', un, id >> 10 FROM noted WHERE un != 0)
			INSERT INTO list_counts (list, scope, bucket, n)
				SELECT list, scope, bucket, count(*) FROM r GROUP BY 1, 2, 3 ORDER BY 1, 2, 3
				ON CONFLICT (list, scope, bucket) DO UPDATE SET n = list_counts.n + excluded.n;
		END IF;
		done := set_config('tolk.new_changes', '', true);
		RETURN;
	END IF;
	IF current_setting('tolk.delta_rows', true) = 'on' THEN
		WITH d AS (DELETE FROM list_counts_delta WHERE xid = txid_current() RETURNING list, scope, bucket, n)
		INSERT INTO list_counts (list, scope, bucket, n)
			SELECT list, scope, bucket, sum(n) FROM d GROUP BY 1, 2, 3 ORDER BY 1, 2, 3
			ON CONFLICT (list, scope, bucket) DO UPDATE SET n = list_counts.n + excluded.n;
		done := set_config('tolk.delta_rows', '', true);
	END IF;
END $$;
