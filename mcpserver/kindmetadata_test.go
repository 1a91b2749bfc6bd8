package mcpserver_test

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/loci-memory/loci"
	"github.com/loci-memory/loci/mcpserver"
)

// TestKindToolsAnswerMetadata: the kinds' own tools answer a record's
// metadata (recall, search_facts, find_similar_episodes), and
// none where the record has none.
func TestKindToolsAnswerMetadata(t *testing.T) {
	eachService(t, func(t *testing.T, svc loci.Service) {
		ctx := context.Background()
		cs := MustConnect(t, svc, mcpserver.Identity{AgentID: "a", UserID: "u"})
		add := func(in loci.MemoryInput) string {
			t.Helper()
			ev, err := svc.AddMemory(ctx, in)
			if err != nil {
				t.Fatal(err)
			}
			return ev.ID
		}
		const meta = `{"n":18,"topicName":"food"}`
		add(loci.MemoryInput{Content: "alex eats no meat", UserID: "u", AgentID: "a", Metadata: json.RawMessage(meta)})
		add(loci.MemoryInput{Content: "alex eats no fish", UserID: "u", AgentID: "a"})
		add(loci.MemoryInput{Content: "soup", AgentID: "a", Kind: loci.KindNote, Key: "lunch", Metadata: json.RawMessage(meta)})
		r := MustCall(t, cs, "record_episode", map[string]any{"action_type": "cook", "action_description": "made a soup for alex", "outcome": "success"})
		wantOK(t, r)
		if _, err := svc.UpdateMemory(ctx, r.out["id"].(string), loci.MemoryPatch{Metadata: json.RawMessage(meta)}); err != nil {
			t.Fatal(err)
		}

		metaOf := func(v any) string {
			m, _ := v.(map[string]any)["metadata"]
			if m == nil {
				return ""
			}
			return string(mustJSON(t, m))
		}
		r = MustCall(t, cs, "search_facts", map[string]any{"query": "alex eats"})
		wantOK(t, r)
		got := map[string]string{}
		for _, f := range r.out["facts"].([]any) {
			got[f.(map[string]any)["fact"].(string)] = metaOf(f)
		}
		if got["alex eats no meat"] != meta || got["alex eats no fish"] != "" || len(got) != 2 {
			t.Errorf("search_facts metadata: %v, want %s on the first alone", got, meta)
		}
		r = MustCall(t, cs, "find_similar_episodes", map[string]any{"query": "soup"})
		if eps, _ := r.out["episodes"].([]any); len(eps) != 1 || metaOf(eps[0]) != meta {
			t.Errorf("find_similar_episodes: %s", r.text)
		}
		r = MustCall(t, cs, "recall", map[string]any{"key": "lunch"})
		if metaOf(r.out) != meta {
			t.Errorf("recall of a key: %s", r.text)
		}
		r = MustCall(t, cs, "recall", map[string]any{})
		if ms, _ := r.out["memories"].([]any); len(ms) != 1 || metaOf(ms[0]) != meta {
			t.Errorf("recall of all: %s", r.text)
		}
	})
}
