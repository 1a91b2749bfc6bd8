-- The queue of adds of messages asked to run in the background, as in
-- SQLite's 0012_memory_events.sql.
CREATE TABLE memory_events (
	id           text COLLATE "C" PRIMARY KEY,
	workspace    text COLLATE "C" NOT NULL,
	status       text NOT NULL,
	request      json NOT NULL,
	key_id       text NOT NULL DEFAULT '',
	role         text NOT NULL DEFAULT '',
	key_agent_id text COLLATE "C" NOT NULL DEFAULT '',
	via          text NOT NULL DEFAULT '',
	user_id      text COLLATE "C" NOT NULL DEFAULT '',
	agent_id     text COLLATE "C" NOT NULL DEFAULT '',
	result       json,
	error        text NOT NULL DEFAULT '',
	code         text NOT NULL DEFAULT '',
	attempts     integer NOT NULL DEFAULT 0,
	run_at       timestamptz NOT NULL,
	created_at   timestamptz NOT NULL,
	updated_at   timestamptz NOT NULL
);
CREATE INDEX memory_events_due ON memory_events (status, run_at);
CREATE INDEX memory_events_user ON memory_events (workspace, user_id);
