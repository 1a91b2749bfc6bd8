package httpapi_test

import (
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/loci-memory/loci"
	"github.com/loci-memory/loci/httpapi"
	"github.com/loci-memory/loci/internal/testdb"
	"github.com/loci-memory/loci/rules"
)

// docStep is one request whose answer is checked against the document.
type docStep struct {
	method, path, body string
	key                string // a captured variable holding the API key to send
	wantStatus         int
	capture            map[string]string // variable name -> top-level field ("_body": the raw body)
}

// opFor returns the documented path template matching a concrete path:
// the one with the most literal segments.
func opFor(doc map[string]any, method, path string) (string, map[string]any) {
	segs := strings.Split(path, "/")
	best, bestLit := "", -1
	var bestOp map[string]any
	for tmpl, item := range doc["paths"].(map[string]any) {
		op, ok := item.(map[string]any)[strings.ToLower(method)].(map[string]any)
		if !ok {
			continue
		}
		ts := strings.Split(tmpl, "/")
		if len(ts) != len(segs) {
			continue
		}
		lit, match := 0, true
		for i, s := range ts {
			switch {
			case strings.HasPrefix(s, "{"):
				match = match && segs[i] != ""
			case s == segs[i]:
				lit++
			default:
				match = false
			}
		}
		if match && lit > bestLit {
			best, bestLit, bestOp = tmpl, lit, op
		}
	}
	return best, bestOp
}

// checkAnswer checks one answer against its documented response: the
// status is documented, the content type is the documented one, and a
// JSON body matches the schema (strictly: no undocumented fields).
func checkAnswer(c schemaChecker, op map[string]any, status int, contentType string, body []byte) []string {
	r, ok := op["responses"].(map[string]any)[fmt.Sprint(status)].(map[string]any)
	if !ok {
		return []string{fmt.Sprintf("status %d is not documented", status)}
	}
	r, err := c.deref(r)
	if err != nil {
		return []string{err.Error()}
	}
	content, _ := r["content"].(map[string]any)
	if len(content) == 0 {
		if len(body) > 0 {
			return []string{"a body is answered but none is documented"}
		}
		return nil
	}
	media := strings.TrimSpace(strings.Split(contentType, ";")[0])
	mt, ok := content[media].(map[string]any)
	if !ok {
		return []string{fmt.Sprintf("content type %q is not documented for %d", contentType, status)}
	}
	if media != "application/json" {
		return nil
	}
	var v any
	if err := json.Unmarshal(body, &v); err != nil {
		return []string{"body is not JSON: " + err.Error()}
	}
	return c.check(mt["schema"].(map[string]any), v, "$")
}

// checkRequest checks a request body the server accepted against the
// documented request body.
func checkRequest(c schemaChecker, op map[string]any, body string) []string {
	rb, documented := op["requestBody"].(map[string]any)
	switch {
	case !documented && body != "":
		return []string{"a body was accepted but none is documented"}
	case !documented:
		return nil
	case body == "":
		if rb["required"] == true {
			return []string{"no body was sent but the body is documented as required"}
		}
		return nil
	}
	mt, ok := rb["content"].(map[string]any)["application/json"].(map[string]any)
	if !ok {
		return nil // not JSON (import)
	}
	var v any
	if err := json.Unmarshal([]byte(body), &v); err != nil {
		return []string{"body is not JSON: " + err.Error()}
	}
	return c.check(mt["schema"].(map[string]any), v, "$")
}

