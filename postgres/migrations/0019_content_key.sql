-- A repeat's candidates are found by an integer: the first 64 bits of
-- the content's hash (loci.ContentKey of loci.ContentHash), in
-- records.content_key, indexed alone. The index of 0010 keyed each record
-- on text (workspace, the 32-digit hash, kind, user, agent: about 90
-- bytes) at a random place, one more random insert per record; an
-- integer key is a tenth of that, and the text hash is no longer written
-- (a read checks a candidate's content in Go). Rows written before get
-- their key from their hash, which they lose.
DROP INDEX records_content_hash;
ALTER TABLE records ADD COLUMN content_key bigint;
UPDATE records SET content_key = ('x' || substr(content_hash, 1, 16))::bit(64)::bigint, content_hash = NULL
	WHERE content_hash IS NOT NULL;
CREATE INDEX records_content_key ON records (content_key) WHERE content_key IS NOT NULL;
