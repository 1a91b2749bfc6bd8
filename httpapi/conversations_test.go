package httpapi_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/loci-memory/loci"
	"github.com/loci-memory/loci/httpapi"
	"github.com/loci-memory/loci/internal/testdb"
	"github.com/loci-memory/loci/llm"
	"github.com/loci-memory/loci/rules"
)

// The tests of conversations in, memories out (POST /v1/memories with
// messages, GET /v1/events/{event_id}): each runs loci's real REST server
// on a real HTTP listener and, where a chat model is configured, a real
// OpenAI-compatible /v1/chat/completions server that the test scripts,
// reached through loci's own chat model client (llm.OpenAI).

// chatServer is an OpenAI-compatible chat server that answers each
// request with the next scripted reply, and keeps what it was asked.
type chatServer struct {
	*httptest.Server
	mu      sync.Mutex
	replies []chatReply
	asked   []string // each request's last message (the conversation, or the memories and facts)
	// respond answers when no reply is scripted (nil: 500).
	respond func(system string) chatReply
}

// chatReply is one scripted answer: the message's content, or a status
// with a raw body, after a delay.
type chatReply struct {
	content string
	status  int
	raw     string
	delay   time.Duration
}

func newChatServer(t testing.TB) *chatServer {
	t.Helper()
	c := &chatServer{}
	c.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost || r.URL.Path != "/v1/chat/completions" {
			http.Error(w, "not found", http.StatusNotFound)
			return
		}
		var req struct {
			Model          string             `json:"model"`
			Messages       []loci.ChatMessage `json:"messages"`
			ResponseFormat map[string]string  `json:"response_format"`
		}
		raw, _ := io.ReadAll(r.Body) // read to its end, the server notices when the client goes
		if err := json.Unmarshal(raw, &req); err != nil || req.Model != "scripted" || len(req.Messages) == 0 ||
			req.ResponseFormat["type"] != "json_object" {
			http.Error(w, "bad request", http.StatusBadRequest)
			return
		}
		c.mu.Lock()
		c.asked = append(c.asked, req.Messages[len(req.Messages)-1].Content)
		var rep chatReply
		if len(c.replies) > 0 {
			rep, c.replies = c.replies[0], c.replies[1:]
		} else if c.respond != nil {
			rep = c.respond(req.Messages[0].Content)
		} else {
			rep = chatReply{status: http.StatusInternalServerError, raw: `{"error": "no reply scripted"}`}
		}
		c.mu.Unlock()
		if rep.delay > 0 {
			select {
			case <-time.After(rep.delay):
			case <-r.Context().Done():
				return
			}
		}
		if rep.status != 0 {
			w.WriteHeader(rep.status)
			io.WriteString(w, rep.raw)
			return
		}
		json.NewEncoder(w).Encode(map[string]any{"id": "c1", "object": "chat.completion", "model": "scripted",
			"choices": []any{map[string]any{"index": 0, "finish_reason": "stop",
				"message": map[string]any{"role": "assistant", "content": rep.content}}}})
	}))
	t.Cleanup(c.Close)
	return c
}

// script queues replies.
func (c *chatServer) script(replies ...chatReply) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.replies = append(c.replies, replies...)
}

// reset forgets the replies not given yet.
func (c *chatServer) reset() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.replies, c.asked = nil, nil
}

// reply is a scripted answer with content.
func reply(content string) chatReply { return chatReply{content: content} }

// calls returns what the model was asked since the last call, and forgets it.
func (c *chatServer) calls() []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	out := c.asked
	c.asked = nil
	return out
}

