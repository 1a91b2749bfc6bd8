package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/loci-memory/loci"
	"github.com/loci-memory/loci/rules"
	"github.com/loci-memory/loci/sqlite"
)

// lmeSearchLimit is the limit each LongMemEval question is asked with:
// every cut-off is scored on the one ranking it returns.
const lmeSearchLimit = 50

// lmeQuestion is one question of LongMemEval: its haystack of dated chat
// sessions, the sessions that hold its answer (the session-level
// evidence) and, in them, the turns marked has_answer (the turn-level
// evidence). The answer itself is not read.
type lmeQuestion struct {
	QuestionID         string      `json:"question_id"`
	QuestionType       string      `json:"question_type"`
	Question           string      `json:"question"`
	QuestionDate       string      `json:"question_date"`
	AnswerSessionIDs   []string    `json:"answer_session_ids"`
	HaystackSessionIDs []string    `json:"haystack_session_ids"`
	HaystackDates      []string    `json:"haystack_dates"`
	HaystackSessions   [][]lmeTurn `json:"haystack_sessions"`
}

// lmeTurn is one turn of a haystack session.
type lmeTurn struct {
	Role      string `json:"role"`
	Content   string `json:"content"`
	HasAnswer bool   `json:"has_answer"`
}

// lmeTime parses a LongMemEval date such as "2023/05/30 (Tue) 23:40", in
// UTC.
func lmeTime(s string) (time.Time, error) {
	s = strings.TrimSpace(s)
	for _, layout := range []string{"2006/01/02 (Mon) 15:04", "2006/01/02 (Mon) 15:04:05", "2006/01/02"} {
		if t, err := time.Parse(layout, s); err == nil {
			return t.UTC(), nil
		}
	}
	return time.Time{}, fmt.Errorf("date %q is not like 2023/05/30 (Tue) 23:40", s)
}

// check reports what makes q unusable: no id, or a haystack whose ids,
// dates and sessions do not pair up.
func (q *lmeQuestion) check() error {
	if strings.TrimSpace(q.QuestionID) == "" {
		return errors.New("a question has no question_id")
	}
	if len(q.HaystackSessionIDs) != len(q.HaystackSessions) || len(q.HaystackDates) != len(q.HaystackSessions) {
		return fmt.Errorf("question %s: %d haystack_session_ids, %d haystack_dates, %d haystack_sessions; want as many of each",
			q.QuestionID, len(q.HaystackSessionIDs), len(q.HaystackDates), len(q.HaystackSessions))
	}
	return nil
}

// eachLMEQuestion calls fn with each question at path: a JSON file
// holding one question or a list of them, or a directory of such files
// (every *.json in it, in name order). A list is read one question at a
// time.
func eachLMEQuestion(path string, fn func(*lmeQuestion) error) error {
	st, err := os.Stat(path)
	if err != nil {
		return loci.Errorf(loci.EINVALID, "read %s: %v", path, err)
	}
	files := []string{path}
	if st.IsDir() {
		ents, err := os.ReadDir(path)
		if err != nil {
			return loci.Errorf(loci.EINVALID, "read %s: %v", path, err)
		}
		files = files[:0]
		for _, e := range ents {
			if !e.IsDir() && strings.HasSuffix(e.Name(), ".json") {
				files = append(files, filepath.Join(path, e.Name()))
			}
		}
		if len(files) == 0 {
			return loci.Errorf(loci.EINVALID, "%s holds no .json file", path)
		}
	}
	for _, f := range files {
		if err := eachLMEQuestionIn(f, fn); err != nil {
			return err
		}
	}
	return nil
}

