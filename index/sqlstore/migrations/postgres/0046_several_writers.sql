-- Several writers (issue 31): processes sharing the database write
-- different components at the same time (writers.go). Two things that
-- every write touched stop being a queue:
--
-- write_log's seq comes from a sequence, drawn under a short lock taken
-- by the INSERT itself and held to the commit (logWrite), so that entries
-- still commit in seq order, which the replay relies on. max(seq) + 1
-- needed the one lock that every write held from its first statement.
CREATE SEQUENCE write_log_seq;
SELECT setval('write_log_seq', (SELECT coalesce(max(seq), 0) + 1 FROM write_log), false);

-- The changes lists' counters: every change inserted bumps the rows of
-- the whole list ('c', scope 0) and of its project, which two writers on
-- different components of a project would wait on from their first
-- change to their commit. So changes are counted here first, without a
-- unique key that writers could wait on, and folded into list_counts
-- (list_counts_fold, in key order, so that two folds never wait on each
-- other in a circle): at once, or, in a transaction that sets
-- tolk.defer_counts (the writer does when it holds the write lock
-- shared), once just before it commits (foldListCounts). Rows never
-- outlive their transaction: the table is UNLOGGED (a crash empties it,
-- which is right) and indexed by the transaction, whose rows a fold
-- takes.
CREATE UNLOGGED TABLE list_counts_delta (
	xid    BIGINT NOT NULL DEFAULT txid_current(),
	list   TEXT NOT NULL,
	scope  BIGINT NOT NULL,
	bucket BIGINT NOT NULL,
	n      BIGINT NOT NULL
);
CREATE INDEX list_counts_delta_xid ON list_counts_delta (xid);

CREATE FUNCTION list_counts_fold() RETURNS void LANGUAGE sql AS $$
	WITH d AS (DELETE FROM list_counts_delta WHERE xid = txid_current() RETURNING list, scope, bucket, n)
	INSERT INTO list_counts (list, scope, bucket, n)
		SELECT list, scope, bucket, sum(n) FROM d GROUP BY 1, 2, 3 ORDER BY 1, 2, 3
		ON CONFLICT (list, scope, bucket) DO UPDATE SET n = list_counts.n + excluded.n;
$$;

CREATE OR REPLACE FUNCTION changes_list_insert() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
	INSERT INTO list_counts_delta (list, scope, bucket, n)
		SELECT list, scope, bucket, count(*) FROM (
			SELECT 'c' AS list, 0::BIGINT AS scope, id >> 10 AS bucket FROM new_rows
			UNION ALL SELECT 'ct', translation_id, id >> 10 FROM new_rows WHERE translation_id IS NOT NULL
			UNION ALL SELECT 'cc', component_id, id >> 10 FROM new_rows WHERE component_id IS NOT NULL
			UNION ALL SELECT 'cp', project_id, id >> 10 FROM new_rows WHERE project_id IS NOT NULL
			UNION ALL SELECT 'cu', unit_id, id >> 10 FROM new_rows WHERE unit_id IS NOT NULL) r
		GROUP BY 1, 2, 3;
	IF current_setting('tolk.defer_counts', true) IS DISTINCT FROM 'on' THEN
		PERFORM list_counts_fold();
	END IF;
	RETURN NULL;
END $$;
