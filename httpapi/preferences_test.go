package httpapi_test

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/loci-memory/loci"
)

func TestPreferenceScenarios(t *testing.T) {
	lcRun(t, []lcStep{
		{name: "Explicit", method: "POST", path: "/v1/users/u/preferences", body: `{"type":"vertical","value":"Retail","source":"explicit","context":"said so"}`,
			status: 201, want: map[string]any{"action": "created", "type": "vertical", "value": "Retail", "source": "explicit", "confidence": 100,
				"tier": "high", "is_persistent": true, "flagged_for_removal": false, "context": "said so", "learned_from": "explicit statement",
				"first_observed": "2026-03-01", "observation_count": 1}},
		{name: "Implicit", method: "POST", path: "/v1/users/u/preferences", body: `{"type":"channel_preference","value":["Paid Search","CTV"],"source":"implicit"}`,
			status: 201, want: map[string]any{"confidence": 40, "tier": "low", "is_persistent": false, "learned_from": "session behavior"}},
		{name: "ImplicitRepeat", method: "POST", path: "/v1/users/u/preferences", body: `{"type":"channel_preference","value":["Paid Search","CTV"],"source":"implicit"}`,
			status: 200, want: map[string]any{"action": "updated", "confidence": 55, "tier": "medium", "observation_count": 2}},
		{name: "ImplicitRepeat3", method: "POST", path: "/v1/users/u/preferences", body: `{"type":"channel_preference","value":["Paid Search","CTV"],"source":"implicit"}`,
			status: 200, want: map[string]any{"confidence": 70}},
		{name: "ImplicitRepeat4", method: "POST", path: "/v1/users/u/preferences", body: `{"type":"channel_preference","value":["Paid Search","CTV"],"source":"implicit"}`,
			status: 200, want: map[string]any{"confidence": 85, "tier": "high"}},
		{name: "ImplicitCapped85", method: "POST", path: "/v1/users/u/preferences", body: `{"type":"channel_preference","value":["Paid Search","CTV"],"source":"implicit"}`,
			status: 200, want: map[string]any{"confidence": 85, "observation_count": 5}},
		{name: "Decision", method: "POST", path: "/v1/users/u/preferences", body: `{"type":"budget","value":500000,"source":"decision","session_id":"s1"}`,
			status: 201, want: map[string]any{"session_id": "s1", "is_persistent": false, "source": "decision", "value": 500000}},
		{name: "ErrDecisionNoSession", method: "POST", path: "/v1/users/u/preferences", body: `{"type":"budget","value":1,"source":"decision"}`,
			status: 400, want: map[string]any{"code": "invalid"}},
		{name: "ErrSource", method: "POST", path: "/v1/users/u/preferences", body: `{"type":"budget","value":1,"source":"rumour"}`,
			status: 400, want: map[string]any{"code": "invalid"}},
		{name: "ErrNoValue", method: "POST", path: "/v1/users/u/preferences", body: `{"type":"budget","source":"explicit"}`, status: 400},
		{name: "List", method: "GET", path: "/v1/users/u/preferences", status: 200,
			want: map[string]any{"count": 3, "preferences.0.type": "budget", "preferences.1.type": "vertical", "preferences.2.type": "channel_preference",
				"preferences.2.tier": "high"}},
		{name: "ListSession", method: "GET", path: "/v1/users/u/preferences?session_id=s1", status: 200, want: map[string]any{"count": 1, "preferences.0.type": "budget"}},
		{name: "ListPage", method: "GET", path: "/v1/users/u/preferences?limit=1&offset=1", status: 200,
			want: map[string]any{"count": 3, "preferences.0.type": "vertical"}, absent: []string{"preferences.1"}},
		{name: "ListOtherUserEmpty", method: "GET", path: "/v1/users/v/preferences", status: 200, want: map[string]any{"count": 0, "preferences": []any{}}},
		{name: "Day30Decay", advance: 30 * lcDay, method: "GET", path: "/v1/users/u/preferences", status: 200,
			want: map[string]any{"preferences.0.type": "budget", "preferences.0.confidence": 90, "preferences.1.confidence": 90, "preferences.2.confidence": 75,
				"preferences.2.tier": "medium", "preferences.2.stored_confidence": 85}},
		{name: "Use", method: "POST", path: "/v1/users/u/preferences/channel_preference/use", status: 200,
			want: map[string]any{"confidence": 80, "tier": "high", "last_used_at": lcTime(30 * lcDay)}},
		{name: "UseToPeak", method: "POST", path: "/v1/users/u/preferences/channel_preference/use", status: 200, want: map[string]any{"confidence": 85}},
		{name: "UseCappedAtPeak", method: "POST", path: "/v1/users/u/preferences/channel_preference/use", status: 200, want: map[string]any{"confidence": 85}},
		{name: "ContradictImplicit", method: "POST", path: "/v1/users/u/preferences/channel_preference/contradict", body: `{"source":"implicit"}`,
			status: 200, want: map[string]any{"confidence": 55, "tier": "medium", "flagged_for_removal": false}},
		{name: "Confirm", method: "POST", path: "/v1/users/u/preferences/channel_preference/confirm", status: 200,
			want: map[string]any{"confidence": 100, "is_persistent": true, "tier": "high"}},
		{name: "ContradictExplicit", method: "POST", path: "/v1/users/u/preferences/vertical/contradict", body: `{"source":"explicit"}`,
			status: 200, want: map[string]any{"confidence": 0, "tier": "low", "flagged_for_removal": true}},
		{name: "ConfirmDecision", method: "POST", path: "/v1/users/u/preferences/budget/confirm?session_id=s1", status: 200,
			want: map[string]any{"session_id": "s1", "is_persistent": true, "confidence": 100}},
		{name: "ErrContradictSource", method: "POST", path: "/v1/users/u/preferences/vertical/contradict", body: `{"source":"decision"}`, status: 400},
		{name: "ErrContradictNoBody", method: "POST", path: "/v1/users/u/preferences/vertical/contradict", status: 400},
		{name: "Use404", method: "POST", path: "/v1/users/u/preferences/nope/use", status: 404, want: map[string]any{"code": "not_found"}},
		{name: "Confirm404", method: "POST", path: "/v1/users/u/preferences/nope/confirm", status: 404},
		{name: "Contradict404", method: "POST", path: "/v1/users/u/preferences/nope/contradict", body: `{"source":"implicit"}`, status: 404},
		{name: "BudgetUserLevel404", method: "POST", path: "/v1/users/u/preferences/budget/use", status: 404},
		{name: "Day90AfterConfirm", advance: 90 * lcDay, method: "GET", path: "/v1/users/u/preferences?session_id=s1", status: 200,
			want: map[string]any{"preferences.0.confidence": 75}},
		{name: "DeleteOne", method: "DELETE", path: "/v1/users/u/preferences/vertical", status: 200, want: map[string]any{"deleted": 1}},
		{name: "DeleteOne404", method: "DELETE", path: "/v1/users/u/preferences/vertical", status: 404},
		{name: "ClearAll", method: "DELETE", path: "/v1/users/u/preferences", status: 200, want: map[string]any{"deleted": 2}},
		{name: "Cleared", method: "GET", path: "/v1/users/u/preferences", status: 200, want: map[string]any{"count": 0}},
		{name: "ClearAllAgain", method: "DELETE", path: "/v1/users/u/preferences", status: 200, want: map[string]any{"deleted": 0}},
	}, nil)
}

