-- The trigram index of the units' text (issue 27); see the SQLite
-- migration of the same number for what it serves.
--
-- pg_trgm would do this but needs a superuser to install, which Tolk
-- cannot assume. A GIN index over an expression needs nothing: the
-- array of distinct trigrams of the unit's context, source and target
-- (joined by a newline) lower-cased by lower(), the folding ILIKE applies
-- to both sides (PostgreSQL's ILIKE is lower(text) LIKE lower(pattern)),
-- so the index never misses a unit the search matches. PostgreSQL keeps
-- the index itself under every write; nothing in Tolk writes it.
--
-- A search asks tolk_unit_trigrams(units.context, units.source,
-- units.target) @> tolk_trigrams(needle): the expression must be
-- written exactly so for the planner to use this index.
CREATE FUNCTION tolk_trigrams(s text) RETURNS text[] LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE AS $$
	SELECT coalesce(array_agg(DISTINCT substr(l, i, 3)), '{}')
	FROM (SELECT lower(s) AS l) f, generate_series(1, length(l) - 2) AS i
$$;

-- The same for a unit, written out rather than calling tolk_trigrams:
-- a function's body resolves names by the search_path of the session
-- that runs it, and a session without the index's schema in its path
-- (an administrator's, a dump's restore) must still be able to keep the
-- index.
-- A unit of more than 16,384 bytes of text is indexed as the one
-- trigram chr(1) x 3, which every lookup also asks for (trigram.go,
-- maxIndexedText): indexing a hostile 256 KiB string would hold the
-- writer.
CREATE FUNCTION tolk_unit_trigrams(context text, source text, target text) RETURNS text[] LANGUAGE sql IMMUTABLE
	STRICT PARALLEL SAFE AS $$
	SELECT CASE WHEN octet_length(context) + octet_length(source) + octet_length(target) > 16384
		THEN ARRAY[chr(1) || chr(1) || chr(1)]
		ELSE (SELECT coalesce(array_agg(DISTINCT substr(l, i, 3)), '{}')
			FROM (SELECT lower(context || chr(10) || source || chr(10) || target) AS l) f,
			generate_series(1, length(l) - 2) AS i) END
$$;

CREATE INDEX units_trigrams ON units USING gin (tolk_unit_trigrams(context, source, target));
