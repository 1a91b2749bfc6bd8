package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/loci-memory/loci/rules"
)

// synthetic is a tiny LoCoMo-format file: two conversations, questions
// with every shape of evidence.
const synthetic = `[
 {"sample_id": "s1", "conversation": {
   "speaker_a": "Ann", "speaker_b": "Bob",
   "session_1_date_time": "1:56 pm on 8 May, 2023",
   "session_1": [
     {"speaker": "Ann", "dia_id": "D1:1", "text": "I adopted a puppy called Biscuit"},
     {"speaker": "Bob", "dia_id": "D1:2", "text": "My sister plays the cello in an orchestra"},
     {"speaker": "Ann", "dia_id": "D1:3", "text": "Look at this", "blip_caption": "a photo of a lighthouse at sunset"}
   ],
   "session_2_date_time": "7:48 pm on 21 May, 2023",
   "session_2": [
     {"speaker": "Bob", "dia_id": "D2:1", "text": "I started learning Portuguese"},
     {"speaker": "Ann", "dia_id": "D2:2", "text": "Biscuit chewed my shoes again"}
   ]},
  "qa": [
   {"question": "What is the name of Ann's puppy?", "evidence": ["D1:1"], "category": 4},
   {"question": "What did Ann photograph?", "evidence": ["D1:03"], "category": 1},
   {"question": "What did the puppy Biscuit do?", "evidence": ["D1:1; D2:2"], "category": 1},
   {"question": "Which language is Bob learning?", "evidence": ["D2:1", "D9:9"], "category": 2},
   {"question": "No evidence", "evidence": [], "category": 3},
   {"question": "Bad evidence", "evidence": ["D", "D9:9"], "category": 3},
   {"question": "Adversarial cello question", "evidence": ["D1:2"], "category": 5}
  ]},
 {"sample_id": "s2", "conversation": {
   "session_1_date_time": "1:56 pm on 8 May, 2023",
   "session_1": [
     {"speaker": "Cat", "dia_id": "D1:1", "text": "My puppy is named Rex"},
     {"speaker": "Dan", "dia_id": "D1:2", "text": "Portuguese is hard"}
   ]},
  "qa": [
   {"question": "What is the puppy called?", "evidence": ["D1:1"], "category": 4}
  ]}
]`

