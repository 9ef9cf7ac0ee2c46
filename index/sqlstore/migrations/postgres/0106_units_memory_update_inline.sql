-- The memory list's row trigger on units (migration 0063) fires at a
-- unit's first translation (and whenever a unit enters or leaves the
-- list), about every other edit in BenchmarkWriterCPU. It called
-- list_add through PERFORM: a SELECT run by the executor around a second
-- PL/pgSQL function, whose body then ran the upsert (list_add's calls
-- were a third of the trigger functions' CPU in perf of the writer's
-- backend at concurrency 8; issue 31). The trigger now runs list_add's
-- statements itself: the same upsert, and the same removal of a row
-- whose count reaches 0. A unit's translation_id is never NULL, which is
-- all list_add's NULL check was for here.
CREATE OR REPLACE FUNCTION units_memory_update() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
	left_n BIGINT;
BEGIN
	IF old.state >= 10 AND old.target <> '' THEN
		INSERT INTO list_counts (list, scope, bucket, n) VALUES ('mu', old.translation_id, old.id >> 10, -1)
			ON CONFLICT (list, scope, bucket) DO UPDATE SET n = list_counts.n + excluded.n
			RETURNING n INTO left_n;
		IF left_n = 0 THEN
			DELETE FROM list_counts WHERE list = 'mu' AND scope = old.translation_id AND bucket = old.id >> 10 AND n = 0;
		END IF;
	END IF;
	IF new.state >= 10 AND new.target <> '' THEN
		INSERT INTO list_counts (list, scope, bucket, n) VALUES ('mu', new.translation_id, new.id >> 10, 1)
			ON CONFLICT (list, scope, bucket) DO UPDATE SET n = list_counts.n + excluded.n
			RETURNING n INTO left_n;
		IF left_n = 0 THEN
			DELETE FROM list_counts WHERE list = 'mu' AND scope = new.translation_id AND bucket = new.id >> 10 AND n = 0;
		END IF;
	END IF;
	RETURN NULL;
END $$;
