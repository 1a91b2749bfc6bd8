package httpapi_test

import (
	"context"
	"encoding/json"
	"slices"
	"testing"

	"github.com/loci-memory/loci"
	"github.com/loci-memory/loci/httpclient"
	"github.com/loci-memory/loci/internal/testdb"
)

// TestClientMemories drives every method of the memories API through the
// client against a real server: the client is a loci.MemoryService.
func TestClientMemories(t *testing.T) {
	testdb.Each(t, func(t *testing.T, open func(testing.TB) loci.Store) {
		ctx := context.Background()
		srv, _ := newServer(t, open)
		var c loci.MemoryService = httpclient.NewClient(srv.URL, "")
		cl := c.(*httpclient.Client)

		ev, err := c.AddMemory(ctx, loci.MemoryInput{Content: "likes green tea", UserID: "u1", Metadata: json.RawMessage(`{"source": "chat", "n": 2}`)})
		if err != nil || ev.Event != loci.EventAdd || ev.Kind != loci.KindFact || ev.ID == "" {
			t.Fatalf("add = %+v, %v", ev, err)
		}
		id := ev.ID
		if again, err := c.AddMemory(ctx, loci.MemoryInput{Content: "Likes green  TEA", UserID: "u1"}); err != nil || again.Event != loci.EventNoop || again.ID != id {
			t.Errorf("repeat = %+v, %v; want NOOP of %s", again, err, id)
		}
		m, err := c.GetMemory(ctx, id)
		if err != nil || m.Content != "likes green tea" || m.UserID != "u1" {
			t.Fatalf("get = %+v, %v", m, err)
		}
		var meta map[string]any
		if json.Unmarshal(m.Metadata, &meta) != nil || meta["source"] != "chat" || meta["n"] != float64(2) {
			t.Errorf("metadata = %s", m.Metadata)
		}
		content, tags := "likes black tea", []string{"drink"}
		up, err := c.UpdateMemory(ctx, id, loci.MemoryPatch{Content: &content, Tags: &tags})
		if err != nil || up.Event != loci.EventUpdate || up.ID != id {
			t.Fatalf("update = %+v, %v", up, err)
		}
		vs, err := c.MemoryHistory(ctx, id)
		if err != nil || len(vs) < 2 || vs[0].Content != "likes black tea" || vs[len(vs)-1].Content != "likes green tea" || vs[len(vs)-1].Event != loci.EventAdd {
			t.Errorf("history = %+v, %v", vs, err)
		}

		evs, err := c.BatchMemories(ctx, loci.MemoryBatch{
			Add:    []loci.MemoryInput{{Content: "works in Lyon", UserID: "u1", Metadata: json.RawMessage(`{"source": "form"}`)}, {Content: "plays chess", UserID: "u2"}},
			Delete: []string{id},
		})
		if err != nil || len(evs) != 3 || evs[0].Event != loci.EventAdd || evs[2].ID != id {
			t.Fatalf("batch = %+v, %v", evs, err)
		}
		if _, err := c.GetMemory(ctx, id); loci.ErrorCode(err) != loci.ENOTFOUND {
			t.Errorf("get after the batch's delete: %v, want not found", err)
		}

		// The listing sends a parsed filter as the filter language.
		f, err := loci.ParseMemoryFilter([]byte(`{"or": [{"metadata.source": {"in": ["form", "x"]}}, {"not": {"user_id": "u1"}}], "kind": "fact"}`))
		if err != nil {
			t.Fatal(err)
		}
		ms, total, err := cl.ListMemories(ctx, loci.MemoryQuery{Filters: f, Kinds: []loci.Kind{loci.KindFact}})
		var got []string
		for _, m := range ms {
			got = append(got, m.Content)
		}
		slices.Sort(got)
		if err != nil || total != 2 || !slices.Equal(got, []string{"plays chess", "works in Lyon"}) {
			t.Errorf("filtered list = %v (%d), %v", got, total, err)
		}
		if ms, total, err := cl.ListMemories(ctx, loci.MemoryQuery{Scope: loci.Scope{UserID: "u2"}, Limit: 1}); err != nil || total != 1 || len(ms) != 1 {
			t.Errorf("u2's list = %d of %d, %v", len(ms), total, err)
		}

		t.Run("Errors", func(t *testing.T) {
			for name, err := range map[string]error{
				"GetUnknown":     func() error { _, err := c.GetMemory(ctx, "nope"); return err }(),
				"UpdateUnknown":  func() error { _, err := c.UpdateMemory(ctx, "nope", loci.MemoryPatch{Content: &content}); return err }(),
				"DeleteUnknown":  c.DeleteMemory(ctx, "nope"),
				"HistoryUnknown": func() error { _, err := c.MemoryHistory(ctx, "nope"); return err }(),
			} {
				if loci.ErrorCode(err) != loci.ENOTFOUND {
					t.Errorf("%s: %v, want not found", name, err)
				}
			}
			if _, err := c.GetMemory(ctx, " "); loci.ErrorCode(err) != loci.EINVALID {
				t.Errorf("empty id: %v, want invalid", err)
			}
			if _, err := c.AddMemory(ctx, loci.MemoryInput{Content: "x", Metadata: json.RawMessage(`{"bad.key": 1}`)}); loci.ErrorCode(err) != loci.EINVALID {
				t.Errorf("bad metadata: %v, want invalid", err)
			}
			_, err := c.BatchMemories(ctx, loci.MemoryBatch{Add: []loci.MemoryInput{{Content: "fine", UserID: "u3"}, {Content: " "}}})
			if loci.ErrorCode(err) != loci.EINVALID {
				t.Errorf("batch with a bad add: %v, want invalid", err)
			}
			if _, total, _ := cl.ListMemories(ctx, loci.MemoryQuery{Scope: loci.Scope{UserID: "u3"}}); total != 0 {
				t.Errorf("the refused batch applied %d adds, want none", total)
			}
		})
	})
}
