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
	"sync/atomic"
	"testing"
	"time"

	"github.com/loci-memory/loci"
	"github.com/loci-memory/loci/httpapi"
	"github.com/loci-memory/loci/internal/testdb"
	"github.com/loci-memory/loci/rules"
)

// TestMessagesWithModel: with a chat model, the model's proposals are
// decided against the scope's most similar current memories, shown to it
// under small numbers: ADD (nothing similar held: no second call), UPDATE
// of a named memory with its history kept ("I hate hiking now" updates
// "Loves hiking"), NOOP, DELETE; memories about the agent go to the
// agent's scope; infer false asks no model.
func TestMessagesWithModel(t *testing.T) {
	testdb.Each(t, func(t *testing.T, open func(testing.TB) loci.Store) {
		chat := newChatServer(t)
		a := newConvAPI(t, open(t), rules.WithChatModel(chatModel(t, chat.URL, 5*time.Second), 5*time.Second))

		// ADD: the scope holds nothing similar, so the model is asked once.
		chat.script(reply(`{"memories": [{"text": "Loves hiking", "about": "user"}, {"text": "Is vegetarian"}]}`))
		st, out, _ := a.call(t, "POST", "/v1/memories", `{"messages": [
			{"role": "system", "content": "You are helpful"},
			{"role": "user", "content": "I love hiking, and I'm vegetarian"},
			{"role": "assistant", "content": "Great! Any favourite trails?"}], "user_id": "alex"}`)
		if st != 201 || !sameList(results(t, out), []string{"ADD Loves hiking", "ADD Is vegetarian"}) {
			t.Fatalf("add: %d %v", st, out)
		}
		if inf := out["inference"].(map[string]any); inf["mode"] != "model" || inf["model"] != "scripted" {
			t.Errorf("inference = %v, want model scripted", inf)
		}
		asked := chat.calls()
		if len(asked) != 1 || !strings.Contains(asked[0], "user: I love hiking, and I'm vegetarian") ||
			!strings.Contains(asked[0], "assistant: Great!") || !strings.Contains(asked[0], "system: You are helpful") {
			t.Errorf("the model was asked %q, want the conversation once", asked)
		}
		hiking := out["results"].([]any)[0].(map[string]any)["id"].(string)

		// UPDATE: "Hates hiking" is compared with "Loves hiking", shown as
		// id "0"; the model updates it; its history keeps the old text.
		chat.script(reply(`{"memories": [{"text": "Hates hiking"}]}`),
			reply("```json\n"+`{"memory": [{"event": "UPDATE", "id": "0", "text": "Hates hiking"}]}`+"\n```"))
		st, out, _ = a.call(t, "POST", "/v1/memories", `{"messages": [{"role": "user", "content": "I hate hiking now"}], "user_id": "alex"}`)
		if st != 201 || !sameList(results(t, out), []string{"UPDATE Hates hiking"}) {
			t.Fatalf("update: %d %v", st, out)
		}
		r := out["results"].([]any)[0].(map[string]any)
		if r["id"] != hiking || r["previous"] != "Loves hiking" {
			t.Errorf("the update = %v, want memory %s, previously Loves hiking", r, hiking)
		}
		asked = chat.calls()
		if len(asked) != 2 {
			t.Fatalf("the model was asked %d times, want 2 (extract, decide)", len(asked))
		}
		var shown struct {
			Memory []struct{ ID, Text string } `json:"memory"`
			New    []struct{ Text string }     `json:"new_facts"`
		}
		if err := json.Unmarshal([]byte(asked[1]), &shown); err != nil || len(shown.New) != 1 || shown.New[0].Text != "Hates hiking" {
			t.Fatalf("the decision was asked %q", asked[1])
		}
		found := false
		for _, m := range shown.Memory {
			found = found || (m.ID == "0" && m.Text == "Loves hiking")
			if len(m.ID) > 3 {
				t.Errorf("the model was shown a real id %q, want small numbers", m.ID)
			}
		}
		if !found {
			t.Errorf("the model was shown %v, want Loves hiking as 0", shown.Memory)
		}
		st, h, _ := a.call(t, "GET", "/v1/memories/"+hiking+"/history", "")
		vs, _ := h["versions"].([]any)
		if st != 200 || len(vs) != 2 || vs[0].(map[string]any)["content"] != "Hates hiking" || vs[1].(map[string]any)["content"] != "Loves hiking" {
			t.Errorf("history: %d %v, want Hates hiking then Loves hiking", st, h)
		}

		// NOOP: the model says the memory held already says it.
		chat.script(reply(`{"memories": [{"text": "Hates hiking"}]}`), reply(`{"memory": [{"event": "NONE", "id": "0"}]}`))
		st, out, _ = a.call(t, "POST", "/v1/memories", `{"messages": [{"role": "user", "content": "Did I say I hate hiking?"}], "user_id": "alex"}`)
		if st != 200 || !sameList(results(t, out), []string{"NOOP Hates hiking"}) {
			t.Errorf("noop: %d %v", st, out)
		}
		chat.calls()

		// DELETE: no longer true, nothing to keep.
		chat.script(reply(`{"memories": [{"text": "Has no view on hiking any more"}]}`), reply(`{"memory": [{"event": "DELETE", "id": "0"}]}`))
		st, out, _ = a.call(t, "POST", "/v1/memories", `{"messages": [{"role": "user", "content": "Forget what I said about hiking"}], "user_id": "alex"}`)
		if st != 201 || !sameList(results(t, out), []string{"DELETE Hates hiking"}) {
			t.Errorf("delete: %d %v", st, out)
		}
		if st, _, _ := a.call(t, "GET", "/v1/memories/"+hiking, ""); st != 404 {
			t.Errorf("GET the deleted memory: %d, want 404", st)
		}
		chat.calls()
		if got := a.memories(t, "alex"); !sameList(got, []string{"fact:Is vegetarian"}) {
			t.Errorf("alex's memories = %v, want [fact:Is vegetarian]", got)
		}

		// About the agent: in the agent's scope, no user.
		chat.script(reply(`{"memories": [{"text": "Is called Chef Bot", "about": "agent"}, {"text": "Likes spicy food", "about": "user"}]}`))
		st, out, _ = a.call(t, "POST", "/v1/memories", `{"messages": [{"role": "user", "content": "I like spicy food"}, {"role": "assistant", "content": "I'm Chef Bot"}], "user_id": "sam", "agent_id": "chef"}`)
		if st != 201 || len(out["results"].([]any)) != 2 {
			t.Fatalf("agent: %d %v", st, out)
		}
		for _, x := range out["results"].([]any) {
			r := x.(map[string]any)
			st, m, _ := a.call(t, "GET", "/v1/memories/"+r["id"].(string), "")
			wantUser := map[string]any{"agent": nil, "user": "sam"}[r["about"].(string)]
			if st != 200 || m["agent_id"] != "chef" || m["user_id"] != wantUser {
				t.Errorf("%v stored as %v, want agent chef and user %v", r, m, wantUser)
			}
		}
		if asked := chat.calls(); len(asked) != 1 {
			t.Errorf("asked %d times", len(asked))
		}

		// infer false: the rule, and the model is not asked.
		st, out, _ = a.call(t, "POST", "/v1/memories", `{"messages": [{"role": "user", "content": "I have a cat"}, {"role": "assistant", "content": "Nice"}], "user_id": "alex", "infer": false}`)
		if st != 201 || !sameList(results(t, out), []string{"ADD I have a cat"}) || out["inference"].(map[string]any)["mode"] != "rule" {
			t.Errorf("infer false: %d %v", st, out)
		}
		if asked := chat.calls(); len(asked) != 0 {
			t.Errorf("infer false asked the model %d times", len(asked))
		}
		// The model finds nothing worth remembering: nothing written, 200.
		chat.script(reply(`{"memories": []}`))
		if st, out, _ := a.call(t, "POST", "/v1/memories", `{"messages": [{"role": "user", "content": "ok thanks"}], "user_id": "alex"}`); st != 200 || len(out["results"].([]any)) != 0 {
			t.Errorf("nothing to remember: %d %v", st, out)
		}
	})
}

