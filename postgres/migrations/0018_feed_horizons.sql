-- The change feed's prune horizons: the xmin of a snapshot, sampled every
-- ten minutes or so by a transaction that deletes records. Tombstones are
-- pruned only when their transaction finished before a horizon sampled
-- over an hour earlier, and the floor is raised to that horizon (not past
-- the newest tombstone pruned): a reader that read the feed after the
-- sample has a cursor at or above it, however old the transactions its
-- snapshot saw running, and never starts over (see feed.go).
CREATE TABLE record_feed_horizons (
	taken_at timestamptz NOT NULL,
	horizon  bigint NOT NULL
);
CREATE INDEX record_feed_horizons_at ON record_feed_horizons (taken_at);
