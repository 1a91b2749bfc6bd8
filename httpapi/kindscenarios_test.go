package httpapi_test

import (
	"context"
	"encoding/json"
	"net/http/httptest"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/loci-memory/loci"
	"github.com/loci-memory/loci/httpapi"
	"github.com/loci-memory/loci/internal/testdb"
	"github.com/loci-memory/loci/rules"
)

// lcT0 is the fake clock's start in the lifecycle scenarios.
var lcT0 = time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)

// lcStep is one request of a scenario: the clock moves by advance first;
// {name} in path and body is replaced by a value saved by an earlier step.
// want maps dotted paths into the JSON answer ("results.0.id") to the
// values expected there; save names values to keep from the answer.
type lcStep struct {
	name    string
	advance time.Duration
	method  string
	path    string
	body    string
	status  int
	want    map[string]any
	absent  []string // dotted paths that must not exist
	save    map[string]string
}

// lcRun runs the steps in order on one server per backend.
func lcRun(t *testing.T, steps []lcStep, setup func(t *testing.T, store loci.Store)) {
	testdb.Each(t, func(t *testing.T, open func(testing.TB) loci.Store) {
		store := open(t)
		if setup != nil {
			setup(t, store)
		}
		clock := loci.NewFakeClock(lcT0)
		srv := httpapi.NewServer(rules.New(store, rules.WithClock(clock)), nil)
		vars := map[string]string{}
		for i, st := range steps {
			clock.Add(st.advance)
			expand := func(s string) string {
				for k, v := range vars {
					s = strings.ReplaceAll(s, "{"+k+"}", v)
				}
				return s
			}
			name := strconv.Itoa(i) + "_" + st.name
			ok := t.Run(name, func(t *testing.T) {
				var body *strings.Reader
				if st.body != "" {
					body = strings.NewReader(expand(st.body))
				} else {
					body = strings.NewReader("")
				}
				req := httptest.NewRequestWithContext(context.Background(), st.method, expand(st.path), body)
				if st.body != "" {
					req.Header.Set("Content-Type", "application/json")
				}
				rec := httptest.NewRecorder()
				srv.ServeHTTP(rec, req)
				if rec.Code != st.status {
					t.Fatalf("%s %s: status %d, want %d; body %s", st.method, st.path, rec.Code, st.status, rec.Body)
				}
				var got any
				if err := json.Unmarshal(rec.Body.Bytes(), &got); err != nil {
					t.Fatalf("body is not JSON: %v: %s", err, rec.Body)
				}
				wantSuccess := st.status < 400
				if s, _ := lcAt(got, "success"); s != wantSuccess {
					t.Fatalf("success: got %v, want %v; body %s", s, wantSuccess, rec.Body)
				}
				for path, want := range st.want {
					v, found := lcAt(got, path)
					if !found {
						t.Fatalf("%s: absent; body %s", path, rec.Body)
					}
					want = lcExpand(want, expand)
					if !lcEqual(v, want) {
						t.Fatalf("%s: got %v, want %v; body %s", path, lcJSON(v), lcJSON(want), rec.Body)
					}
				}
				for _, path := range st.absent {
					if v, found := lcAt(got, path); found {
						t.Fatalf("%s: got %v, want absent", path, lcJSON(v))
					}
				}
				for name, path := range st.save {
					v, found := lcAt(got, path)
					s, isString := v.(string)
					if !found || !isString {
						t.Fatalf("save %s: %s is not a string in %s", name, path, rec.Body)
					}
					vars[name] = s
				}
			})
			if !ok {
				return // later steps depend on this one
			}
		}
	})
}

// lcAt returns the value at a dotted path ("a.0.b") of decoded JSON.
func lcAt(v any, path string) (any, bool) {
	for _, part := range strings.Split(path, ".") {
		switch x := v.(type) {
		case map[string]any:
			var ok bool
			if v, ok = x[part]; !ok {
				return nil, false
			}
		case []any:
			i, err := strconv.Atoi(part)
			if err != nil || i < 0 || i >= len(x) {
				return nil, false
			}
			v = x[i]
		default:
			return nil, false
		}
	}
	return v, true
}