func writeFile(t *testing.T, content string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "locomo.json")
	if err := os.WriteFile(p, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestNormDiaIDs(t *testing.T) {
	tests := []struct {
		in   string
		want []string
	}{
		{"D1:3", []string{"D1:3"}},
		{"D30:05", []string{"D30:5"}},
		{"D8:6; D9:17", []string{"D8:6", "D9:17"}},
		{"D:11:26", []string{"D11:26"}},
		{"D", nil},
		{"", nil},
		{"x1:2", nil},
	}
	for _, tt := range tests {
		if got := normDiaIDs(tt.in); !slices.Equal(got, tt.want) {
			t.Errorf("normDiaIDs(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestEvalLocomo(t *testing.T) {
	path := writeFile(t, synthetic)
	var stdout, stderr bytes.Buffer
	code := run(context.Background(), []string{"eval", "locomo", "--data", path, "--k", "1,3", "--json"}, nil, &stdout, &stderr)
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, stderr.String())
	}
	var rep struct {
		Categories map[string]map[string]float64 `json:"categories"`
		Skipped    int                           `json:"skipped"`
	}
	if err := json.Unmarshal(stdout.Bytes(), &rep); err != nil {
		t.Fatalf("output is not the JSON report: %v\n%s", err, stdout.String())
	}
	if rep.Skipped != 2 {
		t.Errorf("skipped = %d, want 2", rep.Skipped)
	}
	wantKeys := []string{"1", "2", "3", "4", "5", "1-4"}
	for _, k := range wantKeys {
		m, ok := rep.Categories[k]
		if !ok {
			t.Fatalf("category %s missing", k)
		}
		for _, f := range []string{"n", "recall@1", "recall@3", "hit@1", "hit@3", "mrr"} {
			if _, ok := m[f]; !ok {
				t.Errorf("category %s lacks %s", k, f)
			}
		}
		if len(m) != 6 {
			t.Errorf("category %s has fields %v", k, m)
		}
	}
	if len(rep.Categories) != len(wantKeys) {
		t.Errorf("categories = %v", rep.Categories)
	}
	n := func(c string) int { return int(rep.Categories[c]["n"]) }
	if n("1") != 2 || n("2") != 1 || n("3") != 0 || n("4") != 2 || n("5") != 1 || n("1-4") != 5 {
		t.Errorf("n per category: %v", rep.Categories)
	}
	// Category 4: both puppy questions find their turn first, each in its
	// own conversation (Rex is not Biscuit).
	if got := rep.Categories["4"]["recall@1"]; got != 1 {
		t.Errorf("category 4 recall@1 = %v, want 1", got)
	}
	// Category 2: the one usable evidence id (D9:9 does not exist).
	if got := rep.Categories["2"]["recall@1"]; got != 1 {
		t.Errorf("category 2 recall@1 = %v, want 1", got)
	}
	// The two-evidence question can find at most one in the top 1.
	for _, c := range []string{"1", "1-4"} {
		for _, k := range []string{"1", "3"} {
			r, h := rep.Categories[c]["recall@"+k], rep.Categories[c]["hit@"+k]
			if r < 0 || r > 1 || h < r {
				t.Errorf("category %s @%s: recall %v hit %v", c, k, r, h)
			}
		}
	}
	if got := rep.Categories["1"]["recall@1"]; got >= 1 {
		t.Errorf("category 1 recall@1 = %v, want < 1 (two evidence turns, one slot)", got)
	}
	// MRR: both puppy questions find their turn first; the adversarial
	// question's turn is found (its score is a reciprocal rank).
	if got := rep.Categories["4"]["mrr"]; got != 1 {
		t.Errorf("category 4 MRR = %v, want 1", got)
	}
	if got := rep.Categories["5"]["mrr"]; got <= 0 || got > 1 {
		t.Errorf("category 5 MRR = %v, want in (0, 1]", got)
	}
	if got := rep.Categories["3"]["mrr"]; got != 0 {
		t.Errorf("category 3 (no question scored) MRR = %v, want 0", got)
	}
	// The image caption is searchable.
	if got := rep.Categories["1"]["hit@3"]; got != 1 {
		t.Errorf("category 1 hit@3 = %v, want 1", got)
	}

	t.Run("Table", func(t *testing.T) {
		var out, errb bytes.Buffer
		if code := run(context.Background(), []string{"eval", "locomo", "--data", path}, nil, &out, &errb); code != exitOK {
			t.Fatalf("exit %d: %s", code, errb.String())
		}
		for _, want := range []string{"recall@10", "hit@50", "MRR", "1-4", "headline: categories 1-4 recall@10", "adversarial (5) recall@10", "skipped (no usable evidence): 2"} {
			if !strings.Contains(out.String(), want) {
				t.Errorf("table lacks %q:\n%s", want, out.String())
			}
		}
	})
}

// TestEvalDump: --dump writes one line per scored question: its query,
// evidence, the rank each evidence turn got in the search with each
// limit, and what the largest search returned.
func TestEvalDump(t *testing.T) {
	path := writeFile(t, synthetic)
	dump := filepath.Join(t.TempDir(), "ranks.jsonl")
	var stdout, stderr bytes.Buffer
	if code := run(context.Background(), []string{"eval", "locomo", "--data", path, "--k", "1,3", "--dump", dump}, nil, &stdout, &stderr); code != exitOK {
		t.Fatalf("exit %d: %s", code, stderr.String())
	}
	raw, err := os.ReadFile(dump)
	if err != nil {
		t.Fatal(err)
	}
	type line struct {
		Conversation, Category, Question string
		Evidence                         []string
		Ranks                            map[string][]int
		Returned                         []string
	}
	var lines []line
	for _, l := range strings.Split(strings.TrimSpace(string(raw)), "\n") {
		var x line
		if err := json.Unmarshal([]byte(l), &x); err != nil {
			t.Fatalf("line %q: %v", l, err)
		}
		lines = append(lines, x)
	}
	if len(lines) != 6 { // 8 questions, 2 skipped
		t.Fatalf("%d lines, want 6:\n%s", len(lines), raw)
	}
	byQ := map[string]line{}
	for _, l := range lines {
		byQ[l.Question] = l
		if len(l.Ranks) != 2 || len(l.Ranks["1"]) != len(l.Evidence) || len(l.Ranks["3"]) != len(l.Evidence) || len(l.Returned) > 3 {
			t.Errorf("line %+v: want ranks at 1 and 3 for each evidence turn, at most 3 returned", l)
		}
		for k, ranks := range l.Ranks {
			for _, r := range ranks {
				if n, _ := strconv.Atoi(k); r < 0 || r > n {
					t.Errorf("line %+v: rank %d in the search with limit %s", l, r, k)
				}
			}
		}
	}
	puppy := byQ["What is the name of Ann's puppy?"]
	if puppy.Conversation != "s1" || puppy.Category != "4" || !slices.Equal(puppy.Evidence, []string{"D1:1"}) ||
		!slices.Equal(puppy.Ranks["1"], []int{1}) || len(puppy.Returned) == 0 || puppy.Returned[0] != "D1:1" {
		t.Errorf("puppy question: %+v", puppy)
	}
	// Only the usable evidence id is listed.
	if got := byQ["Which language is Bob learning?"].Evidence; !slices.Equal(got, []string{"D2:1"}) {
		t.Errorf("evidence %v, want [D2:1]", got)
	}
	if got := byQ["What did the puppy Biscuit do?"].Evidence; !slices.Equal(got, []string{"D1:1", "D2:2"}) {
		t.Errorf("evidence %v, want [D1:1 D2:2]", got)
	}
}

func TestEvalErrors(t *testing.T) {
	good := writeFile(t, synthetic)
	bad := writeFile(t, `{"not": "a list"}`)
	tests := []struct {
		name string
		args []string
		code int
	}{
		{"ErrNoDataset", []string{"eval"}, exitUsage},
		{"ErrUnknownDataset", []string{"eval", "squad", "--data", good}, exitUsage},
		{"ErrNoData", []string{"eval", "locomo"}, exitUsage},
		{"ErrBadK", []string{"eval", "locomo", "--data", good, "--k", "1,x"}, exitUsage},
		{"ErrZeroK", []string{"eval", "locomo", "--data", good, "--k", "0"}, exitUsage},
		{"ErrMissingFile", []string{"eval", "locomo", "--data", filepath.Join(t.TempDir(), "nope.json")}, exitDomain},
		{"ErrNotLocomo", []string{"eval", "locomo", "--data", bad}, exitDomain},
		{"ErrDumpUnwritable", []string{"eval", "locomo", "--data", good, "--dump", filepath.Join(t.TempDir(), "no", "such", "dir.jsonl")}, exitDomain},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var out, errb bytes.Buffer
			if code := run(context.Background(), tt.args, nil, &out, &errb); code != tt.code {
				t.Fatalf("exit %d, want %d (%s)", code, tt.code, errb.String())
			}
		})
	}
}