// eachLMEQuestionIn calls fn with each question of one file.
func eachLMEQuestionIn(path string, fn func(*lmeQuestion) error) error {
	f, err := os.Open(path)
	if err != nil {
		return loci.Errorf(loci.EINVALID, "read %s: %v", path, err)
	}
	defer f.Close()
	r := bufio.NewReader(f)
	notLME := func(err error) error {
		return loci.Errorf(loci.EINVALID, "%s is not a LongMemEval JSON file: %v", path, err)
	}
	dec := json.NewDecoder(r)
	one := func() error {
		var q lmeQuestion
		if err := dec.Decode(&q); err != nil {
			return notLME(err)
		} else if err := q.check(); err != nil {
			return notLME(err)
		}
		return fn(&q)
	}
	first, err := firstByte(r)
	if err != nil {
		return notLME(err)
	}
	switch first {
	case '{':
		return one()
	case '[':
		if _, err := dec.Token(); err != nil {
			return notLME(err)
		}
		for dec.More() {
			if err := one(); err != nil {
				return err
			}
		}
		if _, err := dec.Token(); err != nil {
			return notLME(err)
		}
		return nil
	}
	return notLME(errors.New("want a question object or a list of them"))
}

// firstByte returns the first byte of r that is not JSON white space,
// leaving it unread.
func firstByte(r *bufio.Reader) (byte, error) {
	for {
		b, err := r.Peek(1)
		if err != nil {
			return 0, err
		}
		if !bytes.ContainsRune([]byte(" \t\r\n"), rune(b[0])) {
			return b[0], nil
		}
		if _, err := r.Discard(1); err != nil {
			return 0, err
		}
	}
}

// lmeReport is the --json output of `eval longmemeval`: per question type
// and over all questions ("all"), n and LongMemEval's retrieval metrics at
// each cut-off k, session level (session_recall_any@k,
// session_recall_all@k, session_ndcg_any@k) and turn level (the same with
// turn_, over the questions that have has_answer turns: turn_n).
// SkippedQuestions counts questions without answer sessions or question
// text; SkippedTurns the turns not stored (empty, or refused as a
// message).
type lmeReport struct {
	Types            map[string]map[string]float64 `json:"types"`
	SkippedQuestions int                           `json:"skipped_questions"`
	SkippedTurns     int                           `json:"skipped_turns"`
}

// lmeDump is one question's line in the --dump file. Turns are named
// SESSION:TURN (the haystack session id and the turn's 0-based index in
// it); ranks are 1-based, 0 for not returned (sessions ranked in the order
// their first turn was returned).
type lmeDump struct {
	QuestionID       string   `json:"question_id"`
	Type             string   `json:"question_type"`
	Question         string   `json:"question"`
	QuestionDate     string   `json:"question_date"`
	EvidenceSessions []string `json:"evidence_sessions"`
	SessionRanks     []int    `json:"session_ranks"`
	EvidenceTurns    []string `json:"evidence_turns"`
	TurnRanks        []int    `json:"turn_ranks"`
	Returned         []string `json:"returned"`
}

// lmeEval is a LongMemEval evaluation in progress: the service and its
// clock, the cut-offs and the sums of the metrics by question type.
type lmeEval struct {
	store loci.Store
	svc   *rules.Service
	clock *loci.FakeClock
	cuts  []int
	sums  map[string]map[string]float64
	rep   *lmeReport
}

