-- The counters' functions in PL/pgSQL (issue 31). list_add and
-- list_counts_fold were SQL functions, which PostgreSQL cannot inline
-- when they write: it parses and plans their statements on every call,
-- keeping no plan between calls. pg_stat_statements on an edit (track =
-- all) showed list_add at 141 µs a call (its INSERT 20 µs of it) and the
-- fold at 218 µs (its statement 61 µs): an edit that brings a unit into
-- or out of the memory list ran the one, every batch of edits the other.
-- A PL/pgSQL function keeps its plans for the session. list_add also
-- deletes a row only when its upsert left it at zero, where it probed
-- the key a second time on every call.
CREATE OR REPLACE FUNCTION list_add(l TEXT, s BIGINT, b BIGINT, d BIGINT) RETURNS void LANGUAGE plpgsql AS $$
DECLARE
	left_n BIGINT;
BEGIN
	IF s IS NULL THEN
		RETURN;
	END IF;
	INSERT INTO list_counts (list, scope, bucket, n) VALUES (l, s, b, d)
		ON CONFLICT (list, scope, bucket) DO UPDATE SET n = list_counts.n + excluded.n
		RETURNING n INTO left_n;
	IF left_n = 0 THEN
		DELETE FROM list_counts WHERE list = l AND scope = s AND bucket = b AND n = 0;
	END IF;
END $$;

CREATE OR REPLACE FUNCTION list_counts_fold() RETURNS void LANGUAGE plpgsql AS $$
BEGIN
	WITH d AS (DELETE FROM list_counts_delta WHERE xid = txid_current() RETURNING list, scope, bucket, n)
	INSERT INTO list_counts (list, scope, bucket, n)
		SELECT list, scope, bucket, sum(n) FROM d GROUP BY 1, 2, 3 ORDER BY 1, 2, 3
		ON CONFLICT (list, scope, bucket) DO UPDATE SET n = list_counts.n + excluded.n;
END $$;

