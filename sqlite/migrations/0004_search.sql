-- The search index: a generation counter that every transaction changing
-- records bumps, so a process knows when its in-memory search index is
-- stale (another process wrote); and an index for finding records whose
-- embedding is pending (none yet, or another model's).
CREATE TABLE search_generation (
	id  INTEGER PRIMARY KEY CHECK (id = 1),
	gen INTEGER NOT NULL
);
INSERT INTO search_generation (id, gen) VALUES (1, 0);

CREATE INDEX records_embedding_model ON records (embedding_model, seq);
