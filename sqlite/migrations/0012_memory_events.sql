-- The queue of adds of messages asked to run in the background: each
-- event, the request it runs (JSON), who asked (key, role, bound agent,
-- interface), its scope, its result (JSON) or error, how many times it was
-- claimed and when it is due (again). Times are Unix microseconds (UTC).
CREATE TABLE memory_events (
	id           TEXT    PRIMARY KEY,
	workspace    TEXT    NOT NULL,
	status       TEXT    NOT NULL,
	request      TEXT    NOT NULL,
	key_id       TEXT    NOT NULL DEFAULT '',
	role         TEXT    NOT NULL DEFAULT '',
	key_agent_id TEXT    NOT NULL DEFAULT '',
	via          TEXT    NOT NULL DEFAULT '',
	user_id      TEXT    NOT NULL DEFAULT '',
	agent_id     TEXT    NOT NULL DEFAULT '',
	result       TEXT,
	error        TEXT    NOT NULL DEFAULT '',
	code         TEXT    NOT NULL DEFAULT '',
	attempts     INTEGER NOT NULL DEFAULT 0,
	run_at       INTEGER NOT NULL,
	created_at   INTEGER NOT NULL,
	updated_at   INTEGER NOT NULL
);
CREATE INDEX memory_events_due ON memory_events (status, run_at);
CREATE INDEX memory_events_user ON memory_events (workspace, user_id);