// chatModel is loci's client of the chat server at url.
func chatModel(t testing.TB, url string, timeout time.Duration) loci.ChatModel {
	t.Helper()
	m, err := llm.NewOpenAI(llm.Config{URL: url + "/v1", Model: "scripted", Timeout: timeout})
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// convAPI is loci's REST server on a real listener.
type convAPI struct {
	url string
	svc *rules.Service
}

func newConvAPI(t *testing.T, store loci.Store, opts ...rules.Option) *convAPI {
	t.Helper()
	svc := rules.New(store, opts...)
	srv := httptest.NewServer(httpapi.NewServer(svc, slog.New(slog.NewTextHandler(io.Discard, nil))))
	t.Cleanup(srv.Close)
	return &convAPI{url: srv.URL, svc: svc}
}

// call sends a request and decodes the answer's JSON object.
func (a *convAPI) call(t testing.TB, method, path, body string) (int, map[string]any, http.Header) {
	t.Helper()
	req, err := http.NewRequest(method, a.url+path, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", method, path, err)
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(resp.Body)
	var out map[string]any
	if err := json.Unmarshal(raw, &out); err != nil {
		t.Fatalf("%s %s: %d, not a JSON object: %s", method, path, resp.StatusCode, raw)
	}
	return resp.StatusCode, out, resp.Header
}

// memories returns the contents of the current memories of user u (every
// kind), sorted as listed.
func (a *convAPI) memories(t testing.TB, u string) []string {
	t.Helper()
	st, out, _ := a.call(t, "GET", "/v1/memories?user_id="+u, "")
	if st != 200 {
		t.Fatalf("list memories of %s: %d %v", u, st, out)
	}
	var got []string
	for _, m := range out["memories"].([]any) {
		mm := m.(map[string]any)
		got = append(got, fmt.Sprintf("%s:%s", mm["kind"], mm["content"]))
	}
	return got
}

// results returns the events of an add's answer as "EVENT content".
func results(t testing.TB, out map[string]any) []string {
	t.Helper()
	var got []string
	list, _ := out["results"].([]any)
	for _, r := range list {
		m := r.(map[string]any)
		got = append(got, fmt.Sprintf("%s %s", m["event"], m["content"]))
	}
	return got
}

func sameList(got, want []string) bool {
	return fmt.Sprint(got) == fmt.Sprint(want)
}

// TestMessagesWithoutModel: without a chat model, each user message
// becomes one memory about the user, its role kept in the record; system,
// assistant and tool messages become none, and say why; with a session,
// every message is appended to it, in order; the same messages again
// change nothing.
func TestMessagesWithoutModel(t *testing.T) {
	testdb.Each(t, func(t *testing.T, open func(testing.TB) loci.Store) {
		a := newConvAPI(t, open(t))
		st, out, _ := a.call(t, "POST", "/v1/memories", `{"messages": [
			{"role": "system", "content": "You are a helpful cooking assistant"},
			{"role": "user", "content": "Hi, I'm Alex. I'm a vegetarian and I'm allergic to nuts.", "name": "alex"},
			{"role": "assistant", "content": "Hello Alex! I'll remember that you're vegetarian and avoid nuts."},
			{"role": "tool", "content": "{\"recipes\": 3}"},
			{"role": "user", "content": "I love hiking"}],
			"user_id": "alex", "session_id": "dinner", "metadata": {"topic": "food"}}`)
		if st != 201 {
			t.Fatalf("add: %d %v", st, out)
		}
		want := []string{"ADD Hi, I'm Alex. I'm a vegetarian and I'm allergic to nuts.", "ADD I love hiking"}
		if got := results(t, out); !sameList(got, want) {
			t.Errorf("results = %v, want %v", got, want)
		}
		res := out["results"].([]any)
		for i, idx := range []float64{1, 4} {
			r := res[i].(map[string]any)
			if r["index"] != idx || r["role"] != "user" || r["kind"] != "fact" || r["id"] == "" {
				t.Errorf("results[%d] = %v, want index %v, role user, a fact", i, r, idx)
			}
		}
		skipped := out["skipped"].([]any)
		if len(skipped) != 3 {
			t.Fatalf("skipped = %v, want the system, assistant and tool messages", skipped)
		}
		for i, want := range []struct {
			index float64
			role  string
		}{{0, "system"}, {2, "assistant"}, {3, "tool"}} {
			s := skipped[i].(map[string]any)
			if s["index"] != want.index || s["role"] != want.role || !strings.Contains(s["reason"].(string), "not a memory about the user") {
				t.Errorf("skipped[%d] = %v, want index %v role %s with a reason", i, s, want.index, want.role)
			}
		}
		if inf := out["inference"].(map[string]any); inf["mode"] != "rule" {
			t.Errorf("inference = %v, want mode rule", inf)
		}
		if sess := out["session"].(map[string]any); sess["session_id"] != "dinner" || sess["appended"] != float64(5) || sess["created"] != true {
			t.Errorf("session = %v, want 5 messages appended to a new session dinner", sess)
		}

		// The memory is a fact about alex, in the session, its role kept.
		id := res[0].(map[string]any)["id"].(string)
		st, m, _ := a.call(t, "GET", "/v1/memories/"+id, "")
		data, _ := m["data"].(map[string]any)
		if st != 200 || m["kind"] != "fact" || m["user_id"] != "alex" || m["session_id"] != "dinner" || data["role"] != "user" {
			t.Errorf("GET the memory: %d %v, want alex's fact with data.role user", st, m)
		}
		// The session holds every message, in order, roles kept.
		st, s, _ := a.call(t, "GET", "/v1/sessions/dinner", "")
		msgs, _ := s["messages"].([]any)
		if st != 200 || len(msgs) != 5 {
			t.Fatalf("GET the session: %d %v, want 5 messages", st, s)
		}
		for i, role := range []string{"system", "user", "assistant", "tool", "user"} {
			if r := msgs[i].(map[string]any)["role"]; r != role {
				t.Errorf("message %d has role %v, want %s", i, r, role)
			}
		}
		// Search finds the user's memory, not the assistant's reply as a fact.
		st, sr, _ := a.call(t, "POST", "/v1/search", `{"query": "vegetarian nuts", "user_id": "alex", "kinds": ["fact"]}`)
		if hits := sr["results"].([]any); st != 200 || len(hits) != 1 || hits[0].(map[string]any)["id"] != id {
			t.Errorf("search of facts: %d %v, want only the user's memory", st, sr)
		}

		// Without a session, the same user message again: NOOP, 200.
		st, out, _ = a.call(t, "POST", "/v1/memories", `{"messages": [{"role": "user", "content": "i love   HIKING"}], "user_id": "alex", "session_id": "dinner", "infer": false}`)
		if st != 201 || !sameList(results(t, out), []string{"NOOP i love   HIKING"}) {
			t.Errorf("repeat with a session: %d %v, want 201 (the session grew) with NOOP", st, out)
		}
		st, out, _ = a.call(t, "POST", "/v1/memories", `{"messages": [{"role": "user", "content": "I love hiking"}], "user_id": "alex", "session_id": "dinner"}`)
		if st != 201 {
			t.Errorf("repeat: %d %v", st, out)
		}
		st, out, _ = a.call(t, "POST", "/v1/memories", `{"messages": [{"role": "assistant", "content": "Enjoy!"}], "user_id": "bo"}`)
		if st != 200 || len(results(t, out)) != 0 || len(out["skipped"].([]any)) != 1 {
			t.Errorf("only an assistant message, no session: %d %v, want 200 with nothing written", st, out)
		}
		if got := a.memories(t, "bo"); len(got) != 0 {
			t.Errorf("bo's memories = %v, want none", got)
		}
	})
}

// TestMessagesToAUsersSession: messages added to an existing session
// without a user_id are about the session's user, at once or queued: each
// user message is that user's memory (no other user finds it as global
// knowledge), and a queued add names the user.
func TestMessagesToAUsersSession(t *testing.T) {
	testdb.Each(t, func(t *testing.T, open func(testing.TB) loci.Store) {
		a := newConvAPI(t, open(t))
		if st, out, _ := a.call(t, "PUT", "/v1/sessions/s1", `{"user_id": "v"}`); st != 201 {
			t.Fatalf("put session: %d %v", st, out)
		}
		st, out, _ := a.call(t, "POST", "/v1/memories", `{"messages": [{"role": "user", "content": "I have diabetes"}], "session_id": "s1"}`)
		if st != 201 || !sameList(results(t, out), []string{"ADD I have diabetes"}) {
			t.Fatalf("add: %d %v", st, out)
		}
		st, out, _ = a.call(t, "POST", "/v1/memories", `{"messages": [{"role": "user", "content": "I take insulin at night"}], "session_id": "s1", "async": true}`)
		if st != 202 {
			t.Fatalf("queued add: %d %v", st, out)
		}
		id := out["event_id"].(string)
		defer a.svc.StartEvents(context.Background())()
		if ev := a.waitEvent(t, id); ev["status"] != loci.EventSucceeded {
			t.Fatalf("queued add: %v", ev)
		}
		var facts []string
		for _, m := range a.memories(t, "v") {
			if strings.HasPrefix(m, "fact:") {
				facts = append(facts, m)
			}
		}
		if !sameList(facts, []string{"fact:I take insulin at night", "fact:I have diabetes"}) {
			t.Errorf("v's facts: %q, want both messages' memories", facts)
		}
		for _, q := range []string{"diabetes", "insulin"} {
			st, out, _ = a.call(t, "GET", "/v1/facts/search?user_id=w&include_global=true&q="+q, "")
			if res, _ := out["results"].([]any); st != 200 || len(res) != 0 {
				t.Errorf("another user's facts with the global ones, %q: %d %v, want none", q, st, out)
			}
		}
	})
}

// TestMessagesErrors: bad input is 400 (a session of another user 409)
// and changes nothing: no memory, no session.
func TestMessagesErrors(t *testing.T) {
	testdb.Each(t, func(t *testing.T, open func(testing.TB) loci.Store) {
		a := newConvAPI(t, open(t))
		if st, out, _ := a.call(t, "PUT", "/v1/sessions/theirs", `{"user_id": "other"}`); st != 201 {
			t.Fatalf("put session: %d %v", st, out)
		}
		ok := `[{"role": "user", "content": "I love hiking"}]`
		for _, tc := range []struct {
			name, body string
			status     int
			says       string
		}{
			{"ErrUnknownRole", `{"messages": [{"role": "robot", "content": "beep"}], "user_id": "u"}`, 400, "messages[0]: role must be"},
			{"ErrNoRole", `{"messages": [{"content": "x"}], "user_id": "u"}`, 400, "role is required"},
			{"ErrEmptyContent", `{"messages": [{"role": "user", "content": "I love hiking"}, {"role": "user", "content": "  "}], "user_id": "u"}`, 400, "messages[1]: content must not be empty"},
			{"ErrContentNotText", `{"messages": [{"role": "user", "content": [{"type": "image"}]}], "user_id": "u"}`, 400, "content must be text"},
			{"ErrBoth", `{"content": "x", "messages": ` + ok + `, "user_id": "u"}`, 400, "not both"},
			{"ErrNeither", `{"user_id": "u"}`, 400, "content is required (one memory), or messages"},
			{"ErrEmpty", `{"messages": [], "user_id": "u"}`, 400, "at least one message"},
			{"ErrNull", `{"messages": null, "user_id": "u"}`, 400, "messages must be an array"},
			{"ErrNotArray", `{"messages": "I love hiking", "user_id": "u"}`, 400, "messages must be an array"},
			{"ErrUnknownField", `{"messages": [{"role": "user", "content": "x", "mood": "happy"}], "user_id": "u"}`, 400, "messages[0]"},
			{"ErrInfer", `{"messages": ` + ok + `, "user_id": "u", "infer": "maybe"}`, 400, "infer must be"},
			{"ErrAsync", `{"messages": ` + ok + `, "user_id": "u", "async": "yes"}`, 400, "async must be"},
			{"ErrInferWithContent", `{"content": "x", "user_id": "u", "infer": false}`, 400, "taken with messages"},
			{"ErrKind", `{"messages": ` + ok + `, "user_id": "u", "kind": "note"}`, 400, "kind is not taken with messages"},
			{"ErrKey", `{"messages": ` + ok + `, "user_id": "u", "key": "k"}`, 400, "key is not taken"},
			{"ErrName", `{"messages": [{"role": "user", "content": "x", "name": "` + strings.Repeat("n", 300) + `"}], "user_id": "u"}`, 400, "name must be at most"},
			{"ErrMetadata", `{"messages": ` + ok + `, "user_id": "u", "metadata": [1]}`, 400, "metadata"},
			{"ErrPastExpiry", `{"messages": ` + ok + `, "user_id": "u", "expires_at": "2001-01-01T00:00:00Z"}`, 400, "future"},
			{"ErrNewSessionNoUser", `{"messages": ` + ok + `, "session_id": "new"}`, 400, "name user_id"},
			{"ErrNewSessionNoUserAsync", `{"messages": ` + ok + `, "session_id": "new", "async": true}`, 400, "name user_id"},
			{"ErrOthersSession", `{"messages": ` + ok + `, "user_id": "u", "session_id": "theirs"}`, 409, "another user"},
			{"ErrOthersSessionAsync", `{"messages": ` + ok + `, "user_id": "u", "session_id": "theirs", "async": true}`, 409, "another user"},
			{"ErrTooMany", `{"messages": [` + strings.TrimSuffix(strings.Repeat(`{"role": "user", "content": "x"},`, loci.MaxConversationMessages+1), ",") + `], "user_id": "u"}`, 400, "at most 1000"},
		} {
			t.Run(tc.name, func(t *testing.T) {
				st, out, _ := a.call(t, "POST", "/v1/memories", tc.body)
				msg, _ := out["error"].(string)
				if st != tc.status || !strings.Contains(msg, tc.says) {
					t.Errorf("%d %v, want %d saying %q", st, out, tc.status, tc.says)
				}
				if got := a.memories(t, "u"); len(got) != 0 {
					t.Errorf("memories of u after a refused add: %v", got)
				}
				if st, _, _ := a.call(t, "GET", "/v1/sessions/new", ""); st != 404 {
					t.Errorf("a refused add started session new: %d", st)
				}
			})
		}
		if st, s, _ := a.call(t, "GET", "/v1/sessions/theirs", ""); st != 200 || len(s["messages"].([]any)) != 0 {
			t.Errorf("the other user's session changed: %d %v", st, s)
		}
		if st, out, _ := a.call(t, "GET", "/v1/events/nope", ""); st != 404 {
			t.Errorf("GET an unknown event: %d %v, want 404", st, out)
		}
	})
}
