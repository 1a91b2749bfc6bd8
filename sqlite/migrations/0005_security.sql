-- API keys (stored as SHA-256 hashes of their secrets) and the append-only
-- access log. Times are Unix microseconds (UTC).
CREATE TABLE api_keys (
	id         TEXT    PRIMARY KEY,
	workspace  TEXT    NOT NULL,
	name       TEXT    NOT NULL DEFAULT '',
	role       TEXT    NOT NULL,
	agent_id   TEXT    NOT NULL DEFAULT '',
	hash       TEXT    NOT NULL UNIQUE,
	created_at INTEGER NOT NULL,
	revoked_at INTEGER
);
CREATE INDEX api_keys_workspace ON api_keys (workspace, created_at);

CREATE TABLE audit_log (
	seq        INTEGER PRIMARY KEY AUTOINCREMENT,
	id         TEXT    NOT NULL UNIQUE,
	at         INTEGER NOT NULL,
	key_id     TEXT    NOT NULL DEFAULT '',
	role       TEXT    NOT NULL DEFAULT '',
	operation  TEXT    NOT NULL,
	workspace  TEXT    NOT NULL,
	agent_id   TEXT    NOT NULL DEFAULT '',
	user_id    TEXT    NOT NULL DEFAULT '',
	session_id TEXT    NOT NULL DEFAULT '',
	task_id    TEXT    NOT NULL DEFAULT '',
	kind       TEXT    NOT NULL DEFAULT '',
	record_ids TEXT    NOT NULL DEFAULT '[]',
	count      INTEGER NOT NULL DEFAULT 0,
	status     INTEGER NOT NULL DEFAULT 0
);
CREATE INDEX audit_log_at ON audit_log (at);
CREATE INDEX audit_log_workspace ON audit_log (workspace, at);
CREATE INDEX audit_log_agent ON audit_log (workspace, agent_id, at);
CREATE INDEX audit_log_user ON audit_log (workspace, user_id, at);
