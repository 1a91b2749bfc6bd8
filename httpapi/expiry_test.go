package httpapi_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/loci-memory/loci"
	"github.com/loci-memory/loci/httpclient"
	"github.com/loci-memory/loci/internal/testdb"
)

// TestExpiredAnsweredNowhere: a fact, a passage, a note and a fact of a batch,
// each with a one-second time to live, are answered by no route once it has
// passed, the kinds' own included, and are in no export.
// GET /v1/export, GET /v1/export?user_id=U and GET /v1/facts/{id} once
// still held them.
func TestExpiredAnsweredNowhere(t *testing.T) {
	testdb.Each(t, func(t *testing.T, open func(testing.TB) loci.Store) {
		srv, clock := newServer(t, open)
		add := func(path, body string) string {
			t.Helper()
			st, b := do(t, srv, "POST", path, body)
			if st != 201 && st != 200 {
				t.Fatalf("POST %s %s: %d %s", path, body, st, b)
			}
			m := decodeExact(t, b)
			if id, ok := m["id"].(string); ok {
				return id
			}
			return m["results"].([]any)[0].(map[string]any)["id"].(string)
		}
		fact := add("/v1/memories", `{"content": "zanzibar fact lives briefly", "user_id": "u", "kind": "fact", "key": "brief", "ttl_seconds": 1}`)
		passage := add("/v1/memories", `{"content": "zanzibar passage lives briefly", "agent_id": "a", "kind": "passage", "ttl_seconds": 1}`)
		note := add("/v1/memories", `{"content": "zanzibar note lives briefly", "agent_id": "a", "kind": "note", "key": "brief", "ttl_seconds": 1}`)
		batch := add("/v1/memories/batch", `{"add": [{"content": "zanzibar batch fact lives briefly", "user_id": "u", "ttl_seconds": 1}]}`)
		kept := add("/v1/memories", `{"content": "zanzibar stays", "user_id": "u"}`)
		// A disputed fact waits in the review queue, until it expires.
		if st, b := do(t, srv, "POST", "/v1/facts/"+fact+"/contradict", ""); st != 200 {
			t.Fatalf("contradict: %d %s", st, b)
		}
		expired := map[string]string{"fact": fact, "passage": passage, "note": note, "batch fact": batch}

		// Before it passes, every one is answered and exported.
		for name, id := range expired {
			if st, b := do(t, srv, "GET", "/v1/memories/"+id, ""); st != 200 {
				t.Fatalf("%s before expiry: %d %s", name, st, b)
			}
		}
		if st, b := exportOf(t, srv, ""); st != 200 || !strings.Contains(string(b), fact) || !strings.Contains(string(b), note) {
			t.Fatalf("export before expiry: %d %s", st, b)
		}

		clock.Add(2 * time.Second)
		for name, id := range expired {
			for _, path := range []string{"/v1/memories/" + id, "/v1/memories/" + id + "/history"} {
				if st, b := do(t, srv, "GET", path, ""); st != 404 {
					t.Errorf("%s: GET %s: %d %s, want 404", name, path, st, b)
				}
			}
		}
		for _, id := range []string{fact, batch} {
			for _, req := range []struct{ method, path string }{
				{"GET", "/v1/facts/" + id},
				{"GET", "/v1/facts/" + id + "/history"},
				{"POST", "/v1/facts/" + id + "/validate"},
				{"POST", "/v1/facts/" + id + "/contradict"},
				{"POST", "/v1/facts/" + id + "/invalidate"},
			} {
				if st, b := do(t, srv, req.method, req.path, ""); st != 404 {
					t.Errorf("%s %s: %d %s, want 404", req.method, req.path, st, b)
				}
			}
		}
		for _, req := range []struct{ method, path, body string }{
			{"GET", "/v1/agents/a/notes/brief", ""},
			{"GET", "/v1/agents/a/notes/brief/history", ""},
		} {
			if st, b := do(t, srv, req.method, req.path, req.body); st != 404 {
				t.Errorf("%s %s: %d %s, want 404", req.method, req.path, st, b)
			}
		}
		// Listings, searches, the review queue and exports hold none of them.
		for _, req := range []struct{ method, path, body string }{
			{"GET", "/v1/memories?user_id=u", ""},
			{"GET", "/v1/memories?agent_id=a", ""},
			{"GET", "/v1/users/u/memories", ""},
			{"GET", "/v1/users/u/review", ""},
			{"GET", "/v1/users/u/context", ""},
			{"GET", "/v1/facts?user_id=u", ""},
			{"GET", "/v1/facts/search?user_id=u&q=zanzibar", ""},
			{"GET", "/v1/agents/a/passages", ""},
			{"GET", "/v1/agents/a/passages/search?q=zanzibar", ""},
			{"GET", "/v1/agents/a/notes", ""},
			{"POST", "/v1/search", `{"query": "zanzibar", "user_id": "u"}`},
			{"POST", "/v1/search", `{"query": "zanzibar", "agent_id": "a"}`},
			{"POST", "/mem0/v3/memories/", `{"filters": {"user_id": "u"}}`},
			{"POST", "/mem0/v3/memories/search/", `{"query": "zanzibar", "filters": {"user_id": "u"}}`},
		} {
			st, b := do(t, srv, req.method, req.path, req.body)
			if st != 200 {
				t.Errorf("%s %s: %d %s", req.method, req.path, st, b)
			}
			if strings.Contains(string(b), "briefly") {
				t.Errorf("%s %s answers an expired record: %s", req.method, req.path, b)
			}
		}
		for _, q := range []string{"", "user_id=u"} {
			st, b := exportOf(t, srv, q)
			if st != 200 || !strings.Contains(string(b), kept) || strings.Contains(string(b), "briefly") {
				t.Errorf("export %q: %d %s", q, st, b)
			}
			for name, id := range expired {
				if strings.Contains(string(b), id) {
					t.Errorf("export %q holds the expired %s %s", q, name, id)
				}
			}
		}
	})
}