func TestRankingWithout(t *testing.T) {
	d := rules.DefaultRanking()
	p, err := rankingWithout(d, "context, date")
	if err != nil {
		t.Fatal(err)
	}
	if p.ContextWeight != 0 || p.AnswerWeight != 0 || p.DateWeight != 0 || p.DateBoost != 0 || p.SessionWeight != d.SessionWeight {
		t.Errorf("without context and date: %+v", p)
	}
	if p, _ := rankingWithout(d, "answer"); p.AnswerWeight != d.ContextWeight || p.ContextWeight != d.ContextWeight {
		t.Errorf("without answer: the message after a question gets %v, want the context weight %v", p.AnswerWeight, d.ContextWeight)
	}
	if p, _ := rankingWithout(d, "participant"); p.ParticipantBoost != 0 || p.MentionBoost != 0 || d.ParticipantBoost == 0 {
		t.Errorf("without participant: boosts %v and %v, want 0 (default %v)", p.ParticipantBoost, p.MentionBoost, d.ParticipantBoost)
	}
	if p, _ := rankingWithout(d, "mention"); p.MentionBoost != 0 || p.ParticipantBoost != d.ParticipantBoost {
		t.Errorf("without mention: %+v", p)
	}
	if p, _ := rankingWithout(d, "assistant"); p.AssistantWeight != 0 || d.AssistantWeight == 0 || p.ContextWeight != d.ContextWeight {
		t.Errorf("without assistant: prior %v, want 0 (default %v)", p.AssistantWeight, d.AssistantWeight)
	}
	if _, err := rankingWithout(d, "session,colour"); err == nil || !strings.Contains(err.Error(), `not "colour"`) {
		t.Errorf("an unknown signal: %v", err)
	}
}
