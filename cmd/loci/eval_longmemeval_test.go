package main

import (
	"bytes"
	"context"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// lmeQ builds one LongMemEval-format question: sessions are given as
// id, date and turns ("user: …" or "assistant: …", a trailing " *" marks
// has_answer).
func lmeQ(id, typ, question string, answers []string, sessions ...[]string) map[string]any {
	q := map[string]any{"question_id": id, "question_type": typ, "question": question,
		"question_date": "2023/06/01 (Thu) 10:00", "answer": "unused", "answer_session_ids": answers}
	var ids, dates []string
	var hay [][]map[string]any
	for _, s := range sessions {
		ids, dates = append(ids, s[0]), append(dates, s[1])
		var turns []map[string]any
		for _, t := range s[2:] {
			role, content, _ := strings.Cut(t, ": ")
			turn := map[string]any{"role": role, "content": content}
			if c, ok := strings.CutSuffix(content, " *"); ok {
				turn["content"], turn["has_answer"] = c, true
			}
			turns = append(turns, turn)
		}
		hay = append(hay, turns)
	}
	q["haystack_session_ids"], q["haystack_dates"], q["haystack_sessions"] = ids, dates, hay
	return q
}

// lmeFixture writes a tiny LongMemEval-format data set: a directory with
// one file holding a question and one holding a list of three. It
// returns the directory and the list file.
func lmeFixture(t *testing.T) (dir, list string) {
	t.Helper()
	filler := func(id, date string) []string {
		return []string{id, date, "user: Can you recommend a good pasta recipe for dinner?",
			"assistant: Try spaghetti with garlic, olive oil and chilli flakes."}
	}
	kayak := lmeQ("q_kayak", "single-session-user", "What did I name my kayak?", []string{"s_kayak"},
		filler("f1", "2023/05/01 (Mon) 09:00"),
		[]string{"s_kayak", "2023/05/02 (Tue) 09:00", "user: I bought a red kayak last week and named it Nimbus. *",
			"assistant: Nimbus is a lovely name for a boat.", "user: Thanks, talk soon."},
		filler("f2", "2023/05/03 (Wed) 09:00"))
	guitar := lmeQ("q_guitar", "multi-session", "How many guitar lessons did I take in total?", []string{"g1", "g2"},
		[]string{"g1", "2023/04/01 (Sat) 18:00", "user: I took three guitar lessons with my teacher in April. *",
			"assistant: Three guitar lessons is a great start."},
		filler("f1", "2023/04/10 (Mon) 09:00"),
		filler("f1", "2023/04/20 (Thu) 09:00"), // the same session id again
		[]string{"g2", "2023/05/01 (Mon) 18:00", "user: ", "user: I took two more guitar lessons this month. *"})
	unanswerable := lmeQ("q_none", "single-session-user", "What is my cat called?", nil,
		filler("f1", "2023/05/01 (Mon) 09:00"))
	pref := lmeQ("q_pref", "single-session-preference", "Any tips for my sourdough starter?", []string{"s_bread"},
		filler("f9", "2023/05/01 (Mon) 09:00"),
		[]string{"s_bread", "2023/05/05 (Fri) 09:00", "user: My sourdough starter smells of acetone, I feed it rye flour. *",
			"assistant: Feed it more often."})
	dir = t.TempDir()
	write := func(name string, v any) string {
		raw, err := json.Marshal(v)
		if err != nil {
			t.Fatal(err)
		}
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, raw, 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	write("1_kayak.json", kayak)
	list = write("2_rest.json", []any{guitar, unanswerable, pref})
	if err := os.WriteFile(filepath.Join(dir, "notes.txt"), []byte("not a question"), 0o600); err != nil {
		t.Fatal(err)
	}
	return dir, list
}

type lmeOut struct {
	Types            map[string]map[string]float64 `json:"types"`
	SkippedQuestions int                           `json:"skipped_questions"`
	SkippedTurns     int                           `json:"skipped_turns"`
}

func runLME(t *testing.T, args ...string) lmeOut {
	t.Helper()
	var stdout, stderr bytes.Buffer
	if code := run(context.Background(), append([]string{"eval", "longmemeval"}, args...), nil, &stdout, &stderr); code != exitOK {
		t.Fatalf("exit %d: %s", code, stderr.String())
	}
	var out lmeOut
	if err := json.Unmarshal(stdout.Bytes(), &out); err != nil {
		t.Fatalf("output is not the JSON report: %v\n%s", err, stdout.String())
	}
	return out
}

// TestEvalLongMemEval: every question of the directory is loaded into a
// scope of its own and asked; the report holds LongMemEval's session and
// turn metrics per question type and over all questions.
func TestEvalLongMemEval(t *testing.T) {
	dir, list := lmeFixture(t)
	dump := filepath.Join(t.TempDir(), "lme.jsonl")
	out := runLME(t, "--data", dir, "--k", "1,3", "--json", "--dump", dump)
	if out.SkippedQuestions != 1 || out.SkippedTurns != 1 {
		t.Errorf("skipped %d questions and %d turns, want 1 and 1 (no answer session; an empty turn)", out.SkippedQuestions, out.SkippedTurns)
	}
	wantTypes := []string{"single-session-user", "multi-session", "single-session-preference", "all"}
	if len(out.Types) != len(wantTypes) {
		t.Errorf("types %v, want %v", out.Types, wantTypes)
	}
	for _, typ := range wantTypes {
		m := out.Types[typ]
		if m == nil {
			t.Fatalf("type %s missing: %v", typ, out.Types)
		}
		// n, turn_n and 3 metrics × 2 levels × 2 cut-offs.
		if len(m) != 14 {
			t.Errorf("type %s has %d fields: %v", typ, len(m), m)
		}
		for key, v := range m {
			if !strings.HasSuffix(key, "n") && (v < 0 || v > 1) {
				t.Errorf("type %s %s = %v, want in [0, 1]", typ, key, v)
			}
		}
	}
	if n := out.Types["all"]["n"]; n != 3 {
		t.Errorf("all: n = %v, want 3", n)
	}
	// The kayak's session and turn are found first, in the question's
	// own scope (no other question holds the word).
	user := out.Types["single-session-user"]
	for _, key := range []string{"session_recall_any@1", "session_recall_all@1", "session_ndcg_any@1", "turn_recall_any@3", "turn_recall_all@3"} {
		if user[key] != 1 {
			t.Errorf("single-session-user %s = %v, want 1", key, user[key])
		}
	}
	// Two evidence sessions: one in the top 1 at most, both in the top 3.
	multi := out.Types["multi-session"]
	if multi["session_recall_any@1"] != 1 || multi["session_recall_all@1"] != 0 || multi["session_recall_all@3"] != 1 {
		t.Errorf("multi-session: %v", multi)
	}
	if got := multi["session_ndcg_any@1"]; got != 1 {
		t.Errorf("multi-session session_ndcg_any@1 = %v, want 1 (an evidence session first)", got)
	}

	raw, err := os.ReadFile(dump)
	if err != nil {
		t.Fatal(err)
	}
	lines := map[string]lmeDump{}
	for _, l := range strings.Split(strings.TrimSpace(string(raw)), "\n") {
		var d lmeDump
		if err := json.Unmarshal([]byte(l), &d); err != nil {
			t.Fatalf("dump line %q: %v", l, err)
		}
		lines[d.QuestionID] = d
	}
	if len(lines) != 3 {
		t.Fatalf("%d dump lines, want 3 (the unanswerable question is skipped):\n%s", len(lines), raw)
	}
	g := lines["q_guitar"]
	if !slices.Equal(g.EvidenceSessions, []string{"g1", "g2"}) || !slices.Equal(g.EvidenceTurns, []string{"g1:0", "g2:1"}) ||
		g.Type != "multi-session" || g.QuestionDate != "2023/06/01 (Thu) 10:00" {
		t.Errorf("guitar line: %+v", g)
	}
	// Both evidence turns are returned (the empty turn g2:0 was not
	// stored; the one after it keeps its index), and the session ranking
	// is the order their first turns came in.
	if slices.Contains(g.TurnRanks, 0) || slices.Contains(g.SessionRanks, 0) || slices.Contains(g.Returned, "g2:0") {
		t.Errorf("guitar ranks: %+v", g)
	}
	var firstSeen []string
	for _, r := range g.Returned {
		s, _, _ := strings.Cut(r, ":")
		if !slices.Contains(firstSeen, s) {
			firstSeen = append(firstSeen, s)
		}
	}
	for i, s := range g.EvidenceSessions {
		if r := g.SessionRanks[i]; r < 1 || r > len(firstSeen) || firstSeen[r-1] != s {
			t.Errorf("session %s has rank %d; returned %v", s, g.SessionRanks[i], g.Returned)
		}
	}
	for i, tr := range g.EvidenceTurns {
		if r := g.TurnRanks[i]; r < 1 || r > len(g.Returned) || g.Returned[r-1] != tr {
			t.Errorf("turn %s has rank %d; returned %v", tr, g.TurnRanks[i], g.Returned)
		}
	}
	if k := lines["q_kayak"]; len(k.Returned) == 0 || k.Returned[0] != "s_kayak:0" || !slices.Equal(k.TurnRanks, []int{1}) {
		t.Errorf("kayak line: %+v", k)
	}

	t.Run("ListFile", func(t *testing.T) {
		out := runLME(t, "--data", list, "--k", "3", "--json")
		if out.Types["all"]["n"] != 2 || out.Types["single-session-user"] != nil || out.SkippedQuestions != 1 {
			t.Errorf("the list file: %+v", out)
		}
		if got := out.Types["multi-session"]["session_recall_all@3"]; got != 1 {
			t.Errorf("multi-session session_recall_all@3 = %v, want 1", got)
		}
	})
	t.Run("Table", func(t *testing.T) {
		var stdout, stderr bytes.Buffer
		if code := run(context.Background(), []string{"eval", "longmemeval", "--data", dir}, nil, &stdout, &stderr); code != exitOK {
			t.Fatalf("exit %d: %s", code, stderr.String())
		}
		for _, want := range []string{"any@10", "all@5", "ndcg@3", "multi-session", "headline (3 questions): turn R@5", "session R_all@5",
			"skipped: 1 questions (no answer session), 1 turns (empty)"} {
			if !strings.Contains(stdout.String(), want) {
				t.Errorf("table lacks %q:\n%s", want, stdout.String())
			}
		}
	})
	t.Run("Without", func(t *testing.T) {
		out := runLME(t, "--data", dir, "--k", "1", "--json", "--without", "context,session")
		if out.Types["all"]["n"] != 3 {
			t.Errorf("without context and session: %+v", out)
		}
	})
}

// TestLMERetrievalMetrics: recall_any, recall_all and NDCG at each
// cut-off, with LongMemEval's discount (ranks 1 and 2 undiscounted).
func TestLMERetrievalMetrics(t *testing.T) {
	sum := map[string]float64{}
	addRetrieval(sum, "x_", []string{"a", "b", "c", "d"}, []string{"b", "d", "z"}, []int{1, 2, 4, 10})
	want := map[string]float64{
		"x_recall_any@2": 1, "x_recall_any@4": 1, "x_recall_any@10": 1,
		"x_ndcg_any@2":  1.0 / 2,                              // b at rank 2 (weight 1) of an ideal 1 + 1
		"x_ndcg_any@4":  (1 + 0.5) / (1 + 1 + 1/math.Log2(3)), // b and d (1/log2 4) of three
		"x_ndcg_any@10": (1 + 0.5) / (1 + 1 + 1/math.Log2(3)),
	}
	for key, w := range want {
		if math.Abs(sum[key]-w) > 1e-12 {
			t.Errorf("%s = %v, want %v", key, sum[key], w)
		}
	}
	for key, v := range sum {
		if _, ok := want[key]; !ok && v != 0 {
			t.Errorf("%s = %v, want 0", key, v)
		}
	}
	all := map[string]float64{}
	addRetrieval(all, "", []string{"b", "a", "d"}, []string{"d", "b"}, []int{3})
	if all["recall_all@3"] != 1 || all["recall_any@3"] != 1 || math.Abs(all["ndcg_any@3"]-(1+1/math.Log2(3))/2) > 1e-12 {
		t.Errorf("both found: %v", all)
	}
}

func TestEvalLongMemEvalErrors(t *testing.T) {
	dir, list := lmeFixture(t)
	bad := func(v string) string {
		p := filepath.Join(t.TempDir(), "bad.json")
		if err := os.WriteFile(p, []byte(v), 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	good := `{"question_id": "q", "question_type": "t", "question": "where are my keys?", "question_date": "2023/06/01 (Thu) 10:00",
		"answer_session_ids": ["s"], "haystack_session_ids": ["s"], "haystack_dates": [%s],
		"haystack_sessions": [[{"role": "user", "content": "the keys are in the drawer"}]]}`
	tests := []struct {
		name string
		args []string
		code int
		msg  string
	}{
		{"ErrNoData", []string{"--k", "5"}, exitUsage, "--data is required"},
		{"ErrKOverLimit", []string{"--data", dir, "--k", "5,51"}, exitUsage, "up to 50"},
		{"ErrMissing", []string{"--data", filepath.Join(t.TempDir(), "nope")}, exitDomain, "nope"},
		{"ErrEmptyDir", []string{"--data", t.TempDir()}, exitDomain, "holds no .json file"},
		{"ErrNotJSON", []string{"--data", bad("not json")}, exitDomain, "is not a LongMemEval JSON file"},
		{"ErrNotQuestion", []string{"--data", bad(`"a string"`)}, exitDomain, "is not a LongMemEval JSON file"},
		{"ErrNoID", []string{"--data", bad(`[{"question": "x"}]`)}, exitDomain, "no question_id"},
		{"ErrUnpaired", []string{"--data", bad(strings.Replace(good, "%s", "", 1))}, exitDomain, "as many of each"},
		{"ErrBadDate", []string{"--data", bad(strings.Replace(good, "%s", `"yesterday"`, 1))}, exitDomain, `date "yesterday"`},
		{"ErrBadQuestionDate", []string{"--data", bad(strings.Replace(strings.Replace(good, "%s", `"2023/05/01"`, 1), "2023/06/01 (Thu) 10:00", "tomorrow", 1))},
			exitDomain, `question q: date "tomorrow"`},
		{"ErrTwice", []string{"--data", bad("[" + strings.Replace(good, "%s", `"2023/05/01"`, 1) + "," + strings.Replace(good, "%s", `"2023/05/01"`, 1) + "]")}, exitDomain, "there twice"},
		{"ErrUnknownSignal", []string{"--data", list, "--without", "colour"}, exitUsage, `not "colour"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var out, errb bytes.Buffer
			if code := run(context.Background(), append([]string{"eval", "longmemeval"}, tt.args...), nil, &out, &errb); code != tt.code || !strings.Contains(errb.String(), tt.msg) {
				t.Fatalf("exit %d (%s), want %d and %q", code, errb.String(), tt.code, tt.msg)
			}
		})
	}
	t.Run("Good", func(t *testing.T) {
		out := runLME(t, "--data", bad(strings.Replace(good, "%s", `"2023/05/01"`, 1)), "--k", "1", "--json")
		if out.Types["all"]["turn_recall_any@1"] != 0 || out.Types["all"]["session_recall_any@1"] != 1 || out.Types["all"]["turn_n"] != 0 {
			t.Errorf("a question without has_answer turns is scored on sessions only: %+v", out)
		}
	})
}

// TestEvalLongMemEvalReferenceDate: each question is asked on its date
// (question_date is the search's reference_date): "10 days ago" is read
// against it, and finds the session written then over one that matches
// the words better months before.
func TestEvalLongMemEvalReferenceDate(t *testing.T) {
	q := lmeQ("q_risotto", "temporal-reasoning", "What did I cook 10 days ago?", []string{"recent"},
		[]string{"old", "2023/03/01 (Wed) 19:00", "user: I cooked a mushroom risotto; the risotto I cooked was the best I ever cooked.",
			"assistant: Well done."},
		[]string{"recent", "2023/05/22 (Mon) 19:00", "user: I cooked a mushroom risotto for dinner. *", "assistant: Sounds tasty."})
	raw, err := json.Marshal(q)
	if err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(t.TempDir(), "q.json")
	if err := os.WriteFile(p, raw, 0o600); err != nil {
		t.Fatal(err)
	}
	out := runLME(t, "--data", p, "--k", "1", "--json")
	if got := out.Types["all"]["turn_recall_any@1"]; got != 1 {
		t.Errorf("turn_recall_any@1 = %v, want 1: the turn of 10 days before the question's date first", got)
	}
	out = runLME(t, "--data", p, "--k", "1", "--json", "--without", "date")
	if got := out.Types["all"]["turn_recall_any@1"]; got != 0 {
		t.Errorf("without the date signal: turn_recall_any@1 = %v, want 0 (the better match of March first)", got)
	}
}