// TestMessagesModelFails: a chat model that is down, slower than the
// timeout, answers an error, malformed JSON, or names a memory it was not
// shown is 503 with Retry-After and nothing written (no memory, no
// session); with "infer": "fallback" the same add stores by the rule and
// says so.
func TestMessagesModelFails(t *testing.T) {
	testdb.Each(t, func(t *testing.T, open func(testing.TB) loci.Store) {
		chat := newChatServer(t)
		down := newChatServer(t)
		down.Close() // nothing listens there any more
		// Long enough for a loaded machine; the slow replies wait longer.
		timeout := 1500 * time.Millisecond
		up := newConvAPI(t, open(t), rules.WithChatModel(chatModel(t, chat.URL, time.Minute), timeout))
		off := newConvAPI(t, open(t), rules.WithChatModel(chatModel(t, down.URL, time.Minute), timeout))
		// A memory held, for the decision to name.
		for _, a := range []*convAPI{up, off} {
			if st, out, _ := a.call(t, "POST", "/v1/memories", `{"messages": [{"role": "user", "content": "I love hiking"}], "user_id": "alex", "infer": false}`); st != 201 {
				t.Fatalf("seed: %d %v", st, out)
			}
		}
		body := `{"messages": [{"role": "user", "content": "I hate hiking now"}, {"role": "assistant", "content": "Noted"}], "user_id": "alex", "session_id": "s1"%s}`
		for _, tc := range []struct {
			name    string
			api     *convAPI
			replies []chatReply
			says    string
		}{
			{"Down", off, nil, "cannot be reached"},
			{"Slow", up, []chatReply{{content: `{"memories": []}`, delay: 3 * timeout}}, "did not answer within"},
			{"SlowDecision", up, []chatReply{reply(`{"memories": [{"text": "Hates hiking"}]}`), {content: `{"memory": []}`, delay: 3 * timeout}}, "did not answer within"},
			{"Status500", up, []chatReply{{status: 500, raw: `{"error": "overloaded"}`}}, "status 500"},
			{"NotCompletion", up, []chatReply{{status: 200, raw: `<html>hello</html>`}}, "not a chat completion"},
			{"MalformedJSON", up, []chatReply{reply(`{"memories": [{"text": "Hates hiking"`)}, "unusable"},
			{"NotJSON", up, []chatReply{reply(`I think the user hates hiking.`)}, "unusable"},
			{"NoList", up, []chatReply{reply(`{"facts_about_user": "hates hiking"}`)}, "unusable"},
			{"UnknownID", up, []chatReply{reply(`{"memories": [{"text": "Hates hiking"}]}`), reply(`{"memory": [{"event": "UPDATE", "id": "7", "text": "Hates hiking"}]}`)}, "not one of the memories shown"},
			{"RealIDInvented", up, []chatReply{reply(`{"memories": [{"text": "Hates hiking"}]}`), reply(`{"memory": [{"event": "DELETE", "id": "01a21f2a-a508-736e-9f99-1c6c24d7906a"}]}`)}, "not one of the memories shown"},
			{"UnknownEvent", up, []chatReply{reply(`{"memories": [{"text": "Hates hiking"}]}`), reply(`{"memory": [{"event": "MERGE", "id": "0"}]}`)}, "not ADD, UPDATE, DELETE or NONE"},
			{"UpdateWithoutText", up, []chatReply{reply(`{"memories": [{"text": "Hates hiking"}]}`), reply(`{"memory": [{"event": "UPDATE", "id": "0"}]}`)}, "without text"},
		} {
			t.Run(tc.name, func(t *testing.T) {
				chat.reset()
				chat.script(tc.replies...)
				st, out, h := tc.api.call(t, "POST", "/v1/memories", strings.Replace(body, "%s", "", 1))
				msg, _ := out["error"].(string)
				if st != 503 || out["code"] != "unavailable" || h.Get("Retry-After") == "" || !strings.Contains(msg, tc.says) || !strings.Contains(msg, "nothing was written") {
					t.Errorf("%d %v (Retry-After %q), want 503 unavailable with Retry-After saying %q", st, out, h.Get("Retry-After"), tc.says)
				}
				if got := tc.api.memories(t, "alex"); !sameList(got, []string{"fact:I love hiking"}) {
					t.Errorf("alex's memories after a failed add = %v, want only the seed", got)
				}
				if st, _, _ := tc.api.call(t, "GET", "/v1/sessions/s1", ""); st != 404 {
					t.Errorf("a failed add started the session: %d", st)
				}
				chat.calls()

				// The same with fallback: stored by the rule, and said.
				chat.reset()
				chat.script(tc.replies...)
				st, out, _ = tc.api.call(t, "POST", "/v1/memories", strings.Replace(body, "%s", `, "infer": "fallback"`, 1))
				inf, _ := out["inference"].(map[string]any)
				if st != 201 || !sameList(results(t, out), []string{"ADD I hate hiking now"}) || inf["mode"] != "fallback" ||
					!strings.Contains(inf["reason"].(string), tc.says) {
					t.Errorf("fallback: %d %v, want the user's message stored by the rule, inference fallback saying %q", st, out, tc.says)
				}
				if st, s, _ := tc.api.call(t, "GET", "/v1/sessions/s1", ""); st != 200 || len(s["messages"].([]any)) != 2 {
					t.Errorf("fallback's session: %d %v, want both messages", st, s)
				}
				chat.calls()
				// Undo, for the next case.
				id := out["results"].([]any)[0].(map[string]any)["id"].(string)
				tc.api.call(t, "DELETE", "/v1/memories/"+id, "")
				tc.api.call(t, "DELETE", "/v1/sessions/s1", "")
			})
		}
		// The server kept working: a model that answers again is used.
		chat.reset()
		chat.script(reply(`{"memories": [{"text": "Hates hiking"}]}`), reply(`{"memory": [{"event": "UPDATE", "id": "0", "text": "Hates hiking"}]}`))
		if st, out, _ := up.call(t, "POST", "/v1/memories", `{"messages": [{"role": "user", "content": "I hate hiking now"}], "user_id": "alex"}`); st != 201 ||
			!sameList(results(t, out), []string{"UPDATE Hates hiking"}) {
			t.Errorf("after the failures: %d %v", st, out)
		}
		_ = http.StatusOK
	})
}

