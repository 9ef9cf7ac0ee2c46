-- The trigram index's rows a third of their size (issue 31: the index of
-- 100x the corpus must fit the disk). unit_trigrams held each unit's
-- trigrams as text[]: an element is a 4-byte header and the trigram's
-- bytes padded to 4, so 8 bytes for an ASCII trigram, and the table was
-- 63% of the whole index at 1x (266 of 421 MiB for 277,429 units: 173
-- MiB of rows, 65 + 20 MiB of GIN). Each trigram is now one integer, 4
-- bytes, written by the step (trigram_pending.go, trigramCode) and asked
-- for by tolk_trigram_codes below:
--
--   h = c1 << 42 | c2 << 21 | c3   (the code points, 21 bits each: exact)
--   code = (h XOR h >> 32) AND 2^31 - 1
--
-- which keeps every ASCII trigram apart (c3 in bits 0-6, c1 in 10-16, c2
-- in 21-27) and folds others, so that two trigrams may share a code.
-- A shared code only adds candidates: the index is a filter, every
-- candidate is matched exactly (trigramFilter), and a unit holding a
-- needle's trigrams holds their codes, so the index still never misses
-- one. The code is of the characters (ascii() is the code point), not of
-- their bytes, so it is the same whatever the database's encoding.
-- The text is split into its characters once and each trigram read with
-- lead(): substr(l, i, 1) walks a UTF-8 string from its start at every
-- call, which made a 10,000-character needle take seconds.
CREATE FUNCTION tolk_trigram_codes(s text) RETURNS integer[] LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE AS $$
	SELECT coalesce(array_agg(DISTINCT ((h # (h >> 32)) & 2147483647)::integer), '{}')
	FROM (SELECT (ascii(c)::bigint << 42) | (ascii(lead(c, 1) OVER w)::bigint << 21) | ascii(lead(c, 2) OVER w)::bigint AS h
		FROM unnest(string_to_array(lower(s), NULL)) WITH ORDINALITY AS u(c, n) WINDOW w AS (ORDER BY n)) k
	WHERE h IS NOT NULL
$$;

DROP INDEX unit_trigrams_gin;
DROP INDEX unit_trigrams_key_gin;
TRUNCATE unit_trigrams;
ALTER TABLE unit_trigrams ALTER COLUMN key_trigrams DROP DEFAULT;
ALTER TABLE unit_trigrams ALTER COLUMN trigrams TYPE INTEGER[] USING '{}',
	ALTER COLUMN key_trigrams TYPE INTEGER[] USING '{}';
ALTER TABLE unit_trigrams ALTER COLUMN key_trigrams SET DEFAULT '{}';
CREATE INDEX unit_trigrams_gin ON unit_trigrams USING gin (trigrams);
CREATE INDEX unit_trigrams_key_gin ON unit_trigrams USING gin (key_trigrams);
DROP FUNCTION tolk_trigrams(text);

-- Every unit is indexed anew by the step, in batches after the upgrade
-- (as migrations 0044 and 0062 did); the searches read the noted units
-- exactly meanwhile. No unit has a row now.
UPDATE unit_trigrams_pending SET indexed = 0;
INSERT INTO unit_trigrams_pending (unit_id, indexed) SELECT id, 0 FROM units ON CONFLICT (unit_id) DO NOTHING;
