-- A repeat's candidates are found by an integer: the first 64 bits of
-- the content's hash (loci.ContentHash, as a signed big-endian integer),
-- in records.content_key, indexed alone. The index of 0011 keyed each
-- record on text (8 hex digits, the user, the agent) at a random place:
-- one more random insert per record, about a fifth of a batched
-- ingest's time. An integer key is a third of that index's size and
-- compares without decoding text; the 32-digit content_hash column is
-- no longer written (a read checks a candidate's content in Go). Rows
-- written before get their key from their hash right after this file,
-- in Go, in the same transaction (backfillContentKey), and lose the
-- text hash.
DROP INDEX records_content_hash;
ALTER TABLE records ADD COLUMN content_key INTEGER;
CREATE INDEX records_content_key ON records (content_key) WHERE content_key IS NOT NULL;