// BenchmarkHTTPAddMessages measures POST /v1/memories with messages (a user
// message and the assistant's reply), one client, on a SQLite file:
// Rule without a chat model; Model with a chat model on a local HTTP server
// that answers at once (the extraction, then the decision against the
// memory held: an UPDATE, so the scope keeps one memory). model-ms/op is
// the time loci's chat client waited for the model's answers, other-ms/op
// the rest of the add (the search for similar memories, the writes, the
// add's own round trip):
//
//	go test -run '^$' -bench AddMessages -benchtime 300x ./httpapi/
func BenchmarkHTTPAddMessages(b *testing.B) {
	body := `{"messages": [{"role": "user", "content": "I love hiking in the Alps"}, {"role": "assistant", "content": "Lovely!"}], "user_id": "alex"%s}`
	b.Run("Rule", func(b *testing.B) {
		srv := httptest.NewServer(httpapi.NewServer(rules.New(testdb.OpenSQLite(b)), slog.New(slog.NewTextHandler(io.Discard, nil))))
		b.Cleanup(srv.Close)
		for i := 0; b.Loop(); i++ {
			each := strings.Replace(body, "in the Alps", fmt.Sprintf("in the Alps, day %d", i), 1)
			benchDo(b, srv.Client(), "POST", srv.URL+"/v1/memories", fmt.Sprintf(each, ""), 201)
		}
	})
	b.Run("Model", func(b *testing.B) {
		chat := newChatServer(b)
		n := 0
		chat.respond = func(system string) chatReply {
			if strings.Contains(system, "keep a memory up to date") {
				n++
				return reply(fmt.Sprintf(`{"memory": [{"event": "UPDATE", "id": "0", "text": "Loves hiking in the Alps, time %d"}]}`, n))
			}
			return reply(`{"memories": [{"text": "Loves hiking in the Alps"}]}`)
		}
		waited := &atomic.Int64{}
		model := timedModel{ChatModel: chatModel(b, chat.URL, time.Minute), waited: waited}
		srv := httptest.NewServer(httpapi.NewServer(rules.New(testdb.OpenSQLite(b), rules.WithChatModel(model, time.Minute)),
			slog.New(slog.NewTextHandler(io.Discard, nil))))
		b.Cleanup(srv.Close)
		benchDo(b, srv.Client(), "POST", srv.URL+"/v1/memories", fmt.Sprintf(body, `, "infer": false`), 201) // the memory held
		waited.Store(0)
		for b.Loop() {
			benchDo(b, srv.Client(), "POST", srv.URL+"/v1/memories", fmt.Sprintf(body, ""), 201)
		}
		total := float64(b.Elapsed().Nanoseconds()) / float64(b.N) / 1e6
		asked := float64(waited.Load()) / float64(b.N) / 1e6
		b.ReportMetric(asked, "model-ms/op")
		b.ReportMetric(total-asked, "other-ms/op")
	})
}