// TestExpiryDates: expires_at (and the mem0 API's expiration_date) takes a
// date, meaning the end of that day UTC, today included: today's date was
// refused and a date expired at its midnight, a day early. PATCH with
// expires_at null (mem0: expiration_date null) removes the time to live, which
// nothing could before.
func TestExpiryDates(t *testing.T) {
	testdb.Each(t, func(t *testing.T, open func(testing.TB) loci.Store) {
		srv, clock := newServer(t, open) // 2026-02-15T14:30Z
		id := func(b []byte) string { return decodeExact(t, b)["id"].(string) }
		expiresAt := func(id string) any {
			t.Helper()
			st, b := do(t, srv, "GET", "/v1/memories/"+id, "")
			if st != 200 {
				t.Fatalf("GET %s: %d %s", id, st, b)
			}
			return decodeExact(t, b)["expires_at"]
		}
		const endOfToday = "2026-02-16T00:00:00Z"

		st, b := do(t, srv, "POST", "/v1/memories", `{"content": "lasts today", "user_id": "u", "expires_at": "2026-02-15"}`)
		if st != 201 {
			t.Fatalf("today's date: %d %s, want 201", st, b)
		}
		today := id(b)
		if got := expiresAt(today); got != endOfToday {
			t.Errorf("today's date: expires_at %v, want %s", got, endOfToday)
		}
		st, b = do(t, srv, "POST", "/v1/memories", `{"content": "a note for today", "agent_id": "a", "kind": "note", "key": "k", "expires_at": "2026-02-15"}`)
		if st != 201 {
			t.Fatalf("a note, today's date: %d %s", st, b)
		}
		st, b = do(t, srv, "POST", "/v1/memories/batch", `{"add": [{"content": "batch lasts today", "user_id": "u", "expires_at": "2026-02-15"}]}`)
		if st != 200 {
			t.Fatalf("batch, today's date: %d %s", st, b)
		}
		st, b = do(t, srv, "POST", "/v1/memories", `{"messages": [{"role": "user", "content": "my window is today"}], "user_id": "m", "expires_at": "2026-02-15"}`)
		if st != 201 && st != 200 {
			t.Fatalf("messages, today's date: %d %s", st, b)
		}
		said := decodeExact(t, b)["results"].([]any)[0].(map[string]any)["id"].(string)
		if got := expiresAt(said); got != endOfToday {
			t.Errorf("messages: expires_at %v, want %s", got, endOfToday)
		}
		st, b = do(t, srv, "POST", "/mem0/v3/memories/add/", `{"messages": "mem0 lasts today", "user_id": "z", "expiration_date": "2026-02-15"}`)
		if st != 200 {
			t.Fatalf("mem0, today's date: %d %s", st, b)
		}
		var added []map[string]any
		if err := json.Unmarshal(b, &added); err != nil || len(added) != 1 {
			t.Fatalf("mem0 add: %v %s", err, b)
		}
		mem0ID := added[0]["id"].(string)
		if got := added[0]["expiration_date"]; got != "2026-02-15" {
			t.Errorf("mem0 add: expiration_date %v, want the date sent, 2026-02-15", got)
		}
		if got := expiresAt(mem0ID); got != endOfToday {
			t.Errorf("mem0: expires_at %v, want %s", got, endOfToday)
		}

		for _, c := range []struct{ name, method, path, body, says string }{
			{"ErrYesterday", "POST", "/v1/memories", `{"content": "x", "user_id": "u", "expires_at": "2026-02-14"}`, "future"},
			{"ErrPastTime", "POST", "/v1/memories", `{"content": "x", "user_id": "u", "expires_at": "2026-02-15T14:00:00Z"}`, "future"},
			{"ErrNoSuchDay", "POST", "/v1/memories", `{"content": "x", "user_id": "u", "expires_at": "2026-02-30"}`, "date"},
			{"ErrNotTime", "POST", "/v1/memories", `{"content": "x", "user_id": "u", "expires_at": 5}`, "expires_at"},
			{"ErrNullAndTTL", "PATCH", "/v1/memories/" + today, `{"expires_at": null, "ttl_seconds": 5}`, "ttl_seconds"},
			{"ErrMem0Yesterday", "POST", "/mem0/v3/memories/add/", `{"messages": "x", "user_id": "z", "expiration_date": "2026-02-14"}`, "future"},
			{"ErrMem0NoSuchDay", "PUT", "/mem0/v1/memories/" + mem0ID + "/", `{"expiration_date": "2026-13-01"}`, "date"},
		} {
			t.Run(c.name, func(t *testing.T) {
				st, b := do(t, srv, c.method, c.path, c.body)
				if st != 400 || !strings.Contains(string(b), c.says) {
					t.Errorf("%s %s %s: %d %s, want 400 saying %s", c.method, c.path, c.body, st, b, c.says)
				}
			})
		}

		// A session's end takes a date too.
		if st, b := do(t, srv, "PUT", "/v1/sessions/s1", `{"user_id": "u", "summary": "ends today", "expires_at": "2026-02-15"}`); st/100 != 2 {
			t.Fatalf("session with today's date: %d %s", st, b)
		}
		if st, b := do(t, srv, "GET", "/v1/sessions/s1", ""); st != 200 || decodeExact(t, b)["expires_at"] != endOfToday {
			t.Errorf("session: %d %s, want expires_at %s", st, b, endOfToday)
		}
		if st, b := do(t, srv, "PUT", "/v1/sessions/s2", `{"user_id": "u", "expires_at": "2026-02-31"}`); st != 400 || !strings.Contains(string(b), "date") {
			t.Errorf("session with no such day: %d %s, want 400", st, b)
		}

		// A patch takes a date too, and null removes the time to live.
		st, b = do(t, srv, "POST", "/v1/memories", `{"content": "lasts a minute", "user_id": "u", "ttl_seconds": 60}`)
		if st != 201 {
			t.Fatalf("add: %d %s", st, b)
		}
		minute := id(b)
		st, b = do(t, srv, "PATCH", "/v1/memories/"+minute, `{"expires_at": "2026-02-16"}`)
		if got := expiresAt(minute); st != 200 || got != "2026-02-17T00:00:00Z" {
			t.Errorf("patch to a date: %d %s; expires_at %v", st, b, got)
		}
		st, b = do(t, srv, "PATCH", "/v1/memories/"+minute, `{"expires_at": null}`)
		if ev := decodeExact(t, b)["event"]; st != 200 || ev != "UPDATE" {
			t.Errorf("patch expires_at null: %d %s, want 200 UPDATE", st, b)
		}
		if got := expiresAt(minute); got != nil {
			t.Errorf("after expires_at null: expires_at %v, want none", got)
		}
		st, b = do(t, srv, "PATCH", "/v1/memories/"+minute, `{"expires_at": null}`)
		if ev := decodeExact(t, b)["event"]; st != 200 || ev != "NOOP" {
			t.Errorf("patch expires_at null again: %d %s, want 200 NOOP", st, b)
		}
		st, b = do(t, srv, "POST", "/v1/memories/batch", `{"update": [{"id": "`+today+`", "expires_at": null}]}`)
		if st != 200 || expiresAt(today) != nil {
			t.Errorf("batch update expires_at null: %d %s; expires_at %v", st, b, expiresAt(today))
		}
		st, b = do(t, srv, "PUT", "/mem0/v1/memories/"+mem0ID+"/", `{"expiration_date": null}`)
		if exp, ok := decodeExact(t, b)["expiration_date"]; st != 200 || !ok || exp != nil {
			t.Errorf("mem0 update expiration_date null: %d %s", st, b)
		}
		if got := expiresAt(mem0ID); got != nil {
			t.Errorf("after mem0's expiration_date null: expires_at %v, want none", got)
		}

		// A date lasts to the end of its day, UTC, and not past it.
		clock.Set(time.Date(2026, 2, 15, 23, 59, 59, 0, time.UTC))
		for _, path := range []string{"/v1/memories/" + said, "/v1/agents/a/notes/k"} {
			if st, b := do(t, srv, "GET", path, ""); st != 200 {
				t.Errorf("GET %s at 23:59:59: %d %s, want 200", path, st, b)
			}
		}
		clock.Set(time.Date(2026, 2, 16, 0, 0, 0, 0, time.UTC))
		for _, path := range []string{"/v1/memories/" + said, "/v1/agents/a/notes/k"} {
			if st, b := do(t, srv, "GET", path, ""); st != 404 {
				t.Errorf("GET %s at midnight: %d %s, want 404", path, st, b)
			}
		}
		for _, kept := range []string{today, minute, mem0ID} {
			if st, b := do(t, srv, "GET", "/v1/memories/"+kept, ""); st != 200 {
				t.Errorf("GET %s, no longer expiring: %d %s", kept, st, b)
			}
		}
	})
}

