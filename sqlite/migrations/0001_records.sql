-- The one record shape of every kind (docs/records.md), its versions, the
-- full-text index over it, and the agents, block links and users that
-- records refer to. Times are Unix microseconds (UTC); absent scope fields
-- are '' so that the key's unique index treats them as values.
CREATE TABLE records (
	seq              INTEGER PRIMARY KEY AUTOINCREMENT,
	id               TEXT    NOT NULL UNIQUE,
	workspace        TEXT    NOT NULL,
	kind             TEXT    NOT NULL,
	agent_id         TEXT    NOT NULL DEFAULT '',
	user_id          TEXT    NOT NULL DEFAULT '',
	session_id       TEXT    NOT NULL DEFAULT '',
	task_id          TEXT    NOT NULL DEFAULT '',
	key              TEXT,
	content          TEXT    NOT NULL DEFAULT '',
	search_text      TEXT    NOT NULL DEFAULT '',
	data             TEXT    NOT NULL DEFAULT '{}',
	tags             TEXT    NOT NULL DEFAULT '[]',
	category         TEXT    NOT NULL DEFAULT '',
	action_type      TEXT    NOT NULL DEFAULT '',
	outcome          TEXT    NOT NULL DEFAULT '',
	confidence       REAL    NOT NULL DEFAULT 0,
	access_count     INTEGER NOT NULL DEFAULT 0,
	last_accessed_at INTEGER,
	created_at       INTEGER NOT NULL,
	updated_at       INTEGER NOT NULL,
	expires_at       INTEGER,
	version          INTEGER NOT NULL DEFAULT 1,
	embedding        BLOB,
	embedding_model  TEXT    NOT NULL DEFAULT ''
);

CREATE UNIQUE INDEX records_key ON records (workspace, kind, agent_id, user_id, session_id, task_id, key) WHERE key IS NOT NULL;
CREATE INDEX records_agent ON records (workspace, agent_id, kind, created_at);
CREATE INDEX records_user ON records (workspace, user_id, kind, created_at);
CREATE INDEX records_task ON records (workspace, task_id, kind);
CREATE INDEX records_session ON records (workspace, session_id, kind);
CREATE INDEX records_kind_created ON records (workspace, kind, created_at);
CREATE INDEX records_expires ON records (expires_at) WHERE expires_at IS NOT NULL;
CREATE INDEX records_pending_embedding ON records (workspace, embedding_model);

CREATE VIRTUAL TABLE records_fts USING fts5 (
	search_text,
	content = 'records',
	content_rowid = 'seq',
	tokenize = 'unicode61 remove_diacritics 2'
);

CREATE TRIGGER records_fts_insert AFTER INSERT ON records BEGIN
	INSERT INTO records_fts (rowid, search_text) VALUES (new.seq, new.search_text);
END;
CREATE TRIGGER records_fts_delete AFTER DELETE ON records BEGIN
	INSERT INTO records_fts (records_fts, rowid, search_text) VALUES ('delete', old.seq, old.search_text);
END;
CREATE TRIGGER records_fts_update AFTER UPDATE OF search_text ON records BEGIN
	INSERT INTO records_fts (records_fts, rowid, search_text) VALUES ('delete', old.seq, old.search_text);
	INSERT INTO records_fts (rowid, search_text) VALUES (new.seq, new.search_text);
END;

CREATE TABLE record_versions (
	record_id  TEXT    NOT NULL REFERENCES records (id) ON DELETE CASCADE,
	version    INTEGER NOT NULL,
	content    TEXT    NOT NULL,
	data       TEXT    NOT NULL DEFAULT '{}',
	updated_at INTEGER NOT NULL,
	PRIMARY KEY (record_id, version)
);

CREATE TABLE agents (
	workspace  TEXT    NOT NULL,
	id         TEXT    NOT NULL,
	name       TEXT    NOT NULL DEFAULT '',
	created_at INTEGER NOT NULL,
	PRIMARY KEY (workspace, id)
);

CREATE TABLE block_links (
	workspace  TEXT    NOT NULL,
	block_id   TEXT    NOT NULL REFERENCES records (id) ON DELETE CASCADE,
	agent_id   TEXT    NOT NULL,
	created_at INTEGER NOT NULL,
	PRIMARY KEY (block_id, agent_id)
);
CREATE INDEX block_links_agent ON block_links (workspace, agent_id);

CREATE TABLE users (
	workspace  TEXT    NOT NULL,
	id         TEXT    NOT NULL,
	defaults   TEXT    NOT NULL DEFAULT '{}',
	created_at INTEGER NOT NULL,
	updated_at INTEGER NOT NULL,
	PRIMARY KEY (workspace, id)
);