// timedModel is loci's chat model client, timed: it adds the time each
// answer took to waited.
type timedModel struct {
	loci.ChatModel
	waited *atomic.Int64
}

func (m timedModel) Chat(ctx context.Context, msgs []loci.ChatMessage) (string, error) {
	start := time.Now()
	defer func() { m.waited.Add(int64(time.Since(start))) }()
	return m.ChatModel.Chat(ctx, msgs)
}

// TestMessagesAboutAgentForgotten: what a chat model writes about the
// agent from a user's conversation is a fact in the agent's scope, with
// the user's session and no user. A forget with include_agents reaches it
// (every record of an agent and no user, not only notes, blocks and
// passages), and deleting the user deletes it with the rest of the user's
// sessions; an agent's memory from another user's session stays.
func TestMessagesAboutAgentForgotten(t *testing.T) {
	testdb.Each(t, func(t *testing.T, open func(testing.TB) loci.Store) {
		chat := newChatServer(t)
		a := newConvAPI(t, open(t), rules.WithChatModel(chatModel(t, chat.URL, 5*time.Second), 5*time.Second))
		add := func(user, agent, session string) string {
			t.Helper()
			chat.script(reply(`{"memories": [{"text": "Promised to call 555-0100", "about": "agent"}]}`))
			st, out, _ := a.call(t, "POST", "/v1/memories", `{"messages": [{"role": "user", "content": "My phone number is 555-0100, call me"}, `+
				`{"role": "assistant", "content": "I will call you"}], "user_id": "`+user+`", "agent_id": "`+agent+`", "session_id": "`+session+`"}`)
			if st != 201 || !sameList(results(t, out), []string{"ADD Promised to call 555-0100"}) {
				t.Fatalf("add: %d %v", st, out)
			}
			id := out["results"].([]any)[0].(map[string]any)["id"].(string)
			st, m, _ := a.call(t, "GET", "/v1/memories/"+id, "")
			if st != 200 || m["kind"] != "fact" || m["user_id"] != nil || m["agent_id"] != agent || m["session_id"] != session {
				t.Fatalf("the memory about the agent: %d %v, want a fact of agent %s, session %s and no user", st, m, agent, session)
			}
			return id
		}
		forgotten := add("alex", "chef", "s1")
		st, out, _ := a.call(t, "POST", "/v1/users/alex/forget", `{"query": "555-0100", "include_agents": true}`)
		found := false
		for _, d := range out["deleted"].([]any) {
			found = found || d.(map[string]any)["id"] == forgotten
		}
		if st != 200 || !found {
			t.Errorf("forget with include_agents: %d %v, want it to name %s", st, out, forgotten)
		}
		if st, m, _ := a.call(t, "GET", "/v1/memories/"+forgotten, ""); st != 404 {
			t.Errorf("the agent's fact after the forget: %d %v, want 404", st, m)
		}

		deleted, kept := add("sam", "chef2", "s2"), add("kim", "chef3", "s3")
		if st, out, _ := a.call(t, "DELETE", "/v1/users/sam", ""); st != 200 {
			t.Fatalf("delete user: %d %v", st, out)
		}
		if st, m, _ := a.call(t, "GET", "/v1/memories/"+deleted, ""); st != 404 {
			t.Errorf("the agent's fact from the deleted user's session: %d %v, want 404", st, m)
		}
		if st, m, _ := a.call(t, "GET", "/v1/memories/"+kept, ""); st != 200 {
			t.Errorf("the agent's fact from another user's session: %d %v, want it kept", st, m)
		}
	})
}