// TestClientNoExpiry: the Go client's NoExpiry is expires_at null on the
// wire, alone or in a batch; with a time as well it is refused.
func TestClientNoExpiry(t *testing.T) {
	testdb.Each(t, func(t *testing.T, open func(testing.TB) loci.Store) {
		ctx := context.Background()
		srv, _ := newServer(t, open)
		c := httpclient.NewClient(srv.URL, "")
		ttl := int64(60)
		var ids []string
		for _, content := range []string{"lasts a minute", "lasts a minute too"} {
			ev, err := c.AddMemory(ctx, loci.MemoryInput{Content: content, UserID: "u", TTLSeconds: &ttl})
			if err != nil {
				t.Fatal(err)
			}
			ids = append(ids, ev.ID)
		}
		if ev, err := c.UpdateMemory(ctx, ids[0], loci.MemoryPatch{NoExpiry: true}); err != nil || ev.Event != loci.EventUpdate {
			t.Errorf("NoExpiry: %+v, %v", ev, err)
		}
		if evs, err := c.BatchMemories(ctx, loci.MemoryBatch{Update: []loci.MemoryUpdate{{ID: ids[1], MemoryPatch: loci.MemoryPatch{NoExpiry: true}}}}); err != nil || len(evs) != 1 || evs[0].Event != loci.EventUpdate {
			t.Errorf("batch NoExpiry: %+v, %v", evs, err)
		}
		for _, id := range ids {
			if m, err := c.GetMemory(ctx, id); err != nil || !m.ExpiresAt.IsZero() {
				t.Errorf("after NoExpiry: %+v, %v", m, err)
			}
		}
		at := time.Now().Add(time.Hour)
		if _, err := c.UpdateMemory(ctx, ids[0], loci.MemoryPatch{NoExpiry: true, ExpiresAt: &at}); loci.ErrorCode(err) != loci.EINVALID {
			t.Errorf("NoExpiry with a time: %v, want invalid", err)
		}
		if _, err := c.BatchMemories(ctx, loci.MemoryBatch{Update: []loci.MemoryUpdate{{ID: ids[0], MemoryPatch: loci.MemoryPatch{NoExpiry: true, ExpiresAt: &at}}}}); loci.ErrorCode(err) != loci.EINVALID || !strings.Contains(loci.ErrorMessage(err), "update[0]") {
			t.Errorf("batch NoExpiry with a time: %v, want invalid naming update[0]", err)
		}
	})
}