// TestOpenAPIAnswersMatch runs requests over (nearly) every operation and
// checks each real answer, successes and errors, against the document.
func TestOpenAPIAnswersMatch(t *testing.T) {
	doc := openAPIDoc(t)
	c := schemaChecker{doc: doc, strict: true}
	for _, b := range testdb.Backends() {
		t.Run(b.Name, func(t *testing.T) {
			clock := loci.NewFakeClock(t0)
			svc := rules.New(b.Open(t), rules.WithClock(clock))
			h := httpapi.NewServer(svc, slog.New(slog.NewTextHandler(io.Discard, nil)))
			vars := map[string]string{}
			exercised := runDocSteps(t, h, clock, c, vars, docSteps())

			// The export imported into a fresh store.
			fresh := httpapi.NewServer(rules.New(b.Open(t), rules.WithClock(clock)), slog.New(slog.NewTextHandler(io.Discard, nil)))
			// The same passage at another version: present, and different.
			lines := strings.Split(vars["export"], "\n")
			for i, l := range lines {
				if strings.Contains(l, `"kind":"passage"`) {
					lines[i] = strings.Replace(l, `"version":1,`, `"version":9,`, 1)
					break
				}
			}
			vars["exportChanged"] = strings.Join(lines, "\n")
			runDocSteps(t, fresh, clock, c, vars, []docStep{
				{method: "POST", path: "/v1/import", body: "{{export}}", wantStatus: 201},
				{method: "POST", path: "/v1/import", body: "{{exportChanged}}", wantStatus: 409},
				{method: "POST", path: "/v1/import", body: `{"type":"record"}`, wantStatus: 400},
				{method: "GET", path: "/v1/users/u2/context", wantStatus: 200},
			})

			// A rate-limited answer, on a server allowing one request.
			limited := httpapi.NewServer(svc, slog.New(slog.NewTextHandler(io.Discard, nil)), httpapi.WithRateLimit(0.001, 1))
			for k := range runDocSteps(t, limited, clock, c, vars, []docStep{
				{method: "GET", path: "/healthz", wantStatus: 200},
				{method: "GET", path: "/healthz", wantStatus: 429},
			}) {
				exercised[k] = true
			}

			var missed []string
			for path, item := range doc["paths"].(map[string]any) {
				for method := range item.(map[string]any) {
					if k := strings.ToUpper(method) + " " + path; !exercised[k] {
						missed = append(missed, k)
					}
				}
			}
			sort.Strings(missed)
			if len(missed) > 0 {
				t.Errorf("documented operations no step exercises (add one to docSteps): %v", missed)
			}
		})
	}
}

// runDocSteps runs steps in order against h and checks every answer
// against the document; it returns the operations it exercised. Captured
// values go to vars.
func runDocSteps(t *testing.T, h http.Handler, clock *loci.FakeClock, c schemaChecker, vars map[string]string, steps []docStep) map[string]bool {
	t.Helper()
	expand := func(s string) string {
		for k, v := range vars {
			s = strings.ReplaceAll(s, "{{"+k+"}}", v)
		}
		return s
	}
	exercised := map[string]bool{}
	for _, st := range steps {
		path := expand(st.path)
		name := st.method + " " + strings.SplitN(path, "?", 2)[0]
		// A wrong status or a failed capture stops the scenario (later
		// steps depend on earlier ones); a schema mismatch does not.
		stop := true
		t.Run(strings.ReplaceAll(name, "/", "_"), func(t *testing.T) {
			clock.Add(time.Second)
			var body io.Reader
			if st.body != "" {
				body = strings.NewReader(expand(st.body))
			}
			req := httptest.NewRequest(st.method, path, body)
			if st.key != "" {
				req.Header.Set("Authorization", "Bearer "+vars[st.key])
			}
			rec := httptest.NewRecorder()
			h.ServeHTTP(rec, req)
			if rec.Code != st.wantStatus {
				t.Fatalf("status = %d, want %d; body %s", rec.Code, st.wantStatus, rec.Body)
			}
			tmpl, op := opFor(c.doc, st.method, req.URL.Path)
			if op != nil {
				exercised[st.method+" "+tmpl] = true
				if rec.Code < 300 {
					for _, p := range checkRequest(c, op, expand(st.body)) {
						t.Errorf("%s %s request: %s", st.method, tmpl, p)
					}
				}
				for _, p := range checkAnswer(c, op, rec.Code, rec.Header().Get("Content-Type"), rec.Body.Bytes()) {
					t.Errorf("%s %s -> %d: %s\nbody: %s", st.method, tmpl, rec.Code, p, rec.Body)
				}
			} else {
				t.Errorf("no documented operation matches %s %s", st.method, req.URL.Path)
			}
			var top map[string]any
			json.Unmarshal(rec.Body.Bytes(), &top)
			for v, field := range st.capture {
				if field == "_body" {
					vars[v] = rec.Body.String()
					continue
				}
				s, _ := top[field].(string)
				if s == "" {
					t.Fatalf("no %s to capture in %s", field, rec.Body)
				}
				vars[v] = s
			}
			stop = false
		})
		if stop {
			t.FailNow()
		}
	}
	return exercised
}

