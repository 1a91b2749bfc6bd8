package index

import (
	"fmt"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/loci-memory/loci"
)

// TestConversationScoresAfterRemovals: removing records (and so
// compacting the slots, and emptying whole conversations) leaves each
// conversation's score what an index of the records that remain gives.
func TestConversationScoresAfterRemovals(t *testing.T) {
	agent := "a"
	scope := loci.RecordFilter{Workspace: "w", AgentID: &agent}
	cfg := &config{conversational: func(r *loci.Record) bool { return r.SessionID != "" }}
	churned, fresh := newEntry(cfg, keyOf(scope), scope), newEntry(cfg, keyOf(scope), scope)
	at := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	words := []string{"bike", "service", "trip", "plan", "filler", "more", "words"}
	rec := func(i int) *loci.Record {
		var w []string
		for j := range 3 + i%5 {
			w = append(w, words[(i*7+j*3)%len(words)])
		}
		return &loci.Record{ID: fmt.Sprintf("r%05d", i), Workspace: "w", Kind: loci.KindPassage,
			Scope: loci.Scope{AgentID: agent, SessionID: fmt.Sprint("s", i%50)}, SearchText: strings.Join(w, " "), CreatedAt: at, UpdatedAt: at}
	}
	const n = 3000
	for i := range n {
		churned.put(rec(i))
	}
	// Conversations s0..s9 lose all their records, s10..s29 all but
	// their first: over half the slots die, which compacts them.
	for i := range n {
		if i%50 < 10 || i%50 < 30 && i >= 50 {
			churned.remove(rec(i).ID)
			continue
		}
		fresh.put(rec(i))
	}
	if len(churned.docs) >= n {
		t.Fatalf("no compaction: %d slots, %d live", len(churned.docs), churned.live)
	}
	if len(churned.groups) != len(fresh.groups) || churned.groupLen != fresh.groupLen {
		t.Fatalf("conversations %d (length %d), want %d (%d)", len(churned.groups), churned.groupLen, len(fresh.groups), fresh.groupLen)
	}
	terms := []string{"bike", "service"}
	a, _ := churned.lexical(churned.matcher(&scope), terms, churned.stats(terms), 50, nil, nil)
	b, _ := fresh.lexical(fresh.matcher(&scope), terms, fresh.stats(terms), 50, nil, nil)
	if len(a) != len(b) || len(a) == 0 {
		t.Fatalf("%d hits, want %d", len(a), len(b))
	}
	for i := range a {
		if a[i].Doc.Meta.ID != b[i].Doc.Meta.ID || math.Abs(a[i].Conversation-b[i].Conversation) > 1e-9 || a[i].Conversation == 0 {
			t.Fatalf("hit %d: %s conversation %v, want %s %v", i, a[i].Doc.Meta.ID, a[i].Conversation, b[i].Doc.Meta.ID, b[i].Conversation)
		}
	}
}