// lcExpand replaces saved values in the strings of want.
func lcExpand(want any, expand func(string) string) any {
	var out any
	json.Unmarshal([]byte(expand(lcJSON(want))), &out)
	return out
}

// lcEqual compares decoded JSON with a Go value through its JSON form.
func lcEqual(got, want any) bool {
	var w any
	json.Unmarshal([]byte(lcJSON(want)), &w)
	return reflect.DeepEqual(got, w)
}

func lcJSON(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

func lcTime(d time.Duration) string { return lcT0.Add(d).Format(time.RFC3339Nano) }

// lcBigValue is a working-memory body whose value's compact JSON is n bytes.
func lcBigValue(n int) string {
	return `{"agent_id":"a","value":"` + strings.Repeat("x", n-2) + `"}`
}

const lcDay = 24 * time.Hour

func TestWorkingScenarios(t *testing.T) {
	lcRun(t, []lcStep{
		{name: "SetCreates", method: "PUT", path: "/v1/tasks/t1/working/plan", body: `{"value":{"steps":[1,2]},"agent_id":"a"}`,
			status: 201, want: map[string]any{"action": "created", "task_id": "t1", "agent_id": "a", "key": "plan",
				"value": map[string]any{"steps": []int{1, 2}}, "updated_at": lcTime(0), "expires_at": lcTime(24 * time.Hour)}},
		{name: "SetUpdates", advance: time.Hour, method: "PUT", path: "/v1/tasks/t1/working/plan", body: `{"value":{"steps":[1,2,3]},"agent_id":"a"}`,
			status: 200, want: map[string]any{"action": "updated", "expires_at": lcTime(25 * time.Hour)}},
		{name: "SetOtherAgentAndUser", advance: time.Minute, method: "PUT", path: "/v1/tasks/t1/working/note", body: `{"value":"draft","agent_id":"b","user_id":"u"}`,
			status: 201, want: map[string]any{"user_id": "u", "agent_id": "b", "value": "draft"}},
		{name: "GetOne", method: "GET", path: "/v1/tasks/t1/working/plan", status: 200,
			want: map[string]any{"key": "plan", "value": map[string]any{"steps": []int{1, 2, 3}}}},
		{name: "GetOneByAgent", method: "GET", path: "/v1/tasks/t1/working/note?agent_id=b&user_id=u", status: 200, want: map[string]any{"value": "draft"}},
		{name: "GetOneOtherAgent404", method: "GET", path: "/v1/tasks/t1/working/note?agent_id=a", status: 404, want: map[string]any{"code": "not_found"}},
		{name: "GetMissing404", method: "GET", path: "/v1/tasks/t1/working/nope", status: 404, want: map[string]any{"code": "not_found"}},
		{name: "GetAllAsObject", method: "GET", path: "/v1/tasks/t1/working", status: 200,
			want: map[string]any{"count": 2, "values": map[string]any{"plan": map[string]any{"steps": []int{1, 2, 3}}, "note": "draft"}}},
		{name: "ErrNoAgent", method: "PUT", path: "/v1/tasks/t1/working/k", body: `{"value":1}`, status: 400, want: map[string]any{"code": "invalid"}},
		{name: "ErrNoValue", method: "PUT", path: "/v1/tasks/t1/working/k", body: `{"agent_id":"a"}`, status: 400, want: map[string]any{"code": "invalid"}},
		{name: "ErrUnknownField", method: "PUT", path: "/v1/tasks/t1/working/k", body: `{"agent_id":"a","value":1,"ttl":5}`, status: 400, want: map[string]any{"code": "invalid"}},
		{name: "ErrMalformed", method: "PUT", path: "/v1/tasks/t1/working/k", body: `{"agent_id":`, status: 400, want: map[string]any{"code": "invalid"}},
		{name: "Exactly50KiB", method: "PUT", path: "/v1/tasks/t2/working/big", body: lcBigValue(51200), status: 201},
		{name: "OneByteMore413", method: "PUT", path: "/v1/tasks/t2/working/one", body: `{"agent_id":"a","value":1}`, status: 413,
			want: map[string]any{"code": "too_large"}},
		{name: "50KiBPlus1Refused", method: "PUT", path: "/v1/tasks/t3/working/big", body: lcBigValue(51201), status: 413, want: map[string]any{"code": "too_large"}},
		{name: "NothingChanged", method: "GET", path: "/v1/tasks/t2/working", status: 200, want: map[string]any{"count": 1}, absent: []string{"values.one"}},
		{name: "Clear", method: "DELETE", path: "/v1/tasks/t2/working", status: 200, want: map[string]any{"deleted": 1}},
		{name: "ClearedEmpty", method: "GET", path: "/v1/tasks/t2/working", status: 200, want: map[string]any{"count": 0, "values": map[string]any{}}},
		{name: "JustBeforeExpiry", advance: 24*time.Hour - time.Minute - time.Microsecond, method: "GET", path: "/v1/tasks/t1/working/plan", status: 200},
		{name: "Expired404", advance: time.Microsecond, method: "GET", path: "/v1/tasks/t1/working/plan", status: 404},
		{name: "ExpiredNotListed", method: "GET", path: "/v1/tasks/t1/working", status: 200, want: map[string]any{"count": 1}, absent: []string{"values.plan"}},
		{name: "ExpireRemoves", method: "POST", path: "/v1/maintenance", body: `{"tasks":["expire"]}`, status: 200,
			want: map[string]any{"dry_run": false, "tasks.expire.deleted": 1}},
	}, nil)
}

func TestEpisodeScenarios(t *testing.T) {
	lcRun(t, []lcStep{
		{name: "Record", method: "POST", path: "/v1/episodes", body: `{"user_id":"u","agent_id":"interviewer","action_type":"interview_analysis",
			"action_description":"Analyzed behavioral interview for STAR compliance","context":{"goal":"improve answers","tools_used":["transcript_parser"]},
			"outcome":"success","outcome_details":{"metrics":{"score":85}},"confidence_score":0.92}`,
			status: 201, want: map[string]any{"created_at": lcTime(0), "expires_at": lcTime(30 * lcDay)}, save: map[string]string{"ep1": "id"}},
		{name: "RecordFailure", advance: time.Minute, method: "POST", path: "/v1/episodes", body: `{"user_id":"u","agent_id":"interviewer","action_type":"interview_analysis",
			"action_description":"Analyzed technical interview transcript","outcome":"failure","outcome_details":{"error":"timeout"}}`,
			status: 201, save: map[string]string{"ep2": "id"}},
		{name: "RecordOtherAgent", method: "POST", path: "/v1/episodes", body: `{"user_id":"u","agent_id":"coach","action_type":"interview_analysis",
			"action_description":"Analyzed behavioral interview","outcome":"success"}`, status: 201},
		{name: "ErrOutcome", method: "POST", path: "/v1/episodes", body: `{"user_id":"u","agent_id":"a","action_type":"t","action_description":"d","outcome":"win"}`,
			status: 400, want: map[string]any{"code": "invalid"}},
		{name: "ErrNoUser", method: "POST", path: "/v1/episodes", body: `{"agent_id":"a","action_type":"t","action_description":"d","outcome":"success"}`,
			status: 400, want: map[string]any{"code": "invalid"}},
		{name: "ErrConfidence", method: "POST", path: "/v1/episodes", body: `{"user_id":"u","agent_id":"a","action_type":"t","action_description":"d","outcome":"success","confidence_score":2}`,
			status: 400, want: map[string]any{"code": "invalid"}},
		{name: "Search", method: "GET", path: "/v1/episodes/search?user_id=u&agent_id=interviewer&q=behavioral+interview", status: 200,
			want: map[string]any{"count": 2, "results.0.id": "{ep1}", "results.0.outcome": "success", "results.0.confidence_score": 0.92,
				"results.0.context.goal": "improve answers"}},
		{name: "SearchSuccessOnly", method: "GET", path: "/v1/episodes/search?user_id=u&agent_id=interviewer&q=interview&outcome=success", status: 200,
			want: map[string]any{"count": 1, "results.0.action_type": "interview_analysis"}},
		{name: "SearchFailureOnly", method: "GET", path: "/v1/episodes/search?user_id=u&agent_id=interviewer&q=interview&outcome=failure", status: 200,
			want: map[string]any{"count": 1, "results.0.outcome_details.error": "timeout", "results.0.confidence_score": nil}},
		{name: "SearchErrOutcome", method: "GET", path: "/v1/episodes/search?user_id=u&agent_id=interviewer&q=x&outcome=meh", status: 400, want: map[string]any{"code": "invalid"}},
		{name: "SearchErrNoQuery", method: "GET", path: "/v1/episodes/search?user_id=u&agent_id=interviewer", status: 400, want: map[string]any{"code": "invalid"}},
		{name: "SearchErrLimit", method: "GET", path: "/v1/episodes/search?user_id=u&agent_id=interviewer&q=x&limit=abc", status: 400},
		{name: "Recent", method: "GET", path: "/v1/episodes?user_id=u&agent_id=interviewer&action_type=interview_analysis", status: 200,
			want: map[string]any{"count": 2, "episodes.0.id": "{ep2}", "episodes.1.id": "{ep1}"}},
		{name: "RecentLimit", method: "GET", path: "/v1/episodes?user_id=u&agent_id=interviewer&limit=1", status: 200,
			want: map[string]any{"count": 2, "episodes.0.id": "{ep2}"}, absent: []string{"episodes.1"}},
		{name: "RecentOtherType", method: "GET", path: "/v1/episodes?user_id=u&agent_id=interviewer&action_type=resume", status: 200,
			want: map[string]any{"count": 0, "episodes": []any{}}},
		{name: "RecentErrNoAgent", method: "GET", path: "/v1/episodes?user_id=u", status: 400},
		{name: "Feedback", method: "POST", path: "/v1/episodes/{ep1}/feedback", body: `{"rating":5,"comment":"spot on","corrections":{"score":90}}`, status: 200,
			want: map[string]any{"id": "{ep1}", "user_feedback": map[string]any{"rating": 5, "comment": "spot on", "corrections": map[string]any{"score": 90}}}},
		{name: "FeedbackErrEmpty", method: "POST", path: "/v1/episodes/{ep1}/feedback", body: `{}`, status: 400},
		{name: "FeedbackErrUnknownField", method: "POST", path: "/v1/episodes/{ep1}/feedback", body: `{"stars":3}`, status: 400},
		{name: "Feedback404", method: "POST", path: "/v1/episodes/nope/feedback", body: `{"rating":1}`, status: 404, want: map[string]any{"code": "not_found"}},
		{name: "Day30Invisible", advance: 30*lcDay - time.Minute, method: "GET", path: "/v1/episodes?user_id=u&agent_id=interviewer", status: 200,
			want: map[string]any{"count": 1, "episodes.0.id": "{ep2}"}},
		{name: "ExpiredSearchInvisible", method: "GET", path: "/v1/episodes/search?user_id=u&agent_id=interviewer&q=behavioral", status: 200,
			want: map[string]any{"count": 0}},
		{name: "ExpireDryRun", method: "POST", path: "/v1/maintenance", body: `{"tasks":["expire"],"dry_run":true}`, status: 200,
			want: map[string]any{"dry_run": true, "tasks.expire.deleted": 1, "tasks.expire.ids": []string{"{ep1}"}}},
		{name: "Expire", method: "POST", path: "/v1/maintenance", body: `{"tasks":["expire"]}`, status: 200,
			want: map[string]any{"tasks.expire.deleted": 1}},
		{name: "ExpireAgainNothing", method: "POST", path: "/v1/maintenance", body: `{"tasks":["expire"]}`, status: 200,
			want: map[string]any{"tasks.expire.deleted": 0, "tasks.expire.ids": []any{}}},
	}, nil)
}

func TestFactScenarios(t *testing.T) {
	lcRun(t, []lcStep{
		{name: "Store", method: "POST", path: "/v1/facts", body: `{"user_id":"u","agent_id":"interviewer","category":"interview_insight",
			"fact":"User performs better with structured STAR responses","keywords":["interview","STAR"],"evidence":{"source_episodes":["e1","e2"]}}`,
			status: 201, want: map[string]any{"relevance_score": 1}, save: map[string]string{"f1": "id"}},
		{name: "StoreGlobal", method: "POST", path: "/v1/facts", body: `{"category":"job_market_fact","fact":"STAR answers are common in interview loops","keywords":["interview"]}`,
			status: 201, save: map[string]string{"fg": "id"}},
		{name: "StoreOtherUser", method: "POST", path: "/v1/facts", body: `{"user_id":"v","category":"interview_insight","fact":"STAR answers feel stiff","keywords":["STAR"]}`,
			status: 201},
		{name: "ErrCategory", method: "POST", path: "/v1/facts", body: `{"user_id":"u","category":"Gossip!","fact":"x"}`, status: 400, want: map[string]any{"code": "invalid"}},
		{name: "ErrNoFact", method: "POST", path: "/v1/facts", body: `{"user_id":"u","category":"general_fact"}`, status: 400},
		{name: "ErrEvidence", method: "POST", path: "/v1/facts", body: `{"user_id":"u","category":"general_fact","fact":"x","evidence":[1]}`, status: 400},
		{name: "Search", advance: time.Hour, method: "GET", path: "/v1/facts/search?user_id=u&q=STAR+responses", status: 200,
			want: map[string]any{"count": 1, "results.0.id": "{f1}", "results.0.access_count": 1, "results.0.last_accessed_at": lcTime(time.Hour),
				"results.0.category": "interview_insight", "results.0.keywords": []string{"interview", "STAR"}, "results.0.evidence.source_episodes": []string{"e1", "e2"}}},
		{name: "SearchIncludeGlobal", method: "GET", path: "/v1/facts/search?user_id=u&q=STAR&include_global=true", status: 200, want: map[string]any{"count": 2}},
		{name: "SearchCategory", method: "GET", path: "/v1/facts/search?user_id=u&q=STAR&include_global=true&category=job_market_fact", status: 200,
			want: map[string]any{"count": 1, "results.0.id": "{fg}"}},
		{name: "SearchErrCategory", method: "GET", path: "/v1/facts/search?user_id=u&q=STAR&category=Gossip!", status: 400, want: map[string]any{"code": "invalid"}},
		{name: "SearchErrBool", method: "GET", path: "/v1/facts/search?user_id=u&q=STAR&include_global=maybe", status: 400},
		{name: "SearchErrNoQuery", method: "GET", path: "/v1/facts/search?user_id=u", status: 400},
		{name: "Keyword", method: "GET", path: "/v1/facts?user_id=u&keyword=STAR", status: 200,
			want: map[string]any{"count": 1, "facts.0.id": "{f1}", "facts.0.access_count": 3}},
		{name: "KeywordNone", method: "GET", path: "/v1/facts?user_id=u&keyword=salary", status: 200, want: map[string]any{"count": 0, "facts": []any{}}},
		{name: "Validate", method: "POST", path: "/v1/facts/{f1}/validate", status: 200,
			want: map[string]any{"id": "{f1}", "relevance_score": 1, "is_validated": true, "validated_at": lcTime(time.Hour), "contradiction_count": 0}},
		{name: "Contradict", method: "POST", path: "/v1/facts/{f1}/contradict", status: 200,
			want: map[string]any{"relevance_score": 0.8, "is_validated": true, "contradiction_count": 1}},
		{name: "ValidateAgain", method: "POST", path: "/v1/facts/{f1}/validate", status: 200, want: map[string]any{"relevance_score": 0.9}},
		{name: "Validate404", method: "POST", path: "/v1/facts/nope/validate", status: 404, want: map[string]any{"code": "not_found"}},
		{name: "Contradict404", method: "POST", path: "/v1/facts/nope/contradict", status: 404},
		{name: "ContradictGlobal", method: "POST", path: "/v1/facts/{fg}/contradict", status: 200, want: map[string]any{"relevance_score": 0.8}},
	}, nil)
}

func TestMaintenanceScenarios(t *testing.T) {
	episode := `{"user_id":"u","agent_id":"a","action_type":"analysis","action_description":"analyzed","outcome":"success","confidence_score":0.9}`
	lcRun(t, []lcStep{
		{name: "E1", method: "POST", path: "/v1/episodes", body: episode, status: 201, save: map[string]string{"e1": "id"}},
		{name: "E2", advance: time.Minute, method: "POST", path: "/v1/episodes", body: episode, status: 201},
		{name: "E3", advance: time.Minute, method: "POST", path: "/v1/episodes", body: episode, status: 201},
		{name: "Fact", method: "POST", path: "/v1/facts", body: `{"user_id":"u","category":"general_fact","fact":"unused"}`, status: 201, save: map[string]string{"f": "id"}},
		{name: "ErrTask", method: "POST", path: "/v1/maintenance", body: `{"tasks":["vacuum"]}`, status: 400, want: map[string]any{"code": "invalid"}},
		{name: "ErrBody", method: "POST", path: "/v1/maintenance", body: `{"tasks":"decay"}`, status: 400},
		{name: "DryRunAll", method: "POST", path: "/v1/maintenance", body: `{"dry_run":true}`, status: 200,
			want: map[string]any{"dry_run": true, "tasks.consolidate.created": 1, "tasks.decay.updated": 0, "tasks.prune.deleted": 0, "tasks.expire.deleted": 0}},
		{name: "Consolidate", method: "POST", path: "/v1/maintenance", body: `{"tasks":["consolidate"]}`, status: 200,
			want: map[string]any{"tasks.consolidate.created": 1, "tasks.consolidate.updated": 0}, absent: []string{"tasks.decay"},
			save: map[string]string{"p": "tasks.consolidate.ids.0"}},
		{name: "PatternFact", method: "GET", path: "/v1/facts?user_id=u&category=pattern_learned", status: 200,
			want: map[string]any{"count": 1, "facts.0.id": "{p}", "facts.0.category": "pattern_learned", "facts.0.evidence.source_episodes.2": "{e1}"}},
		{name: "ConsolidateAgainNothing", method: "POST", path: "/v1/maintenance", body: `{"tasks":["consolidate"]}`, status: 200,
			want: map[string]any{"tasks.consolidate.created": 0, "tasks.consolidate.updated": 0}},
		{name: "Day30Decay", advance: 30 * lcDay, method: "POST", path: "/v1/maintenance", body: `{"tasks":["decay"]}`, status: 200,
			want: map[string]any{"tasks.decay.updated": 2}},
		{name: "Day31NoSecondDecay", advance: lcDay, method: "POST", path: "/v1/maintenance", body: `{"tasks":["decay"]}`, status: 200,
			want: map[string]any{"tasks.decay.updated": 0}},
		{name: "EmptyBodyRunsAll", method: "POST", path: "/v1/maintenance", status: 200,
			want: map[string]any{"tasks.expire.deleted": 3, "tasks.prune.deleted": 0}},
	}, nil)
}