// lcSessions stores sessions of user u the way the session rules do.
func lcSessions(t *testing.T, store loci.Store) {
	t.Helper()
	sess := func(id, user string, conf float64, persistent bool, expires time.Time, updated time.Duration) *loci.Record {
		data, _ := json.Marshal(map[string]any{"summary": "summary " + id, "is_persistent": persistent, "message_count": 3,
			"context": map[string]any{"type": "session_context", "vertical": "Retail"}})
		return &loci.Record{ID: "0190c000-0000-7000-8000-00000000000" + id[len(id)-1:], Workspace: loci.DefaultWorkspace, Kind: loci.KindSession,
			Scope: loci.Scope{UserID: user, SessionID: id}, Key: id, Category: "session", Content: "summary " + id,
			Confidence: conf, ExpiresAt: expires, Data: data, CreatedAt: lcT0.Add(-lcDay), UpdatedAt: lcT0.Add(-lcDay + updated), Version: 1}
	}
	recs := []*loci.Record{
		sess("s1", "u", 50, false, lcT0.Add(lcDay), time.Minute),
		sess("s2", "u", 90, true, time.Time{}, 2*time.Minute),
		sess("s3", "u", 70, false, lcT0.Add(-time.Hour), 3*time.Minute), // expired
		sess("s4", "u", 60, false, lcT0.Add(lcDay), 4*time.Minute),
		sess("s5", "u", 20, false, time.Time{}, 5*time.Minute),
		sess("s6", "u", 80, false, lcT0.Add(lcDay), 6*time.Minute),
		sess("s7", "u", 30, true, time.Time{}, 7*time.Minute),
		sess("v8", "v", 100, true, time.Time{}, 8*time.Minute),
	}
	if err := store.Update(context.Background(), func(tx loci.Tx) error {
		for _, r := range recs {
			if err := tx.InsertRecord(context.Background(), r); err != nil {
				return err
			}
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
}

func TestUserScenarios(t *testing.T) {
	lcRun(t, []lcStep{
		{name: "ContextNewUser", method: "GET", path: "/v1/users/new/context", status: 200,
			want: map[string]any{"user_id": "new", "created": true, "defaults": map[string]any{}, "preferences": []any{}, "sessions": []any{}}},
		{name: "ContextExistingUser", method: "GET", path: "/v1/users/new/context", status: 200, want: map[string]any{"created": false}},
		{name: "Pref", method: "POST", path: "/v1/users/u/preferences", body: `{"type":"vertical","value":"Retail","source":"explicit"}`, status: 201},
		{name: "PrefImplicit", method: "POST", path: "/v1/users/u/preferences", body: `{"type":"kpi","value":"ROAS","source":"implicit"}`, status: 201},
		{name: "PrefDecision", method: "POST", path: "/v1/users/u/preferences", body: `{"type":"budget","value":500000,"source":"decision","session_id":"s1"}`, status: 201},
		{name: "Context", method: "GET", path: "/v1/users/u/context", status: 200,
			want: map[string]any{"created": true, "preferences.0.type": "vertical", "preferences.0.tier": "high", "preferences.1.type": "kpi",
				"preferences.1.tier": "low", "sessions.0.session_id": "s2", "sessions.1.session_id": "s6", "sessions.2.session_id": "s4",
				"sessions.3.session_id": "s7", "sessions.4.session_id": "s5", "sessions.0.summary": "summary s2", "sessions.0.message_count": 3,
				"sessions.0.context.vertical": "Retail", "sessions.0.is_persistent": true, "sessions.0.confidence": 90},
			absent: []string{"preferences.2", "sessions.5"}},
		{name: "Fact", method: "POST", path: "/v1/facts", body: `{"user_id":"u","category":"career_goal","fact":"wants a product role"}`, status: 201,
			save: map[string]string{"fact": "id"}},
		{name: "Episode", method: "POST", path: "/v1/episodes", body: `{"user_id":"u","agent_id":"a","action_type":"t","action_description":"planned the Retail launch","outcome":"success"}`, status: 201},
		{name: "Working", method: "PUT", path: "/v1/tasks/t/working/k", body: `{"agent_id":"a","user_id":"u","value":"scratch"}`, status: 201},
		{name: "OtherUserFact", method: "POST", path: "/v1/facts", body: `{"user_id":"v","category":"career_goal","fact":"wants a Retail role"}`, status: 201,
			save: map[string]string{"vfact": "id"}},
		{name: "Memories", method: "GET", path: "/v1/users/u/memories", status: 200,
			want: map[string]any{"user_id": "u", "count": 13, "memories.preference.2.key": "budget", "memories.fact.0.id": "{fact}",
				"memories.episode.0.content": "planned the Retail launch", "memories.working.0.task_id": "t", "memories.note": []any{}},
			absent: []string{"memories.session.7", "memories.fact.1", "memories.fact.0.embedding"}},
		{name: "ForgetErrEmpty", method: "POST", path: "/v1/users/u/forget", body: `{}`, status: 400, want: map[string]any{"code": "invalid"}},
		{name: "ForgetErrBody", method: "POST", path: "/v1/users/u/forget", body: `{"query":3}`, status: 400},
		{name: "ForgetDryRun", method: "POST", path: "/v1/users/u/forget", body: `{"query":"retail","dry_run":true}`, status: 200,
			// The preference, the episode, and the seven sessions whose
			// context names the vertical.
			want: map[string]any{"dry_run": true, "count": 9}},
		{name: "ForgetDryRunKept", method: "GET", path: "/v1/users/u/memories", status: 200, want: map[string]any{"count": 13}},
		{name: "ForgetQuery", method: "POST", path: "/v1/users/u/forget", body: `{"query":"Retail"}`, status: 200,
			want: map[string]any{"dry_run": false, "count": 9}},
		{name: "ForgetOtherUsersID", method: "POST", path: "/v1/users/u/forget", body: `{"ids":["{vfact}"]}`, status: 200,
			want: map[string]any{"count": 0, "deleted": []any{}}},
		{name: "ForgetIDs", method: "POST", path: "/v1/users/u/forget", body: `{"ids":["{fact}"]}`, status: 200,
			want: map[string]any{"count": 1, "deleted.0.id": "{fact}", "deleted.0.kind": "fact", "deleted.0.content": "wants a product role"}},
		{name: "AfterForget", method: "GET", path: "/v1/users/u/memories", status: 200, want: map[string]any{"count": 3, "memories.fact": []any{}, "memories.session": []any{}}},
		{name: "DeleteUser", method: "DELETE", path: "/v1/users/u", status: 200, want: map[string]any{"deleted": 3}},
		{name: "Gone", method: "GET", path: "/v1/users/u/memories", status: 200, want: map[string]any{"count": 0}},
		{name: "GonePrefs", method: "GET", path: "/v1/users/u/preferences", status: 200, want: map[string]any{"count": 0}},
		{name: "ContextRecreates", method: "GET", path: "/v1/users/u/context", status: 200, want: map[string]any{"created": true, "sessions": []any{}}},
		{name: "OtherUserIntact", method: "GET", path: "/v1/users/v/memories", status: 200,
			want: map[string]any{"count": 2, "memories.fact.0.id": "{vfact}", "memories.session.0.key": "v8"}},
		{name: "DeleteUnknownUser", method: "DELETE", path: "/v1/users/nobody", status: 200, want: map[string]any{"deleted": 0}},
	}, lcSessions)
}
