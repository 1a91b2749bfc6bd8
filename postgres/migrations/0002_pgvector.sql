-- The pgvector path, where the server has the extension: a copy of the
-- exact embedding as a pgvector column, generated from it so that it can
-- never disagree. Servers without the extension (or without the right to
-- create it) keep only the exact real[] path; this migration is then a
-- no-op, and a later run on a server that gained the extension does not
-- revisit it (add a new migration for that). HNSW cosine indexes need a
-- fixed dimension, so they are built per dimension, as embeddings of that
-- dimension first arrive (see ensureVectorIndex in tx.go).
DO $migration$
DECLARE
	ext_schema name;
BEGIN
	SELECT n.nspname INTO ext_schema
		FROM pg_extension e JOIN pg_namespace n ON n.oid = e.extnamespace WHERE e.extname = 'vector';
	IF ext_schema IS NULL THEN
		IF NOT EXISTS (SELECT 1 FROM pg_available_extensions WHERE name = 'vector') THEN
			RETURN;
		END IF;
		BEGIN
			-- In public, not in loci's own schema: the extension is one per
			-- database, and dropping one schema must not drop it.
			CREATE EXTENSION IF NOT EXISTS vector SCHEMA public;
		EXCEPTION WHEN insufficient_privilege OR undefined_file OR feature_not_supported THEN
			RAISE NOTICE 'pgvector not enabled (%): exact vector search only', SQLERRM;
			RETURN;
		END;
		ext_schema := 'public';
	END IF;
	EXECUTE format($sql$
		ALTER TABLE records ADD COLUMN embedding_vec %1$I.vector GENERATED ALWAYS AS (
			CASE WHEN cardinality(embedding) BETWEEN 1 AND 16000
				AND NOT (embedding && ARRAY['NaN', 'Infinity', '-Infinity']::real[])
			THEN embedding::%1$I.vector END) STORED
	$sql$, ext_schema);
END
$migration$;
