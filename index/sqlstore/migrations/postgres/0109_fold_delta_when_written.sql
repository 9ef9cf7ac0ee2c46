-- The batch's fold reads list_counts_delta only when the transaction
-- wrote to it (issue 31: the server's CPU per edit at concurrency 8).
--
-- list_counts_fold (migration 0096) ran a DELETE of the transaction's
-- list_counts_delta rows at every batch, inside the statement that folds
-- the noted changes; all but a batch that adds suggestions (0057) or a
-- change outside the noted INSERT (changes_list_insert, 0096) found none.
-- The two functions that write delta rows now say so in the transaction's
-- setting tolk.delta_rows, and the fold reads and deletes the rows only
-- then: otherwise its statement has no DELETE (no second table opened,
-- no scan of list_counts_delta_xid), and a fold with nothing noted runs no
-- statement at all. A ROLLBACK TO SAVEPOINT undoes the setting with the
-- rows it speaks for. Every writer of list_counts_delta is one of these
-- two trigger functions (no statement in the Go code writes it). The
-- settings are cleared by assignment, a PL/pgSQL simple expression, where
-- PERFORM ran a SELECT through the executor.
--
-- During an upgrade a transaction of a process that had written delta
-- rows through the old functions before this migration committed, and
-- folds after it, would leave them: upgrades stop every process
-- (docs/postgresql.md).
CREATE OR REPLACE FUNCTION changes_list_insert() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
	said TEXT;
BEGIN
	INSERT INTO list_counts_delta (list, scope, bucket, n)
		SELECT list, scope, bucket, count(*) FROM (
			SELECT 'c' AS list, 0::BIGINT AS scope, id >> 10 AS bucket FROM new_rows
			UNION ALL SELECT 'ct', translation_id, id >> 10 FROM new_rows WHERE translation_id IS NOT NULL
			UNION ALL SELECT 'cc', component_id, id >> 10 FROM new_rows WHERE component_id IS NOT NULL
			UNION ALL SELECT 'cp', project_id, id >> 10 FROM new_rows WHERE project_id IS NOT NULL
			UNION ALL SELECT 'cu', unit_id, id >> 10 FROM new_rows WHERE unit_id IS NOT NULL) r
		GROUP BY 1, 2, 3;
	said := set_config('tolk.delta_rows', 'on', true);
	IF current_setting('tolk.defer_counts', true) IS DISTINCT FROM 'on' THEN
		PERFORM list_counts_fold();
	END IF;
	RETURN NULL;
END $$;

CREATE OR REPLACE FUNCTION suggestions_list_insert() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
	said TEXT;
BEGIN
	INSERT INTO list_counts_delta (list, scope, bucket, n)
		SELECT list, scope, bucket, count(*) FROM (
			SELECT 's' AS list, 0::BIGINT AS scope, id >> 10 AS bucket FROM new_rows
			UNION ALL SELECT 'su', unit_id, id >> 10 FROM new_rows) r
		GROUP BY 1, 2, 3;
	said := set_config('tolk.delta_rows', 'on', true);
	IF current_setting('tolk.defer_counts', true) IS DISTINCT FROM 'on' THEN
		PERFORM list_counts_fold();
	END IF;
	RETURN NULL;
END $$;

-- The statements read the settings themselves, for one plan each (0096).
-- The settings are cleared by assignment, a simple expression, where
-- PERFORM ran a SELECT through the executor.
CREATE OR REPLACE FUNCTION list_counts_fold() RETURNS void LANGUAGE plpgsql AS $$
DECLARE
	done TEXT;
BEGIN
	IF current_setting('tolk.new_changes', true) <> '' THEN
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