// evalLongMemEval loads each question's haystack into a user scope of its
// own of a fresh in-memory store, as a user's conversations are stored:
// each session a session, its turns messages with their roles, written on
// the session's date. It then asks the question with limit
// lmeSearchLimit, scores the ranking with LongMemEval's metrics, and
// deletes the user. Sessions are ranked in the order their first turn is
// returned. When dump is set, one JSON line per question is written to it.
func evalLongMemEval(ctx context.Context, path string, cuts []int, dump io.Writer, opts ...rules.Option) (*lmeReport, error) {
	db, err := sqlite.Open(ctx, sqlite.Memory)
	if err != nil {
		return nil, err
	}
	clock := loci.NewFakeClock(time.Now())
	svc := rules.New(db, append(opts, rules.WithClock(clock))...)
	defer svc.Close()

	ev := &lmeEval{store: db, svc: svc, clock: clock, cuts: cuts, sums: map[string]map[string]float64{},
		rep: &lmeReport{Types: map[string]map[string]float64{}}}
	var enc *json.Encoder
	if dump != nil {
		enc = json.NewEncoder(dump)
	}
	seen := map[string]bool{}
	err = eachLMEQuestion(path, func(q *lmeQuestion) error {
		if seen[q.QuestionID] {
			return loci.Errorf(loci.EINVALID, "question %s is there twice", q.QuestionID)
		}
		seen[q.QuestionID] = true
		line, err := ev.question(ctx, q)
		if err != nil || line == nil || enc == nil {
			return err
		}
		if err := enc.Encode(line); err != nil {
			return fmt.Errorf("dump: %w", err)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	ev.report()
	return ev.rep, nil
}

// lmeTurnRef is a stored message's place in the haystack.
type lmeTurnRef struct {
	session string // the haystack session id
	turn    int    // the turn's index in its session
}

func (t lmeTurnRef) String() string { return t.session + ":" + strconv.Itoa(t.turn) }

// question loads q, asks it, scores it and deletes what it loaded; it
// returns q's dump line, nil when q is skipped.
func (ev *lmeEval) question(ctx context.Context, q *lmeQuestion) (*lmeDump, error) {
	if len(q.AnswerSessionIDs) == 0 || strings.TrimSpace(q.Question) == "" {
		ev.rep.SkippedQuestions++
		return nil, nil
	}
	user := "lme-" + q.QuestionID
	refs, err := ev.load(ctx, q, user)
	if err != nil {
		return nil, err
	}
	defer func() {
		ev.clock.Set(time.Now())
		_, _ = ev.svc.DeleteUser(ctx, user)
	}()
	// The question is asked on its date: relative times in it ("10 days
	// ago") are read against that date, and recency is measured from it.
	var ref string
	if strings.TrimSpace(q.QuestionDate) != "" {
		at, err := lmeTime(q.QuestionDate)
		if err != nil {
			return nil, loci.Errorf(loci.EINVALID, "question %s: %v", q.QuestionID, err)
		}
		ref = at.Format(time.RFC3339)
	}
	ev.clock.Set(time.Now())
	res, err := ev.svc.Search(ctx, loci.SearchQuery{Query: q.Question, UserID: user, Limit: lmeSearchLimit, ReferenceDate: ref})
	if err != nil {
		return nil, fmt.Errorf("question %s: %w", q.QuestionID, err)
	}
	var turns []lmeTurnRef
	for _, r := range res.Results {
		if t, ok := refs[r.ID]; ok {
			turns = append(turns, t)
		}
	}
	evSessions := distinctStrings(q.AnswerSessionIDs)
	var evTurns []lmeTurnRef
	for i, s := range q.HaystackSessions {
		for j, t := range s {
			ref := lmeTurnRef{q.HaystackSessionIDs[i], j}
			if t.HasAnswer && !slices.Contains(evTurns, ref) {
				evTurns = append(evTurns, ref)
			}
		}
	}
	var sessions []string // in the order their first turn was returned
	for _, t := range turns {
		if !slices.Contains(sessions, t.session) {
			sessions = append(sessions, t.session)
		}
	}
	line := &lmeDump{QuestionID: q.QuestionID, Type: q.QuestionType, Question: q.Question, QuestionDate: q.QuestionDate,
		EvidenceSessions: evSessions, SessionRanks: ranksOf(sessions, evSessions)}
	for _, t := range evTurns {
		line.EvidenceTurns = append(line.EvidenceTurns, t.String())
	}
	line.TurnRanks = ranksOf(turns, evTurns)
	for _, t := range turns {
		line.Returned = append(line.Returned, t.String())
	}
	for _, typ := range []string{q.QuestionType, "all"} {
		sum := ev.sums[typ]
		if sum == nil {
			sum = map[string]float64{}
			ev.sums[typ] = sum
		}
		sum["n"]++
		addRetrieval(sum, "session_", sessions, evSessions, ev.cuts)
		if len(evTurns) > 0 {
			sum["turn_n"]++
			addRetrieval(sum, "turn_", turns, evTurns, ev.cuts)
		}
	}
	return line, nil
}

// load stores q's haystack as the user's sessions and returns the
// haystack turn of each message record stored. A session is stored as
// QUESTION/SESSION (a session id repeated in the haystack gets ~N after
// it), its turns as its messages on the session's date, with the clock
// set to it, as a live writer would have stored them; an empty turn, or
// one a message may not be, is left out and counted.
func (ev *lmeEval) load(ctx context.Context, q *lmeQuestion, user string) (map[string]lmeTurnRef, error) {
	stored := map[string]string{} // stored session id -> haystack session id
	turnOf := map[string][]int{}  // stored session id -> turn index of each message
	for i, sid := range q.HaystackSessionIDs {
		at, err := lmeTime(q.HaystackDates[i])
		if err != nil {
			return nil, loci.Errorf(loci.EINVALID, "question %s, session %s: %v", q.QuestionID, sid, err)
		}
		id := q.QuestionID + "/" + sid
		for n := 2; stored[id] != ""; n++ {
			id = q.QuestionID + "/" + sid + "~" + strconv.Itoa(n)
		}
		stored[id] = sid
		var msgs []loci.Message
		for j, t := range q.HaystackSessions[i] {
			m := loci.Message{Role: t.Role, Content: t.Content, CreatedAt: at}
			if strings.TrimSpace(t.Content) == "" || m.Validate() != nil {
				ev.rep.SkippedTurns++
				continue
			}
			msgs = append(msgs, m)
			turnOf[id] = append(turnOf[id], j)
		}
		ev.clock.Set(at)
		if _, _, err := ev.svc.PutSession(ctx, id, loci.SessionPut{UserID: user, Messages: msgs}); err != nil {
			return nil, fmt.Errorf("question %s, session %s: %w", q.QuestionID, sid, err)
		}
	}
	if ev.svc.Embedder() != nil {
		if _, err := ev.svc.Reindex(ctx, nil); err != nil {
			return nil, err
		}
	}
	refs := map[string]lmeTurnRef{}
	msgCat := "message"
	err := ev.store.View(ctx, func(tx loci.Tx) error {
		return tx.ScanRecords(ctx, loci.RecordFilter{Workspace: loci.DefaultWorkspace, Kinds: []loci.Kind{loci.KindSession},
			UserID: &user, Category: &msgCat}, func(r *loci.Record) error {
			var d struct {
				Index int `json:"index"`
			}
			if err := json.Unmarshal(r.Data, &d); err != nil {
				return fmt.Errorf("message %s: %w", r.ID, err)
			}
			if turns := turnOf[r.SessionID]; d.Index >= 0 && d.Index < len(turns) {
				refs[r.ID] = lmeTurnRef{stored[r.SessionID], turns[d.Index]}
			}
			return nil
		})
	})
	return refs, err
}

// ranksOf returns the 1-based rank of each of want in ranked, 0 where it
// is not there.
func ranksOf[T comparable](ranked, want []T) []int {
	out := make([]int, len(want))
	for i, w := range want {
		out[i] = slices.Index(ranked, w) + 1
	}
	return out
}

// addRetrieval adds one question's metrics at each cut-off k to sum,
// under prefix: recall_any@k (an evidence item in the top k), recall_all@k
// (all of them) and ndcg_any@k (binary relevance; DCG as LongMemEval
// computes it: the first two ranks undiscounted, rank r > 1 by
// 1/log2(r); the ideal ranking puts the evidence first).
func addRetrieval[T comparable](sum map[string]float64, prefix string, ranked, evidence []T, cuts []int) {
	for _, k := range cuts {
		top := ranked[:min(k, len(ranked))]
		found := 0
		var dcg float64
		for i, x := range top {
			if slices.Contains(evidence, x) {
				found++
				dcg += discount(i + 1)
			}
		}
		var ideal float64
		for i := range min(k, len(evidence)) {
			ideal += discount(i + 1)
		}
		at := "@" + strconv.Itoa(k)
		if found > 0 {
			sum[prefix+"recall_any"+at]++
		}
		if found == len(evidence) {
			sum[prefix+"recall_all"+at]++
		}
		if ideal > 0 {
			sum[prefix+"ndcg_any"+at] += dcg / ideal
		}
	}
}

// discount is DCG's weight of rank r (1-based) as LongMemEval computes it.
func discount(r int) float64 {
	if r == 1 {
		return 1
	}
	return 1 / math.Log2(float64(r))
}

// distinctStrings returns ss without repeats, in order.
func distinctStrings(ss []string) []string {
	var out []string
	for _, s := range ss {
		if !slices.Contains(out, s) {
			out = append(out, s)
		}
	}
	return out
}

// report turns the sums into means: every metric of a type, each at
// every cut-off, 0 where no question of the type counts.
func (ev *lmeEval) report() {
	if ev.sums["all"] == nil {
		ev.sums["all"] = map[string]float64{}
	}
	for typ, sum := range ev.sums {
		m := map[string]float64{"n": sum["n"], "turn_n": sum["turn_n"]}
		for _, k := range ev.cuts {
			at := "@" + strconv.Itoa(k)
			for _, level := range []string{"session_", "turn_"} {
				n := sum["n"]
				if level == "turn_" {
					n = sum["turn_n"]
				}
				for _, metric := range []string{"recall_any", "recall_all", "ndcg_any"} {
					key := level + metric + at
					m[key] = 0
					if n > 0 {
						m[key] = round4(sum[key] / n)
					}
				}
			}
		}
		ev.rep.Types[typ] = m
	}
}

func (r *lmeReport) printTable(w io.Writer, cuts []int) {
	types := make([]string, 0, len(r.Types))
	for t := range r.Types {
		if t != "all" {
			types = append(types, t)
		}
	}
	sort.Strings(types)
	types = append(types, "all")
	for _, level := range []struct{ name, prefix, n string }{{"session", "session_", "n"}, {"turn", "turn_", "turn_n"}} {
		fmt.Fprintf(w, "%-26s %5s", level.name, "n")
		for _, k := range cuts {
			fmt.Fprintf(w, " %8s %8s %8s", fmt.Sprintf("any@%d", k), fmt.Sprintf("all@%d", k), fmt.Sprintf("ndcg@%d", k))
		}
		fmt.Fprintln(w)
		for _, t := range types {
			m := r.Types[t]
			fmt.Fprintf(w, "%-26s %5d", t, int(m[level.n]))
			for _, k := range cuts {
				at := "@" + strconv.Itoa(k)
				fmt.Fprintf(w, " %8.4f %8.4f %8.4f", m[level.prefix+"recall_any"+at], m[level.prefix+"recall_all"+at], m[level.prefix+"ndcg_any"+at])
			}
			fmt.Fprintln(w)
		}
		fmt.Fprintln(w)
	}
	// The headline: turn recall_any and session recall_all at 5 and 10
	// (or the cut-offs asked for).
	var parts []string
	all := r.Types["all"]
	for _, k := range headlineCuts(cuts) {
		at := "@" + strconv.Itoa(k)
		parts = append(parts, fmt.Sprintf("turn R%s %.4f", at, all["turn_recall_any"+at]))
	}
	for _, k := range headlineCuts(cuts) {
		at := "@" + strconv.Itoa(k)
		parts = append(parts, fmt.Sprintf("session R_all%s %.4f, R_any%s %.4f, NDCG%s %.4f", at, all["session_recall_all"+at], at, all["session_recall_any"+at], at, all["session_ndcg_any"+at]))
	}
	fmt.Fprintf(w, "headline (%d questions): %s\n", int(all["n"]), strings.Join(parts, "; "))
	fmt.Fprintf(w, "skipped: %d questions (no answer session), %d turns (empty)\n", r.SkippedQuestions, r.SkippedTurns)
}

// headlineCuts are the cut-offs the headline reports: 5 and 10 where
// asked for, else the largest.
func headlineCuts(cuts []int) []int {
	var out []int
	for _, k := range []int{5, 10} {
		if slices.Contains(cuts, k) {
			out = append(out, k)
		}
	}
	if len(out) == 0 {
		out = []int{cuts[len(cuts)-1]}
	}
	return out
}
