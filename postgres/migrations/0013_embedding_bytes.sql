-- Embeddings as bytes: each float32 in 4 bytes, little-endian, as loci
-- holds them. PostgreSQL sends a real[] element by element (array_send
-- calls float4send for each): reading the 100 embeddings that a search
-- rescores at 1,536 dimensions took about 27 ms of server time, and the
-- client's decoding 9 ms more; the same bytes as bytea take 0.5 ms.
-- Stored EXTERNAL: out of line without compression, which random floats
-- defeat anyway (and which then costs every write).
--
-- Writes store embedding_f32; the real[] column keeps the embedding only
-- where the pgvector column is generated from it. The embeddings written
-- before are converted after this script, in Go, in batches
-- (backfillEmbeddingBytes in embedding.go); a row without bytes is still
-- read from its real[].
ALTER TABLE records ADD COLUMN embedding_f32 bytea;
ALTER TABLE records ALTER COLUMN embedding_f32 SET STORAGE EXTERNAL;
