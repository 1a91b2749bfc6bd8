-- Search indexes now live above the store, one per scope searched, in each
-- process (package index); they learn what other processes changed from
-- this feed. The FTS5 table ranked nothing any more: it goes, with its
-- triggers.
DROP TRIGGER IF EXISTS records_fts_insert;
DROP TRIGGER IF EXISTS records_fts_delete;
DROP TRIGGER IF EXISTS records_fts_update;
DROP TABLE IF EXISTS records_fts;

-- Every transaction that changes records takes the next generation
-- (search_generation.gen + 1) and stamps the rows it inserts or updates
-- with it (change_gen); a delete, or a move to another scope, leaves a
-- tombstone naming the scope the record had. SQLite has one writer, so
-- generations commit in order, and a reader's cursor is the generation
-- its snapshot saw. Rows written before this migration keep 0.
ALTER TABLE records ADD COLUMN change_gen INTEGER NOT NULL DEFAULT 0;
CREATE INDEX records_change ON records (workspace, change_gen);

CREATE TABLE record_tombstones (
	seq        INTEGER PRIMARY KEY AUTOINCREMENT,
	workspace  TEXT    NOT NULL,
	id         TEXT    NOT NULL,
	kind       TEXT    NOT NULL,
	agent_id   TEXT    NOT NULL,
	user_id    TEXT    NOT NULL,
	session_id TEXT    NOT NULL,
	task_id    TEXT    NOT NULL,
	gen        INTEGER NOT NULL,
	deleted_at INTEGER NOT NULL
);
CREATE INDEX record_tombstones_change ON record_tombstones (workspace, gen);
CREATE INDEX record_tombstones_at ON record_tombstones (deleted_at);

-- Tombstones are pruned after a while; floor is the largest generation
-- pruned, so a reader whose cursor is below it knows it may have missed a
-- delete and starts over.
ALTER TABLE search_generation ADD COLUMN floor INTEGER NOT NULL DEFAULT 0;

CREATE TRIGGER records_tombstone AFTER DELETE ON records BEGIN
	INSERT INTO record_tombstones (workspace, id, kind, agent_id, user_id, session_id, task_id, gen, deleted_at)
	VALUES (OLD.workspace, OLD.id, OLD.kind, OLD.agent_id, OLD.user_id, OLD.session_id, OLD.task_id,
		(SELECT gen FROM search_generation WHERE id = 1), CAST(unixepoch('subsec') * 1000000 AS INTEGER));
END;

CREATE TRIGGER records_moved AFTER UPDATE OF workspace, kind, agent_id, user_id, session_id, task_id ON records
WHEN OLD.workspace IS NOT NEW.workspace OR OLD.kind IS NOT NEW.kind OR OLD.agent_id IS NOT NEW.agent_id
	OR OLD.user_id IS NOT NEW.user_id OR OLD.session_id IS NOT NEW.session_id OR OLD.task_id IS NOT NEW.task_id
BEGIN
	INSERT INTO record_tombstones (workspace, id, kind, agent_id, user_id, session_id, task_id, gen, deleted_at)
	VALUES (OLD.workspace, OLD.id, OLD.kind, OLD.agent_id, OLD.user_id, OLD.session_id, OLD.task_id,
		(SELECT gen FROM search_generation WHERE id = 1), CAST(unixepoch('subsec') * 1000000 AS INTEGER));
END;
