package httpapi_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/loci-memory/loci"
	"github.com/loci-memory/loci/internal/testdb"
	"github.com/loci-memory/loci/rules"
)

// waitEvent polls GET /v1/events/{id} until its status is not PENDING, or
// fails the test after a while.
func (a *convAPI) waitEvent(t *testing.T, id string) map[string]any {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for {
		st, out, _ := a.call(t, "GET", "/v1/events/"+id, "")
		if st != 200 {
			t.Fatalf("GET event: %d %v", st, out)
		}
		if out["status"] != loci.EventPending {
			return out
		}
		if time.Now().After(deadline) {
			t.Fatalf("event %s still pending: %v", id, out)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// TestMessagesAsync: "async": true answers 202 with a pending event at
// once; the worker runs it, and the event answers SUCCEEDED with the same
// results a synchronous add answers. While the chat model is down the
// event stays pending, saying why, and runs once the model answers.
func TestMessagesAsync(t *testing.T) {
	testdb.Each(t, func(t *testing.T, open func(testing.TB) loci.Store) {
		chat := newChatServer(t)
		a := newConvAPI(t, open(t), rules.WithChatModel(chatModel(t, chat.URL, 5*time.Second), 5*time.Second),
			rules.WithEventQueue(rules.EventParams{Poll: 20 * time.Millisecond, MinBackoff: 50 * time.Millisecond, MaxBackoff: 100 * time.Millisecond}))

		// Without the worker, the event waits.
		st, out, _ := a.call(t, "POST", "/v1/memories", `{"messages": [{"role": "user", "content": "I love hiking"}, {"role": "assistant", "content": "Nice"}], "user_id": "alex", "session_id": "s1", "async": true, "infer": false}`)
		if st != 202 || out["status"] != "PENDING" || out["event_id"] == nil || out["results"] != nil {
			t.Fatalf("async add: %d %v, want 202 PENDING with an event_id", st, out)
		}
		id := out["event_id"].(string)
		if st, ev, _ := a.call(t, "GET", "/v1/events/"+id, ""); st != 200 || ev["status"] != "PENDING" || ev["results"] != nil {
			t.Errorf("the event before any worker: %d %v, want PENDING without results", st, ev)
		}
		if got := a.memories(t, "alex"); len(got) != 0 {
			t.Errorf("memories before the work = %v", got)
		}
		stop := a.svc.StartEvents(context.Background())
		defer stop()
		ev := a.waitEvent(t, id)
		if ev["status"] != "SUCCEEDED" || !sameList(results(t, ev), []string{"ADD I love hiking"}) ||
			len(ev["skipped"].([]any)) != 1 || ev["session"].(map[string]any)["appended"] != float64(2) || ev["attempts"] != float64(1) {
			t.Errorf("the event: %v, want SUCCEEDED with the synchronous add's results", ev)
		}
		if got := a.memories(t, "alex"); len(got) != 4 { // the fact, the session and its two messages
			t.Errorf("memories after the work = %v", got)
		}

		// With the model: down first (an error status), then up.
		chat.script(chatReply{status: 503, raw: `{"error": "loading"}`})
		st, out, _ = a.call(t, "POST", "/v1/memories", `{"messages": [{"role": "user", "content": "I hate hiking now"}], "user_id": "alex", "async": true}`)
		if st != 202 {
			t.Fatalf("async add: %d %v", st, out)
		}
		id = out["event_id"].(string)
		deadline := time.Now().Add(10 * time.Second)
		for {
			_, ev, _ := a.call(t, "GET", "/v1/events/"+id, "")
			if msg, _ := ev["error"].(string); ev["status"] == "PENDING" && strings.Contains(msg, "status 503") {
				break // failed once, pending again, saying why
			}
			if ev["status"] != "PENDING" || time.Now().After(deadline) {
				t.Fatalf("the event while the model fails: %v, want PENDING with the model's error", ev)
			}
			time.Sleep(10 * time.Millisecond)
		}
		chat.script(reply(`{"memories": [{"text": "Hates hiking"}]}`), reply(`{"memory": [{"event": "UPDATE", "id": "0", "text": "Hates hiking"}]}`))
		ev = a.waitEvent(t, id)
		if ev["status"] != "SUCCEEDED" || !sameList(results(t, ev), []string{"UPDATE Hates hiking"}) || ev["attempts"].(float64) < 2 ||
			ev["inference"].(map[string]any)["mode"] != "model" {
			t.Errorf("the event once the model answers: %v", ev)
		}

		// A model that keeps answering garbage: failed after the attempts.
		b := newConvAPI(t, open(t), rules.WithChatModel(chatModel(t, chat.URL, 5*time.Second), 5*time.Second),
			rules.WithEventQueue(rules.EventParams{Poll: 10 * time.Millisecond, MinBackoff: time.Millisecond, MaxBackoff: time.Millisecond, MaxAttempts: 2}))
		defer b.svc.StartEvents(context.Background())()
		chat.reset()
		chat.script(reply(`garbage`), reply(`garbage`))
		_, out, _ = b.call(t, "POST", "/v1/memories", `{"messages": [{"role": "user", "content": "I hate hiking now"}], "user_id": "alex", "async": true}`)
		ev = b.waitEvent(t, out["event_id"].(string))
		if msg, _ := ev["error"].(string); ev["status"] != "FAILED" || ev["code"] != "unavailable" || !strings.Contains(msg, "unusable") || ev["attempts"] != float64(2) {
			t.Errorf("the event of a model answering garbage: %v, want FAILED after 2 attempts", ev)
		}
		if got := b.memories(t, "alex"); len(got) != 0 {
			t.Errorf("a failed event wrote %v", got)
		}
	})
}

// TestMessagesAsyncRestart: an event queued by a server that stops before
// running it is run by the next server on the same database.
func TestMessagesAsyncRestart(t *testing.T) {
	for _, p := range testdb.Pairs() {
		t.Run(p.Name, func(t *testing.T) {
			first, second := p.Open(t)
			a := newConvAPI(t, first)
			st, out, _ := a.call(t, "POST", "/v1/memories", `{"messages": [{"role": "user", "content": "I love hiking"}], "user_id": "alex", "async": true, "ttl_seconds": 3600}`)
			if st != 202 {
				t.Fatalf("async add: %d %v", st, out)
			}
			id := out["event_id"].(string)
			a.svc.Close() // stopped before any worker ran it

			b := newConvAPI(t, second, rules.WithEventQueue(rules.EventParams{Poll: 20 * time.Millisecond}))
			if st, ev, _ := b.call(t, "GET", "/v1/events/"+id, ""); st != 200 || ev["status"] != "PENDING" {
				t.Fatalf("the event after the restart: %d %v, want PENDING", st, ev)
			}
			defer b.svc.StartEvents(context.Background())()
			ev := b.waitEvent(t, id)
			if ev["status"] != "SUCCEEDED" || !sameList(results(t, ev), []string{"ADD I love hiking"}) {
				t.Fatalf("the event run after the restart: %v", ev)
			}
			mid := ev["results"].([]any)[0].(map[string]any)["id"].(string)
			st, m, _ := b.call(t, "GET", "/v1/memories/"+mid, "")
			if st != 200 || m["expires_at"] == nil {
				t.Errorf("the memory: %d %v, want it with the expiry the request asked", st, m)
			}
		})
	}
}

// TestMessagesAsyncUserDeleted: deleting a user deletes the adds queued
// for them, which hold what they said: none writes it back.
func TestMessagesAsyncUserDeleted(t *testing.T) {
	testdb.Each(t, func(t *testing.T, open func(testing.TB) loci.Store) {
		a := newConvAPI(t, open(t), rules.WithEventQueue(rules.EventParams{Poll: 10 * time.Millisecond}))
		_, out, _ := a.call(t, "POST", "/v1/memories", `{"messages": [{"role": "user", "content": "My phone number is 555-0100"}], "user_id": "alex", "async": true}`)
		id, _ := out["event_id"].(string)
		_, kept, _ := a.call(t, "POST", "/v1/memories", `{"messages": [{"role": "user", "content": "I love tea"}], "user_id": "bo", "async": true}`)
		if st, out, _ := a.call(t, "DELETE", "/v1/users/alex", ""); st != 200 {
			t.Fatalf("delete user: %d %v", st, out)
		}
		if st, out, _ := a.call(t, "GET", "/v1/events/"+id, ""); st != 404 {
			t.Errorf("the deleted user's event: %d %v, want 404", st, out)
		}
		defer a.svc.StartEvents(context.Background())()
		if ev := a.waitEvent(t, kept["event_id"].(string)); ev["status"] != "SUCCEEDED" {
			t.Errorf("another user's event: %v", ev)
		}
		if got := a.memories(t, "alex"); len(got) != 0 {
			t.Errorf("the deleted user's memories = %v, want none", got)
		}
	})
}

// eventHolds reports whether GET /v1/events/{id} answers text anywhere,
// and returns the answer's status.
func (a *convAPI) eventHolds(t *testing.T, id, text string) (int, bool) {
	t.Helper()
	st, out, _ := a.call(t, "GET", "/v1/events/"+id, "")
	raw, err := json.Marshal(out)
	if err != nil {
		t.Fatal(err)
	}
	return st, strings.Contains(string(raw), text)
}

// TestMessagesAsyncForgotten: a finished add's event holds what it wrote
// (each memory's content): whichever way one of its memories is deleted
// or forgotten, or its agent deleted, the event goes with it (404), and
// GET /v1/events/{id} no longer answers the words. Another user's event
// stays.
func TestMessagesAsyncForgotten(t *testing.T) {
	testdb.Each(t, func(t *testing.T, open func(testing.TB) loci.Store) {
		a := newConvAPI(t, open(t), rules.WithEventQueue(rules.EventParams{Poll: 10 * time.Millisecond}))
		defer a.svc.StartEvents(context.Background())()
		_, kept, _ := a.call(t, "POST", "/v1/memories", `{"messages": [{"role": "user", "content": "I love tea"}], "user_id": "bo", "async": true}`)
		tests := []struct {
			name, method, path, body string
		}{
			{"ForgetQuery", "POST", "/v1/users/{user}/forget", `{"query": "phone number"}`},
			{"ForgetIDs", "POST", "/v1/users/{user}/forget", `{"ids": ["{id}"]}`},
			{"DeleteMemory", "DELETE", "/v1/memories/{id}", ``},
			{"DeleteFact", "DELETE", "/v1/facts/{id}", ``},
			{"Batch", "POST", "/v1/memories/batch", `{"delete": ["{id}"]}`},
			{"Mem0Delete", "DELETE", "/mem0/v1/memories/{id}/", ``},
			{"Mem0BatchDelete", "DELETE", "/mem0/v1/batch/", `{"memories": [{"memory_id": "{id}"}]}`},
			{"DeleteAgent", "DELETE", "/v1/agents/{agent}", ``},
		}
		for _, tt := range tests {
			t.Run(tt.name, func(t *testing.T) {
				user, agent := "alex-"+strings.ToLower(tt.name), "agent-"+strings.ToLower(tt.name)
				_, out, _ := a.call(t, "POST", "/v1/memories", `{"messages": [{"role": "user", "content": "My phone number is 555-0100"}], "user_id": "`+
					user+`", "agent_id": "`+agent+`", "async": true}`)
				id, _ := out["event_id"].(string)
				ev := a.waitEvent(t, id)
				if ev["status"] != "SUCCEEDED" || !sameList(results(t, ev), []string{"ADD My phone number is 555-0100"}) {
					t.Fatalf("the event: %v", ev)
				}
				mid := ev["results"].([]any)[0].(map[string]any)["id"].(string)
				r := strings.NewReplacer("{user}", user, "{agent}", agent, "{id}", mid)
				if st, out, _ := a.call(t, tt.method, r.Replace(tt.path), r.Replace(tt.body)); st != 200 {
					t.Fatalf("%s %s: %d %v", tt.method, tt.path, st, out)
				}
				if st, _, _ := a.call(t, "GET", "/v1/memories/"+mid, ""); st != 404 {
					t.Fatalf("the memory after the delete: %d, want 404", st)
				}
				if st, holds := a.eventHolds(t, id, "555-0100"); st != 404 || holds {
					t.Errorf("the event after the delete: %d, holds the number %v; want 404", st, holds)
				}
			})
		}
		if st, holds := a.eventHolds(t, kept["event_id"].(string), "I love tea"); st != 200 || !holds {
			t.Errorf("another user's event: %d, holds its memory %v; want it kept", st, holds)
		}
	})
}

// TestMessagesAsyncPendingForgotten: an add still queued when a forget by
// query matches its messages, or when its agent is deleted, is deleted
// with them: it never runs to write the words back. The adds the forget
// does not match still run.
func TestMessagesAsyncPendingForgotten(t *testing.T) {
	testdb.Each(t, func(t *testing.T, open func(testing.TB) loci.Store) {
		a := newConvAPI(t, open(t), rules.WithEventQueue(rules.EventParams{Poll: 10 * time.Millisecond}))
		queue := func(body string) string {
			t.Helper()
			st, out, _ := a.call(t, "POST", "/v1/memories", body)
			if st != 202 {
				t.Fatalf("async add: %d %v", st, out)
			}
			return out["event_id"].(string)
		}
		// Alex's phone number, said in one message or across two.
		phone := queue(`{"messages": [{"role": "user", "content": "My phone number is 555-0100"}], "user_id": "alex", "async": true}`)
		split := queue(`{"messages": [{"role": "user", "content": "Note my phone number"}, {"role": "user", "content": "It is 555-0100"}], "user_id": "alex", "infer": false, "async": true}`)
		tea := queue(`{"messages": [{"role": "user", "content": "I love tea"}], "user_id": "alex", "async": true}`)
		// Agent a2's add, about user cy.
		if st, out, _ := a.call(t, "POST", "/v1/agents", `{"id": "a2"}`); st != 201 {
			t.Fatalf("create agent: %d %v", st, out)
		}
		agent := queue(`{"messages": [{"role": "user", "content": "My phone number is 555-0199"}], "user_id": "cy", "agent_id": "a2", "async": true}`)
		other := queue(`{"messages": [{"role": "user", "content": "My phone number is 555-0142"}], "user_id": "cy", "async": true}`)

		if st, out, _ := a.call(t, "POST", "/v1/users/alex/forget", `{"query": "phone number 555-0100"}`); st != 200 || out["count"] != float64(0) {
			t.Fatalf("forget: %d %v, want nothing stored yet", st, out)
		}
		if st, out, _ := a.call(t, "DELETE", "/v1/agents/a2", ""); st != 200 {
			t.Fatalf("delete agent: %d %v", st, out)
		}
		for _, id := range []string{phone, split, agent} {
			if st, out, _ := a.call(t, "GET", "/v1/events/"+id, ""); st != 404 {
				t.Errorf("a forgotten add's event: %d %v, want 404", st, out)
			}
		}
		defer a.svc.StartEvents(context.Background())()
		for _, id := range []string{tea, other} {
			if ev := a.waitEvent(t, id); ev["status"] != "SUCCEEDED" {
				t.Errorf("an add the forget does not match: %v", ev)
			}
		}
		if got := a.memories(t, "alex"); !sameList(got, []string{"fact:I love tea"}) {
			t.Errorf("alex's memories = %v, want [fact:I love tea]: the forgotten adds never ran", got)
		}
		if got := a.memories(t, "cy"); !sameList(got, []string{"fact:My phone number is 555-0142"}) {
			t.Errorf("cy's memories = %v, want only the add of no agent", got)
		}
	})
}