func docSteps() []docStep {
	big := strings.Repeat("x", loci.DefaultBlockLimit+1)
	return []docStep{
		// Operations.
		{method: "GET", path: "/healthz", wantStatus: 200},
		{method: "GET", path: "/readyz", wantStatus: 200},
		{method: "GET", path: "/metrics", wantStatus: 404},
		{method: "GET", path: "/v1/openapi.json", wantStatus: 200},

		// Notes.
		{method: "PUT", path: "/v1/agents/ag/notes/k1", body: `{"value": "v1"}`, wantStatus: 201},
		{method: "PUT", path: "/v1/agents/ag/notes/k1", body: `{"value": {"x": 1}}`, wantStatus: 200},
		{method: "GET", path: "/v1/agents/ag/notes/k1", wantStatus: 200},
		{method: "GET", path: "/v1/agents/ag/notes", wantStatus: 200},
		{method: "GET", path: "/v1/agents/nobody/notes", wantStatus: 200},
		{method: "GET", path: "/v1/agents/ag/notes/k1/history", wantStatus: 200},
		{method: "GET", path: "/v1/agents/ag/notes/nope", wantStatus: 404},
		{method: "PUT", path: "/v1/agents/ag/notes/k2", body: `{"value": "  "}`, wantStatus: 400},
		{method: "PUT", path: "/v1/agents/ag/notes/k2", body: `{"value": "x", "ttl": 1}`, wantStatus: 400},
		{method: "DELETE", path: "/v1/agents/ag/notes/k1", wantStatus: 200},

		// Agents and blocks.
		{method: "POST", path: "/v1/agents", body: `{"id": "ag", "name": "Agent"}`, wantStatus: 201},
		{method: "POST", path: "/v1/agents", body: `{"id": "ag"}`, wantStatus: 409},
		{method: "POST", path: "/v1/agents", body: `{"id": "ag2", "blocks": []}`, wantStatus: 201},
		{method: "GET", path: "/v1/agents?limit=10", wantStatus: 200},
		{method: "GET", path: "/v1/agents?limit=5000", wantStatus: 400},
		{method: "GET", path: "/v1/agents?limit=0", wantStatus: 400},
		{method: "GET", path: "/v1/agents/ag", wantStatus: 200},
		{method: "GET", path: "/v1/agents/ag/blocks", wantStatus: 200},
		{method: "GET", path: "/v1/agents/ag/blocks/personality", wantStatus: 200},
		{method: "GET", path: "/v1/agents/ag/blocks/nope", wantStatus: 404},
		{method: "PUT", path: "/v1/agents/ag/blocks/personality", body: `{"content": "calm"}`, wantStatus: 200},
		{method: "PUT", path: "/v1/agents/ag/blocks/goals", body: `{"content": "ship"}`, wantStatus: 201},
		{method: "PUT", path: "/v1/agents/ag/blocks/personality", body: `{"content": "y", "expected_version": 1}`, wantStatus: 409},
		{method: "PUT", path: "/v1/agents/ag/blocks/personality", body: `{"content": "` + big + `"}`, wantStatus: 413},
		{method: "GET", path: "/v1/agents/ag/blocks/personality/history", wantStatus: 200},
		{method: "GET", path: "/v1/agents/ag/blocks/nope/history", wantStatus: 404},
		{method: "POST", path: "/v1/agents/ag/blocks", body: `{"label": "team", "content": "shared", "shared": true}`, wantStatus: 201,
			capture: map[string]string{"block": "id"}},
		{method: "PUT", path: "/v1/blocks/{{block}}/consumers/ag2", wantStatus: 200},
		{method: "GET", path: "/v1/blocks/{{block}}/consumers", wantStatus: 200},
		{method: "GET", path: "/v1/agents/ag/prompt", wantStatus: 200},
		{method: "DELETE", path: "/v1/blocks/{{block}}/consumers/ag2", wantStatus: 200},

		// Passages.
		{method: "POST", path: "/v1/agents/ag/passages", body: `{"content": "The cat sat on the mat", "tags": ["pets"]}`, wantStatus: 201,
			capture: map[string]string{"passage": "id"}},
		{method: "POST", path: "/v1/agents/ag/passages", body: `{"content": "Dogs bark loudly"}`, wantStatus: 201},
		{method: "GET", path: "/v1/agents/ag/passages", wantStatus: 200},
		{method: "GET", path: "/v1/agents/ag/passages/search?q=cat", wantStatus: 200},
		{method: "GET", path: "/v1/agents/ag/passages/search?q=cat&explain=true", wantStatus: 200},
		{method: "GET", path: "/v1/agents/ag/passages/search?q=cat&explain=maybe", wantStatus: 400},

		// Search across kinds.
		{method: "POST", path: "/v1/search", body: `{"query": "cat mat", "agent_id": "ag", "kinds": ["passage"], "explain": true}`, wantStatus: 200},
		{method: "POST", path: "/v1/search", body: `{"query": "cat", "tags": ["pets"], "limit": 5}`, wantStatus: 200},
		{method: "POST", path: "/v1/search", body: `{"query": "  "}`, wantStatus: 400},
		{method: "POST", path: "/v1/search", body: `{"query": "cat", "kinds": ["nope"]}`, wantStatus: 400},
		{method: "POST", path: "/v1/search", body: `{"query": "cat", "limit": 5000}`, wantStatus: 400},
		{method: "POST", path: "/v1/search", body: `{"query": "cat", "scope": "all"}`, wantStatus: 400},
		{method: "DELETE", path: "/v1/agents/ag/passages/{{passage}}", wantStatus: 200},
		{method: "DELETE", path: "/v1/agents/ag/passages/{{passage}}", wantStatus: 404},

		// Sessions.
		{method: "PUT", path: "/v1/sessions/s1", body: `{"user_id": "u1", "summary": "hello", "context": {"topic": "x"},
			"messages": [{"role": "user", "content": "hi"}], "expires_at": "2030-01-01T00:00:00Z", "confidence": 70}`, wantStatus: 201},
		{method: "PUT", path: "/v1/sessions/s2", body: `{"user_id": "u1", "is_persistent": true}`, wantStatus: 201},
		{method: "PUT", path: "/v1/sessions/s2", body: `{"user_id": "u1", "is_persistent": true, "summary": "again"}`, wantStatus: 200},
		{method: "POST", path: "/v1/sessions/s1/messages", body: `{"role": "assistant", "content": "hello"}`, wantStatus: 201},
		{method: "POST", path: "/v1/sessions/nope/messages", body: `{"role": "assistant", "content": "hello"}`, wantStatus: 404},
		// An explanation with every part: context (the answer after a
		// question), session strength and a date.
		{method: "POST", path: "/v1/sessions/s1/messages", body: `{"role": "user", "content": "what did you paint today?"}`, wantStatus: 201},
		{method: "POST", path: "/v1/sessions/s1/messages", body: `{"role": "assistant", "content": "a sunrise over the lake"}`, wantStatus: 201},
		{method: "POST", path: "/v1/search", body: `{"query": "paint today", "user_id": "u1", "kinds": ["session"], "explain": true}`, wantStatus: 200},
		{method: "GET", path: "/v1/sessions/s1", wantStatus: 200},
		{method: "GET", path: "/v1/sessions/s2", wantStatus: 200},
		{method: "GET", path: "/v1/users/u1/sessions", wantStatus: 200},

		// Working memory.
		{method: "PUT", path: "/v1/tasks/t1/working/plan", body: `{"value": {"step": 1}, "agent_id": "ag"}`, wantStatus: 201},
		{method: "PUT", path: "/v1/tasks/t1/working/plan", body: `{"value": {"step": 2}, "agent_id": "ag"}`, wantStatus: 200},
		{method: "PUT", path: "/v1/tasks/t1/working/who", body: `{"value": "x", "agent_id": "ag", "user_id": "u1"}`, wantStatus: 201},
		{method: "GET", path: "/v1/tasks/t1/working/plan", wantStatus: 200},
		{method: "GET", path: "/v1/tasks/t1/working/who?user_id=u1", wantStatus: 200},
		{method: "GET", path: "/v1/tasks/t1/working", wantStatus: 200},
		{method: "GET", path: "/v1/tasks/t9/working", wantStatus: 200},
		{method: "DELETE", path: "/v1/tasks/t9/working", wantStatus: 200},
		{method: "DELETE", path: "/v1/tasks/t1/working/who?user_id=u1", wantStatus: 200},
		{method: "DELETE", path: "/v1/tasks/t1/working/who", wantStatus: 404},

		// Episodes.
		{method: "POST", path: "/v1/episodes", body: `{"user_id": "u1", "agent_id": "ag", "action_type": "post",
			"action_description": "posted a thread", "outcome": "success"}`, wantStatus: 201, capture: map[string]string{"episode": "id"}},
		{method: "POST", path: "/v1/episodes", body: `{"user_id": "u1", "agent_id": "ag", "action_type": "post",
			"action_description": "posted another thread", "outcome": "partial", "context": {"channel": "x"},
			"outcome_details": {"likes": 3}, "confidence_score": 0.7}`, wantStatus: 201},
		{method: "POST", path: "/v1/episodes", body: `{"user_id": "u1", "agent_id": "ag", "action_type": "post",
			"action_description": "d", "outcome": "meh"}`, wantStatus: 400},
		{method: "GET", path: "/v1/episodes/search?user_id=u1&agent_id=ag&q=thread", wantStatus: 200},
		{method: "GET", path: "/v1/episodes/search?user_id=u1&agent_id=ag&q=thread&outcome=success&explain=true", wantStatus: 200},
		{method: "GET", path: "/v1/episodes?user_id=u1&agent_id=ag", wantStatus: 200},
		{method: "POST", path: "/v1/episodes/{{episode}}/feedback", body: `{"rating": 4, "comment": "good", "corrections": {"a": 1}}`, wantStatus: 200},
		{method: "POST", path: "/v1/episodes/nope/feedback", body: `{"rating": 4}`, wantStatus: 404},
		{method: "GET", path: "/v1/episodes/{{episode}}", wantStatus: 200},
		{method: "GET", path: "/v1/episodes/nope", wantStatus: 404},

		// The memories API.
		{method: "POST", path: "/v1/memories", body: `{"content": "likes green tea", "user_id": "u1", "metadata": {"source": "chat"}}`,
			wantStatus: 201, capture: map[string]string{"memory": "id"}},
		{method: "POST", path: "/v1/memories", body: `{"content": "Likes green  TEA", "user_id": "u1"}`, wantStatus: 200},
		{method: "POST", path: "/v1/memories", body: `{"content": "x", "kind": "episode", "user_id": "u1"}`, wantStatus: 400},
		{method: "POST", path: "/v1/memories", body: `{"messages": [{"role": "system", "content": "You are helpful"}, {"role": "user", "content": "I love hiking"}], "user_id": "u1"}`, wantStatus: 201},
		{method: "POST", path: "/v1/memories", body: `{"messages": [{"role": "user", "content": "I love hiking"}], "user_id": "u1"}`, wantStatus: 200},
		{method: "POST", path: "/v1/memories", body: `{"messages": [{"role": "user", "content": "I love tea"}], "user_id": "u1", "session_id": "tea", "async": true}`,
			wantStatus: 202, capture: map[string]string{"event": "event_id"}},
		{method: "GET", path: "/v1/events/{{event}}", wantStatus: 200},
		{method: "GET", path: "/v1/events/nope", wantStatus: 404},
		{method: "POST", path: "/v1/memories", body: `{"messages": [{"role": "robot", "content": "beep"}]}`, wantStatus: 400},
		{method: "POST", path: "/v1/memories", body: `{"content": "x", "metadata": {"a": "` + strings.Repeat("x", loci.MaxMetadataBytes) + `"}}`, wantStatus: 413},
		{method: "GET", path: "/v1/memories/{{memory}}", wantStatus: 200},
		{method: "GET", path: "/v1/memories/nope", wantStatus: 404},
		{method: "PATCH", path: "/v1/memories/{{memory}}", body: `{"content": "likes black tea", "tags": ["drink"]}`, wantStatus: 200},
		{method: "PATCH", path: "/v1/memories/{{memory}}", body: `{"metadata": null}`, wantStatus: 200},
		{method: "PATCH", path: "/v1/memories/nope", body: `{"content": "x"}`, wantStatus: 404},
		{method: "PATCH", path: "/v1/memories/{{memory}}", body: `{"content": ""}`, wantStatus: 400},
		{method: "GET", path: "/v1/memories/{{memory}}/history", wantStatus: 200},
		{method: "GET", path: "/v1/memories/nope/history", wantStatus: 404},
		{method: "POST", path: "/v1/memories/batch", body: `{"add": [{"content": "b1", "user_id": "u1"}], "update": [{"id": "{{memory}}", "content": "likes oolong"}]}`,
			wantStatus: 200},
		{method: "POST", path: "/v1/memories/batch", body: `{"delete": ["nope"]}`, wantStatus: 404},
		{method: "POST", path: "/v1/memories/batch", body: `{"add": [{"content": ""}]}`, wantStatus: 400},
		{method: "GET", path: "/v1/memories?user_id=u1&filters=%7B%22metadata.source%22%3A%22chat%22%7D", wantStatus: 200},
		{method: "GET", path: "/v1/memories?user=u1", wantStatus: 400},
		{method: "DELETE", path: "/v1/memories/{{memory}}", wantStatus: 200},
		{method: "DELETE", path: "/v1/memories/{{memory}}", wantStatus: 404},
		{method: "POST", path: "/v1/search", body: `{"query": "tea", "user_id": "u1", "filters": {"kind": "fact"}}`, wantStatus: 200},
		{method: "POST", path: "/v1/search", body: `{"query": "tea", "filters": {"colour": "red"}}`, wantStatus: 400},

		// Facts and maintenance.
		{method: "POST", path: "/v1/facts", body: `{"user_id": "u1", "category": "career_goal", "fact": "wants to be a staff engineer",
			"keywords": ["career"], "evidence": {"from": "chat"}}`, wantStatus: 201, capture: map[string]string{"fact": "id"}},
		{method: "POST", path: "/v1/facts", body: `{"category": "general_fact", "fact": "Go is compiled"}`, wantStatus: 201},
		{method: "POST", path: "/v1/facts", body: `{"category": "Gossip!", "fact": "x"}`, wantStatus: 400},
		{method: "GET", path: "/v1/facts/search?user_id=u1&q=engineer&include_global=true", wantStatus: 200},
		{method: "GET", path: "/v1/facts/search?user_id=u1&q=engineer&explain=1", wantStatus: 200},
		{method: "GET", path: "/v1/facts?user_id=u1&keyword=career", wantStatus: 200},
		{method: "POST", path: "/v1/facts/{{fact}}/validate", wantStatus: 200},
		{method: "POST", path: "/v1/facts/{{fact}}/contradict", wantStatus: 200},
		{method: "POST", path: "/v1/facts/nope/validate", wantStatus: 404},

		// Facts that change over time, disputes and review.
		{method: "POST", path: "/v1/facts", body: `{"user_id": "u1", "category": "general_fact", "fact": "lives in Paris", "key": "home_city",
			"valid_at": "2020-01-01T00:00:00Z"}`, wantStatus: 201, capture: map[string]string{"paris": "id"}},
		{method: "POST", path: "/v1/facts", body: `{"user_id": "u1", "category": "general_fact", "fact": "lives in Berlin", "key": "home_city"}`,
			wantStatus: 201, capture: map[string]string{"berlin": "id"}},
		{method: "POST", path: "/v1/facts", body: `{"user_id": "u1", "category": "general_fact", "fact": "x", "valid_at": "yesterday"}`, wantStatus: 400},
		{method: "GET", path: "/v1/facts/{{paris}}", wantStatus: 200},
		{method: "GET", path: "/v1/facts/nope", wantStatus: 404},
		{method: "GET", path: "/v1/facts/{{paris}}/history", wantStatus: 200},
		{method: "GET", path: "/v1/facts/nope/history", wantStatus: 404},
		{method: "GET", path: "/v1/facts/search?user_id=u1&q=lives&include_history=true", wantStatus: 200},
		{method: "GET", path: "/v1/facts/search?user_id=u1&q=lives&as_of=2021-01-01T00:00:00Z", wantStatus: 200},
		{method: "GET", path: "/v1/facts/search?user_id=u1&q=lives&as_of=yesterday", wantStatus: 400},
		{method: "GET", path: "/v1/facts?user_id=u1&include_history=true", wantStatus: 200},
		{method: "GET", path: "/v1/facts?user_id=u1&status=disputed", wantStatus: 200},
		{method: "GET", path: "/v1/facts?user_id=u1&status=weird", wantStatus: 400},
		{method: "GET", path: "/v1/users/u1/review", wantStatus: 200},
		{method: "GET", path: "/v1/users/u1/review?limit=0", wantStatus: 400},
		{method: "POST", path: "/v1/facts/{{fact}}/resolve", body: `{"keep": true}`, wantStatus: 200},
		{method: "POST", path: "/v1/facts/{{fact}}/resolve", body: `{"keep": true}`, wantStatus: 409},
		{method: "POST", path: "/v1/facts/{{fact}}/resolve", body: `{}`, wantStatus: 400},
		{method: "POST", path: "/v1/facts/nope/resolve", body: `{"keep": false}`, wantStatus: 404},
		{method: "POST", path: "/v1/facts/{{berlin}}/invalidate", body: `{"at": "2019-01-01T00:00:00Z"}`, wantStatus: 400},
		{method: "POST", path: "/v1/facts/{{berlin}}/invalidate", wantStatus: 200},
		{method: "POST", path: "/v1/facts/{{berlin}}/invalidate", body: `{}`, wantStatus: 409},
		{method: "POST", path: "/v1/facts/nope/invalidate", wantStatus: 404},
		{method: "POST", path: "/v1/facts/{{berlin}}/contradict", wantStatus: 409},
		{method: "DELETE", path: "/v1/facts/{{paris}}", wantStatus: 200},
		{method: "DELETE", path: "/v1/facts/{{paris}}", wantStatus: 404},
		{method: "POST", path: "/v1/maintenance", body: `{"dry_run": true}`, wantStatus: 200},
		{method: "POST", path: "/v1/maintenance", wantStatus: 200},

		// Preferences and users.
		{method: "POST", path: "/v1/users/u1/preferences", body: `{"type": "tone", "value": "casual", "source": "implicit"}`, wantStatus: 201},
		{method: "POST", path: "/v1/users/u1/preferences", body: `{"type": "tone", "value": "casual", "source": "implicit"}`, wantStatus: 200},
		{method: "POST", path: "/v1/users/u1/preferences", body: `{"type": "format", "value": "bullets", "source": "explicit"}`, wantStatus: 201},
		{method: "POST", path: "/v1/users/u1/preferences", body: `{"type": "length", "value": "short", "source": "decision", "session_id": "s1"}`, wantStatus: 201},
		{method: "GET", path: "/v1/users/u1/preferences", wantStatus: 200},
		{method: "GET", path: "/v1/users/u1/preferences?session_id=s1", wantStatus: 200},
		{method: "POST", path: "/v1/users/u1/preferences/tone/use", wantStatus: 200},
		{method: "POST", path: "/v1/users/u1/preferences/tone/confirm", wantStatus: 200},
		{method: "POST", path: "/v1/users/u1/preferences/format/contradict", body: `{"source": "explicit"}`, wantStatus: 200},
		{method: "POST", path: "/v1/users/u1/preferences/nope/use", wantStatus: 404},
		{method: "POST", path: "/v1/facts/{{fact}}/contradict", wantStatus: 200},
		{method: "GET", path: "/v1/users/u1/review", wantStatus: 200},
		{method: "POST", path: "/v1/users/u1/preferences/format/resolve", body: `{"keep": true}`, wantStatus: 200},
		{method: "POST", path: "/v1/users/u1/preferences/format/resolve", body: `{"keep": true}`, wantStatus: 409},
		{method: "POST", path: "/v1/users/u1/preferences/nope/resolve", body: `{"keep": false}`, wantStatus: 404},
		{method: "GET", path: "/v1/users/u1/memories?include_history=true", wantStatus: 200},
		{method: "GET", path: "/v1/users/u1/memories?as_of=now", wantStatus: 400},
		{method: "GET", path: "/v1/users/u1/context", wantStatus: 200},
		{method: "GET", path: "/v1/users/u2/context", wantStatus: 200},
		{method: "GET", path: "/v1/users/u1/memories", wantStatus: 200},
		{method: "POST", path: "/v1/users/u1/forget", body: `{"query": "casual", "dry_run": true}`, wantStatus: 200},
		{method: "DELETE", path: "/v1/users/u1/preferences/format", wantStatus: 200},
		{method: "DELETE", path: "/v1/users/u1/preferences", wantStatus: 200},

		// The overview.
		{method: "GET", path: "/v1/users", wantStatus: 200},
		{method: "GET", path: "/v1/users?q=U&limit=1&offset=1", wantStatus: 200},
		{method: "GET", path: "/v1/users?limit=0", wantStatus: 400},
		{method: "GET", path: "/v1/stats", wantStatus: 200},
		{method: "GET", path: "/v1/stats?agent_id=ag&user_id=u1&top=3&days=7", wantStatus: 200},
		{method: "GET", path: "/v1/stats?days=400", wantStatus: 400},
		{method: "GET", path: "/v1/memories?agent_id=ag&kind=note,block&kind=passage", wantStatus: 200},
		{method: "GET", path: "/v1/memories?user_id=u1&before=2030-01-01T00:00:00Z", wantStatus: 200},
		{method: "GET", path: "/v1/memories?kind=nope", wantStatus: 400},
		{method: "GET", path: "/v1/whoami", wantStatus: 200},

		// Admin, while authentication is off.
		{method: "GET", path: "/v1/audit?limit=5", wantStatus: 200},
		{method: "GET", path: "/v1/audit?since=yesterday", wantStatus: 400},
		{method: "GET", path: "/v1/export", wantStatus: 200, capture: map[string]string{"export": "_body"}},
		{method: "GET", path: "/v1/keys", wantStatus: 200},

		// Deletes.
		{method: "DELETE", path: "/v1/sessions/s2", wantStatus: 200},
		{method: "GET", path: "/v1/sessions/s2", wantStatus: 404},
		{method: "DELETE", path: "/v1/tasks/t1/working", wantStatus: 200},
		{method: "GET", path: "/v1/tasks/t1/working/plan", wantStatus: 404},
		{method: "DELETE", path: "/v1/episodes/{{episode}}", wantStatus: 200},
		{method: "DELETE", path: "/v1/episodes/{{episode}}", wantStatus: 404},
		{method: "DELETE", path: "/v1/users/u1", wantStatus: 200},
		{method: "DELETE", path: "/v1/agents/ag2", wantStatus: 200},
		{method: "DELETE", path: "/v1/agents/ag", wantStatus: 200},
		{method: "DELETE", path: "/v1/agents/ag", wantStatus: 404},
		{method: "GET", path: "/v1/agents/ag", wantStatus: 404},
		// Imported again: what is there is skipped, what was deleted is back.
		{method: "POST", path: "/v1/import", body: "{{export}}", wantStatus: 201},

		// Keys: the first turns authentication on.
		{method: "POST", path: "/v1/keys", body: `{"role": "admin", "name": "ops"}`, wantStatus: 201,
			capture: map[string]string{"admin": "api_key"}},
		{method: "POST", path: "/v1/keys", body: `{"role": "viewer", "agent_id": "ag"}`, key: "admin", wantStatus: 201,
			capture: map[string]string{"viewer": "api_key", "viewerID": "id"}},
		{method: "GET", path: "/v1/agents", wantStatus: 401},
		{method: "GET", path: "/v1/keys", key: "viewer", wantStatus: 403},
		{method: "GET", path: "/v1/keys", key: "admin", wantStatus: 200},
		{method: "GET", path: "/v1/agents/ag/notes", key: "viewer", wantStatus: 200},
		{method: "GET", path: "/v1/whoami", key: "viewer", wantStatus: 200},
		{method: "GET", path: "/v1/whoami", wantStatus: 401},
		{method: "DELETE", path: "/v1/keys/{{viewerID}}", key: "admin", wantStatus: 200},
		{method: "DELETE", path: "/v1/keys/nope", key: "admin", wantStatus: 404},
		{method: "GET", path: "/v1/openapi.json", wantStatus: 200},
	}
}