// TestMessagesAsyncForgottenPrevious: a finished add's event also holds
// what a chat model's UPDATE or DELETE replaced (previous): a forget by
// query of those words deletes the event, although the memory updated
// stays (only its matching version goes) and the one deleted is gone
// already.
func TestMessagesAsyncForgottenPrevious(t *testing.T) {
	testdb.Each(t, func(t *testing.T, open func(testing.TB) loci.Store) {
		chat := newChatServer(t)
		a := newConvAPI(t, open(t), rules.WithChatModel(chatModel(t, chat.URL, 5*time.Second), 5*time.Second),
			rules.WithEventQueue(rules.EventParams{Poll: 10 * time.Millisecond}))
		defer a.svc.StartEvents(context.Background())()
		for _, tt := range []struct{ name, decision, want string }{
			{"Update", `{"memory": [{"event": "UPDATE", "id": "0", "text": "Changed phone number"}]}`, "UPDATE Changed phone number"},
			{"Delete", `{"memory": [{"event": "DELETE", "id": "0"}]}`, "DELETE Phone is 555-0100"},
		} {
			t.Run(tt.name, func(t *testing.T) {
				user := "alex-" + strings.ToLower(tt.name)
				chat.script(reply(`{"memories": [{"text": "Phone is 555-0100"}]}`))
				if st, out, _ := a.call(t, "POST", "/v1/memories", `{"messages": [{"role": "user", "content": "Call me at 555-0100"}], "user_id": "`+user+`"}`); st != 201 {
					t.Fatalf("add: %d %v", st, out)
				}
				chat.script(reply(`{"memories": [{"text": "Changed phone number"}]}`), reply(tt.decision))
				_, out, _ := a.call(t, "POST", "/v1/memories", `{"messages": [{"role": "user", "content": "I have a new phone"}], "user_id": "`+user+`", "async": true}`)
				id, _ := out["event_id"].(string)
				ev := a.waitEvent(t, id)
				if ev["status"] != "SUCCEEDED" || !sameList(results(t, ev), []string{tt.want}) {
					t.Fatalf("the event: %v, want %s", ev, tt.want)
				}
				if st, holds := a.eventHolds(t, id, "555-0100"); st != 200 || !holds {
					t.Fatalf("the event before the forget: %d, holds the number %v", st, holds)
				}
				if st, out, _ := a.call(t, "POST", "/v1/users/"+user+"/forget", `{"query": "555-0100"}`); st != 200 {
					t.Fatalf("forget: %d %v", st, out)
				}
				if st, holds := a.eventHolds(t, id, "555-0100"); st != 404 || holds {
					t.Errorf("the event after the forget: %d, holds the number %v; want 404", st, holds)
				}
			})
		}
	})
}
