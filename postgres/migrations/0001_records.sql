-- The one record shape of every kind (docs/records.md), its versions, the
-- full-text index over it, and the agents, block links and users that
-- records refer to: the same model as sqlite/migrations/0001_records.sql.
-- Absent scope fields are '' so that the key's unique index treats them as
-- values. Identifiers sort bytewise (COLLATE "C"), as they do in SQLite.
-- JSON is kept as json (text as written), not jsonb, so values read back
-- byte for byte. The lexical index is a generated tsvector over search_text,
-- which the service has already analyzed: the 'simple' configuration only
-- splits it into lexemes.
CREATE TABLE records (
	id               text COLLATE "C" PRIMARY KEY,
	workspace        text COLLATE "C" NOT NULL,
	kind             text COLLATE "C" NOT NULL,
	agent_id         text COLLATE "C" NOT NULL DEFAULT '',
	user_id          text COLLATE "C" NOT NULL DEFAULT '',
	session_id       text COLLATE "C" NOT NULL DEFAULT '',
	task_id          text COLLATE "C" NOT NULL DEFAULT '',
	key              text COLLATE "C",
	content          text NOT NULL DEFAULT '',
	search_text      text NOT NULL DEFAULT '',
	search_vector    tsvector GENERATED ALWAYS AS (to_tsvector('simple'::regconfig, search_text)) STORED,
	data             json NOT NULL DEFAULT '{}',
	tags             text[] COLLATE "C" NOT NULL DEFAULT '{}',
	category         text COLLATE "C" NOT NULL DEFAULT '',
	action_type      text COLLATE "C" NOT NULL DEFAULT '',
	outcome          text COLLATE "C" NOT NULL DEFAULT '',
	confidence       double precision NOT NULL DEFAULT 0,
	access_count     integer NOT NULL DEFAULT 0,
	last_accessed_at timestamptz,
	created_at       timestamptz NOT NULL,
	updated_at       timestamptz NOT NULL,
	expires_at       timestamptz,
	version          integer NOT NULL DEFAULT 1,
	-- The exact vector path: any PostgreSQL, no extension. Migration 0002
	-- adds a pgvector copy of it where the extension is available.
	embedding        real[],
	embedding_model  text COLLATE "C" NOT NULL DEFAULT ''
);

CREATE UNIQUE INDEX records_key ON records (workspace, kind, agent_id, user_id, session_id, task_id, key) WHERE key IS NOT NULL;
CREATE INDEX records_agent ON records (workspace, agent_id, kind, created_at);
CREATE INDEX records_user ON records (workspace, user_id, kind, created_at);
CREATE INDEX records_task ON records (workspace, task_id, kind);
CREATE INDEX records_session ON records (workspace, session_id, kind);
CREATE INDEX records_kind_created ON records (workspace, kind, created_at);
CREATE INDEX records_expires ON records (expires_at) WHERE expires_at IS NOT NULL;
CREATE INDEX records_pending_embedding ON records (workspace, embedding_model);
CREATE INDEX records_search ON records USING gin (search_vector);
CREATE INDEX records_tags ON records USING gin (tags);

CREATE TABLE record_versions (
	record_id  text COLLATE "C" NOT NULL REFERENCES records (id) ON DELETE CASCADE,
	version    integer NOT NULL,
	content    text NOT NULL,
	data       json NOT NULL DEFAULT '{}',
	updated_at timestamptz NOT NULL,
	PRIMARY KEY (record_id, version)
);

CREATE TABLE agents (
	workspace  text COLLATE "C" NOT NULL,
	id         text COLLATE "C" NOT NULL,
	name       text NOT NULL DEFAULT '',
	created_at timestamptz NOT NULL,
	PRIMARY KEY (workspace, id)
);

CREATE TABLE block_links (
	workspace  text COLLATE "C" NOT NULL,
	block_id   text COLLATE "C" NOT NULL REFERENCES records (id) ON DELETE CASCADE,
	agent_id   text COLLATE "C" NOT NULL,
	created_at timestamptz NOT NULL,
	PRIMARY KEY (block_id, agent_id)
);
CREATE INDEX block_links_agent ON block_links (workspace, agent_id);

CREATE TABLE users (
	workspace  text COLLATE "C" NOT NULL,
	id         text COLLATE "C" NOT NULL,
	defaults   json NOT NULL DEFAULT '{}',
	created_at timestamptz NOT NULL,
	updated_at timestamptz NOT NULL,
	PRIMARY KEY (workspace, id)
);
