-- API keys (stored as SHA-256 hashes of their secrets) and the append-only
-- access log, as in SQLite's 0005_security.sql.
CREATE TABLE api_keys (
	id         text COLLATE "C" PRIMARY KEY,
	workspace  text COLLATE "C" NOT NULL,
	name       text NOT NULL DEFAULT '',
	role       text NOT NULL,
	agent_id   text COLLATE "C" NOT NULL DEFAULT '',
	hash       text NOT NULL UNIQUE,
	created_at timestamptz NOT NULL,
	revoked_at timestamptz
);
CREATE INDEX api_keys_workspace ON api_keys (workspace, created_at);

CREATE TABLE audit_log (
	seq        bigserial PRIMARY KEY,
	id         text COLLATE "C" NOT NULL UNIQUE,
	at         timestamptz NOT NULL,
	key_id     text NOT NULL DEFAULT '',
	role       text NOT NULL DEFAULT '',
	operation  text NOT NULL,
	workspace  text COLLATE "C" NOT NULL,
	agent_id   text COLLATE "C" NOT NULL DEFAULT '',
	user_id    text COLLATE "C" NOT NULL DEFAULT '',
	session_id text COLLATE "C" NOT NULL DEFAULT '',
	task_id    text COLLATE "C" NOT NULL DEFAULT '',
	kind       text NOT NULL DEFAULT '',
	record_ids text[] NOT NULL DEFAULT '{}',
	count      integer NOT NULL DEFAULT 0,
	status     integer NOT NULL DEFAULT 0
);
CREATE INDEX audit_log_at ON audit_log (at);
CREATE INDEX audit_log_workspace ON audit_log (workspace, at);
CREATE INDEX audit_log_agent ON audit_log (workspace, agent_id, at);
CREATE INDEX audit_log_user ON audit_log (workspace, user_id, at);
