package retrieval_test

import (
	"testing"

	"github.com/loci-memory/loci/retrieval"
)

func TestConverse(t *testing.T) {
	ctx := retrieval.ConverseParams{Context: 0.5, Answer: 0.5}
	tests := []struct {
		name      string
		hits      []retrieval.Hit
		links     map[string][]retrieval.Link
		questions map[string]bool
		sessionOf map[string]string
		p         retrieval.ConverseParams
		want      []retrieval.Hit
		parts     map[string]retrieval.Parts
	}{
		{
			name: "NoNeighboursScalesToBest",
			hits: []retrieval.Hit{{ID: "a", Score: 4}, {ID: "b", Score: 2}},
			p:    ctx,
			want: []retrieval.Hit{{ID: "a", Score: 1}, {ID: "b", Score: 0.5}},
		},
		{
			// q matches "a"; the records next to it share no word.
			name:  "NeighbourOnlyFound",
			hits:  []retrieval.Hit{{ID: "a", Score: 4}, {ID: "b", Score: 1}},
			links: map[string][]retrieval.Link{"a": {{ID: "p"}, {ID: "n", After: true}}},
			p:     ctx,
			want:  []retrieval.Hit{{ID: "a", Score: 1}, {ID: "n", Score: 0.5}, {ID: "p", Score: 0.5}, {ID: "b", Score: 0.25}},
			parts: map[string]retrieval.Parts{"n": {Context: 0.5}, "a": {Own: 1}},
		},
		{
			name:  "HitsLendToEachOther",
			hits:  []retrieval.Hit{{ID: "a", Score: 4}, {ID: "b", Score: 2}, {ID: "c", Score: 1}},
			links: map[string][]retrieval.Link{"a": {{ID: "b", After: true}}, "b": {{ID: "a"}, {ID: "c", After: true}}, "c": {{ID: "b"}}},
			p:     ctx,
			// a: 1 + 0.5×0.5, b: 0.5 + 0.5×1, c: 0.25 + 0.5×0.5.
			want: []retrieval.Hit{{ID: "a", Score: 1.25}, {ID: "b", Score: 1}, {ID: "c", Score: 0.5}},
		},
		{
			name:  "BestLenderCounts",
			hits:  []retrieval.Hit{{ID: "a", Score: 2}, {ID: "b", Score: 1}},
			links: map[string][]retrieval.Link{"a": {{ID: "x", After: true}}, "b": {{ID: "x"}}},
			p:     retrieval.ConverseParams{Context: 1},
			want:  []retrieval.Hit{{ID: "a", Score: 1}, {ID: "x", Score: 1}, {ID: "b", Score: 0.5}},
		},
		{
			// The question "q" lends 0.9 to the turn after it (its
			// answer) and 0.3 to the one before; "s", not a question,
			// lends 0.3 either way.
			name:      "QuestionLendsToItsAnswer",
			hits:      []retrieval.Hit{{ID: "q", Score: 2}, {ID: "s", Score: 2}},
			links:     map[string][]retrieval.Link{"q": {{ID: "before"}, {ID: "answer", After: true}}, "s": {{ID: "s-before"}, {ID: "s-after", After: true}}},
			questions: map[string]bool{"q": true},
			p:         retrieval.ConverseParams{Context: 0.3, Answer: 0.9},
			want: []retrieval.Hit{{ID: "q", Score: 1}, {ID: "s", Score: 1}, {ID: "answer", Score: 0.9},
				{ID: "before", Score: 0.3}, {ID: "s-after", Score: 0.3}, {ID: "s-before", Score: 0.3}},
			parts: map[string]retrieval.Parts{"answer": {Context: 0.9}, "before": {Context: 0.3}},
		},
		{
			// With context off, neighbours that would be lent nothing
			// are not candidates at all.
			name:      "ZeroLendsNothing",
			hits:      []retrieval.Hit{{ID: "b", Score: 3}, {ID: "a", Score: 1}},
			links:     map[string][]retrieval.Link{"a": {{ID: "b"}}, "b": {{ID: "z", After: true}}},
			questions: map[string]bool{"a": true},
			p:         retrieval.ConverseParams{Answer: 0.5},
			want:      []retrieval.Hit{{ID: "b", Score: 1}, {ID: "a", Score: 1.0 / 3}},
		},
		{
			name:  "SelfAndDuplicatesIgnored",
			hits:  []retrieval.Hit{{ID: "a", Score: 2}, {ID: "a", Score: 1}},
			links: map[string][]retrieval.Link{"a": {{ID: "a", After: true}}},
			p:     retrieval.ConverseParams{Context: 1},
			want:  []retrieval.Hit{{ID: "a", Score: 1}},
		},
		{
			// "stray" is the best single match, in session "L"; "t1"
			// matches less, but its session "S" is the stronger (1
			// against L's 0.2), so t1 comes first. A turn in no session,
			// or in one without a strength, gains nothing.
			name:      "SessionStrength",
			hits:      []retrieval.Hit{{ID: "stray", Score: 10}, {ID: "t1", Score: 8}, {ID: "t2", Score: 5}, {ID: "loose", Score: 9}, {ID: "other", Score: 7}},
			sessionOf: map[string]string{"stray": "L", "t1": "S", "t2": "S", "other": "O"},
			p:         retrieval.ConverseParams{Session: 0.5, Strength: map[string]float64{"S": 1, "L": 0.2}},
			want: []retrieval.Hit{{ID: "t1", Score: 1.3}, {ID: "stray", Score: 1.1}, {ID: "t2", Score: 1},
				{ID: "loose", Score: 0.9}, {ID: "other", Score: 0.7}},
			parts: map[string]retrieval.Parts{"t2": {Own: 0.5, Session: 0.5}, "loose": {Own: 0.9}, "other": {Own: 0.7}},
		},
		{
			// A neighbour found only by context gains its session's
			// strength too.
			name:      "SessionLiftsNeighbours",
			hits:      []retrieval.Hit{{ID: "a", Score: 3}, {ID: "b", Score: 3}, {ID: "c", Score: 3}},
			links:     map[string][]retrieval.Link{"a": {{ID: "n", After: true}}},
			sessionOf: map[string]string{"a": "S", "b": "S", "c": "S", "n": "S"},
			p:         retrieval.ConverseParams{Context: 0.5, Session: 0.5, Strength: map[string]float64{"S": 1}},
			want:      []retrieval.Hit{{ID: "a", Score: 1.5}, {ID: "b", Score: 1.5}, {ID: "c", Score: 1.5}, {ID: "n", Score: 1}},
			parts:     map[string]retrieval.Parts{"n": {Context: 0.5, Session: 0.5}},
		},
		{
			// "r" (an assistant's reply, prior 0.4) matches best, but
			// its own score, what it lends and what it is lent are
			// weighed by the prior: 0.4×1 own, 0.4×0.9×0.8 lent by the
			// question "u" before it; "u" 0.8 own, 0.3×0.4 lent by "r".
			name:      "Prior",
			hits:      []retrieval.Hit{{ID: "r", Score: 10}, {ID: "u", Score: 8}},
			links:     map[string][]retrieval.Link{"u": {{ID: "r", After: true}}, "r": {{ID: "u"}}},
			questions: map[string]bool{"u": true},
			p:         retrieval.ConverseParams{Context: 0.3, Answer: 0.9, Prior: map[string]float64{"r": 0.4}},
			want:      []retrieval.Hit{{ID: "u", Score: 0.8 + 0.3*0.4}, {ID: "r", Score: 0.4 + 0.4*0.9*0.8}},
			parts:     map[string]retrieval.Parts{"u": {Own: 0.8, Context: 0.12}, "r": {Own: 0.4, Context: 0.4 * 0.9 * 0.8}},
		},
		{name: "Empty", p: ctx},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, parts := retrieval.Converse(tt.hits, tt.links, tt.questions, tt.sessionOf, tt.p)
			if len(got) != len(tt.want) {
				t.Fatalf("got %v, want %v", got, tt.want)
			}
			for i := range got {
				if got[i].ID != tt.want[i].ID || !near(got[i].Score, tt.want[i].Score) {
					t.Fatalf("got %v, want %v", got, tt.want)
				}
			}
			for id, want := range tt.parts {
				p := parts[id]
				if !near(p.Own, want.Own) || !near(p.Context, want.Context) || !near(p.Session, want.Session) {
					t.Errorf("parts of %s = %+v, want %+v", id, p, want)
				}
			}
		})
	}
}
