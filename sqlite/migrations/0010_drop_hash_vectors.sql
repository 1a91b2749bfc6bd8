-- The built-in hash embedder no longer makes vectors unless asked
-- (--hash-vectors, LOCI_HASH_VECTORS): its similarity is lexical, like
-- BM25's, and added nothing measurable to ranking while costing about
-- 1 KB of disk and of index per record. The vectors it stored go; they
-- are a function of the content, so nothing is lost: a server given
-- --hash-vectors finds the records pending and embeds them again in the
-- background (or `loci reindex --hash-vectors` does it at once). The
-- rows are stamped with the next generation, so a process that already
-- holds an index of their scope drops their vectors too.
UPDATE search_generation SET gen = gen + 1
	WHERE EXISTS (SELECT 1 FROM records WHERE embedding_model LIKE 'hash-v1-%');
UPDATE records SET embedding = NULL, embedding_model = '',
	change_gen = (SELECT gen FROM search_generation)
	WHERE embedding_model LIKE 'hash-v1-%';
