-- ImportMemory skips an entry identical to one already stored in the
-- same scope: the same language pair, project (0 site-wide), source,
-- target and context. memory_pair (migration 0027) made that check read
-- every entry of the language pair, so an import of n entries read n²/2
-- rows: a 200,000-entry TMX never finished. This index narrows the check
-- to the entries of the scope that share the first characters of the
-- source and target, which the check then compares in full; its query
-- repeats these expressions word for word (memory.go ImportMemory). The
-- texts are cut to prefixes so that a long string stays under
-- PostgreSQL's B-tree entry limit and the index stays small.
CREATE INDEX memory_duplicate ON memory(source_language, target_language, coalesce(project_id, 0),
	substr(source, 1, 64), substr(target, 1, 32));
