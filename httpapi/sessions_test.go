package httpapi_test

import (
	"strings"
	"testing"

	"github.com/loci-memory/loci"
	"github.com/loci-memory/loci/internal/testdb"
)

func TestSessions(t *testing.T) {
	steps := []coreStep{
		{name: "PutSessionCreate", method: "PUT", path: "/v1/sessions/s1",
			body: `{"user_id":"u1","context":{"vertical":"Retail","budget":500000},"summary":"Planned the Q3 retail campaign",
				"messages":[{"role":"user","content":"Budget is 500K"},{"role":"assistant","content":"Noted: a 500K budget"}],
				"is_persistent":true,"confidence":80}`,
			wantStatus: 201, want: `{"action":"created","session_id":"s1","user_id":"u1","message_count":2,"is_persistent":true,
				"confidence":80,"context":{"vertical":"Retail","budget":500000},"created_at":"2025-07-08T09:00:00Z","expires_at":"!absent"}`},
		{name: "GetSession", method: "GET", path: "/v1/sessions/s1",
			wantStatus: 200, want: `{"session_id":"s1","user_id":"u1","summary":"Planned the Q3 retail campaign",
				"context":{"vertical":"Retail","budget":500000},"is_persistent":true,"confidence":80,"message_count":2,
				"messages":[{"role":"user","content":"Budget is 500K","created_at":"*"},{"role":"assistant","content":"Noted: a 500K budget"}],
				"created_at":"2025-07-08T09:00:00Z","updated_at":"2025-07-08T09:00:00Z"}`},
		{name: "AppendMessage", method: "POST", path: "/v1/sessions/s1/messages", body: `{"role":"user","content":"Add TikTok to the channels"}`,
			wantStatus: 201, want: `{"session_id":"s1","index":2,"message_count":3,"updated_at":"2025-07-08T09:00:02Z"}`},
		{name: "AppendedInOrder", method: "GET", path: "/v1/sessions/s1",
			wantStatus: 200, want: `{"message_count":3,"updated_at":"2025-07-08T09:00:02Z","messages":[
				{"content":"Budget is 500K"},{"content":"Noted: a 500K budget"},{"role":"user","content":"Add TikTok to the channels"}]}`},
		{name: "ErrAppendMissingSession", method: "POST", path: "/v1/sessions/nope/messages", body: `{"role":"user","content":"hi"}`,
			wantStatus: 404, want: `{"code":"not_found"}`},
		{name: "ErrAppendNoRole", method: "POST", path: "/v1/sessions/s1/messages", body: `{"role":"","content":"hi"}`,
			wantStatus: 400, want: `{"code":"invalid"}`},
		{name: "ErrAppendNoContent", method: "POST", path: "/v1/sessions/s1/messages", body: `{"role":"user","content":" "}`,
			wantStatus: 400, want: `{"code":"invalid"}`},
		{name: "ErrAppendTooLarge", method: "POST", path: "/v1/sessions/s1/messages",
			body:       `{"role":"user","content":"` + strings.Repeat("a", loci.MaxMessageBytes+1) + `"}`,
			wantStatus: 413, want: `{"code":"too_large"}`},
		{name: "ErrPutOtherUser", method: "PUT", path: "/v1/sessions/s1", body: `{"user_id":"u2","summary":"hijack"}`,
			wantStatus: 409, want: `{"code":"conflict"}`},
		{name: "OtherUserChangedNothing", method: "GET", path: "/v1/sessions/s1",
			wantStatus: 200, want: `{"user_id":"u1","message_count":3}`},
		{name: "ErrPutNoUser", method: "PUT", path: "/v1/sessions/s9", body: `{"summary":"x"}`,
			wantStatus: 400, want: `{"code":"invalid"}`},
		{name: "ErrPutConfidenceRange", method: "PUT", path: "/v1/sessions/s9", body: `{"user_id":"u1","confidence":101}`,
			wantStatus: 400, want: `{"code":"invalid"}`},
		{name: "ErrPutBadMessage", method: "PUT", path: "/v1/sessions/s9", body: `{"user_id":"u1","messages":[{"role":"user","content":""}]}`,
			wantStatus: 400, want: `{"code":"invalid"}`},
		{name: "ErrPutBadExpiry", method: "PUT", path: "/v1/sessions/s9", body: `{"user_id":"u1","expires_at":"tomorrow"}`,
			wantStatus: 400, want: `{"code":"invalid"}`},
		{name: "ErrPutMalformed", method: "PUT", path: "/v1/sessions/s9", body: `[]`,
			wantStatus: 400, want: `{"code":"invalid"}`},
		{name: "ErrPutNothingStored", method: "GET", path: "/v1/sessions/s9",
			wantStatus: 404, want: `{"code":"not_found"}`},
		{name: "PutSessionReplace", method: "PUT", path: "/v1/sessions/s1",
			body:       `{"user_id":"u1","summary":"Replaced","messages":[{"role":"user","content":"Only one now"}]}`,
			wantStatus: 200, want: `{"action":"updated","message_count":1,"is_persistent":false,"confidence":0,"context":{},
				"created_at":"2025-07-08T09:00:00Z","messages":[{"role":"user","content":"Only one now"}]}`},
		{name: "ReplacedMessagesGone", method: "GET", path: "/v1/sessions/s1",
			wantStatus: 200, want: `{"summary":"Replaced","message_count":1,"messages":[{"content":"Only one now"}]}`},
		{name: "PutSessionExpiring", method: "PUT", path: "/v1/sessions/s2",
			body:       `{"user_id":"u1","summary":"Chose a 500K budget for this campaign","expires_at":"2025-07-15T09:00:00Z","confidence":55.5}`,
			wantStatus: 201, want: `{"expires_at":"2025-07-15T09:00:00Z","confidence":55.5,"messages":[],"message_count":0}`},
		{name: "PutSessionOtherUser", method: "PUT", path: "/v1/sessions/s3", body: `{"user_id":"u2","summary":"Someone else"}`,
			wantStatus: 201},
		{name: "ListUserSessions", method: "GET", path: "/v1/users/u1/sessions",
			wantStatus: 200, want: `{"count":2,"sessions":[
				{"session_id":"s2","summary":"Chose a 500K budget for this campaign","message_count":0,"updated_at":"*","messages":"!absent","context":"!absent"},
				{"session_id":"s1","summary":"Replaced","message_count":1,"updated_at":"*","messages":"!absent"}]}`},
		{name: "AppendMovesSessionFirst", method: "POST", path: "/v1/sessions/s1/messages", body: `{"role":"assistant","content":"ok"}`,
			wantStatus: 201, want: `{"index":1,"message_count":2}`},
		{name: "ListUserSessionsUpdated", method: "GET", path: "/v1/users/u1/sessions",
			wantStatus: 200, want: `{"count":2,"sessions":[{"session_id":"s1","message_count":2},{"session_id":"s2"}]}`},
		{name: "ListUserSessionsPage", method: "GET", path: "/v1/users/u1/sessions?limit=1&offset=1",
			wantStatus: 200, want: `{"count":2,"sessions":[{"session_id":"s2"}]}`},
		{name: "ListUserSessionsNone", method: "GET", path: "/v1/users/nobody/sessions",
			wantStatus: 200, want: `{"count":0,"sessions":[]}`},
		{name: "ErrListUserSessionsBadOffset", method: "GET", path: "/v1/users/u1/sessions?offset=x",
			wantStatus: 400, want: `{"code":"invalid"}`},
		{name: "DeleteSession", method: "DELETE", path: "/v1/sessions/s1", wantStatus: 200, want: `{"deleted":true}`},
		{name: "DeletedSessionMissing", method: "GET", path: "/v1/sessions/s1", wantStatus: 404, want: `{"code":"not_found"}`},
		{name: "ErrAppendDeletedSession", method: "POST", path: "/v1/sessions/s1/messages", body: `{"role":"user","content":"hi"}`,
			wantStatus: 404, want: `{"code":"not_found"}`},
		{name: "DeleteSessionAbsent", method: "DELETE", path: "/v1/sessions/s1", wantStatus: 200, want: `{"deleted":false}`},
		{name: "DeleteSessionNeverExisted", method: "DELETE", path: "/v1/sessions/never", wantStatus: 200, want: `{"deleted":false}`},
		{name: "ListAfterDelete", method: "GET", path: "/v1/users/u1/sessions",
			wantStatus: 200, want: `{"count":1,"sessions":[{"session_id":"s2"}]}`},
		{name: "IDFreeAfterDelete", method: "PUT", path: "/v1/sessions/s1", body: `{"user_id":"u2"}`,
			wantStatus: 201, want: `{"user_id":"u2","message_count":0}`},
	}
	testdb.Each(t, func(t *testing.T, open func(t testing.TB) loci.Store) {
		h, clock := newCoreServer(t, open(t))
		runCoreSteps(t, h, clock, steps)
	})
}
