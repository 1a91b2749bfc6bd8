-- The index of content hashes (0009) is the one index of records whose
-- inserts land at random places: its keys were about 65 bytes (the
-- workspace, the 32-digit hash, the kind and the scope), so a batch of
-- inserts dirtied most of its pages and a batched ingest ran about a
-- fifth slower than before it. It is kept compact: the hash's first 8
-- digits (32 bits), narrowed by the scope's user and agent so that
-- content many scopes share is not read for each of them. A repeat's
-- candidates are read by prefix, user and agent and checked against the
-- whole hash (sqlite/tx.go); the stored hashes are unchanged.
DROP INDEX records_content_hash;
CREATE INDEX records_content_hash ON records (substr(content_hash, 1, 8), user_id, agent_id) WHERE content_hash IS NOT NULL;
