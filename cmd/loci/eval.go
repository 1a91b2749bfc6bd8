package main

import (
	"bufio"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/loci-memory/loci"
	"github.com/loci-memory/loci/analysis"
	"github.com/loci-memory/loci/rules"
	"github.com/loci-memory/loci/sqlite"
)

func runEval(ctx context.Context, e *env, args []string) error {
	sub, args, err := splitSubcommand("eval", args)
	if err != nil {
		return err
	}
	fs := flag.NewFlagSet("eval "+sub, flag.ContinueOnError)
	dataHelp, defaultKs := "a LoCoMo-format JSON file (required)", "1,3,5,10,20,50"
	if sub == "longmemeval" {
		dataHelp, defaultKs = "a LongMemEval-format JSON file, or a directory of them (required)", "1,3,5,10"
	}
	data := fs.String("data", "", dataHelp)
	ks := fs.String("k", defaultKs, "cut-offs, comma-separated")
	asJSON := fs.Bool("json", false, "print JSON instead of a table")
	dump := fs.String("dump", "", "write each question's query, evidence and the ranks its evidence got to `FILE` (JSON lines)")
	without := fs.String("without", "", "rank without these signals, comma-separated, to measure each one's share: "+strings.Join(evalSignals, ", "))
	thresholds := fs.String("thresholds", "", "also search with each of these thresholds (0-1, comma-separated) at limit 10 and report how "+
		"precision and recall move with them")
	cfg := loadConfig()
	cfg.hashVectorsFlag(fs)
	pos, err := cfg.parseFlags(fs, args)
	if err != nil {
		return err
	} else if len(pos) > 0 {
		return usagef("unexpected argument %q", pos[0])
	} else if *data == "" {
		return &usageError{msg: "--data is required", fs: fs}
	}
	maxK := loci.MaxSearchLimit
	if sub == "longmemeval" {
		maxK = lmeSearchLimit
	}
	cuts, err := parseKs(*ks, maxK)
	if err != nil {
		return err
	}
	ths, err := parseThresholds(*thresholds)
	if err != nil {
		return err
	}
	if len(ths) > 0 && sub == "longmemeval" {
		return usagef("--thresholds is for eval locomo")
	}
	opts, err := evalOptions(cfg, *without)
	if err != nil {
		return err
	}
	var dw *bufio.Writer
	var df *os.File
	if *dump != "" {
		if df, err = os.Create(*dump); err != nil {
			return loci.Errorf(loci.EINVALID, "create %s: %v", *dump, err)
		}
		defer df.Close()
		dw = bufio.NewWriter(df)
	}
	var dumpTo io.Writer
	if dw != nil {
		dumpTo = dw
	}
	var rep interface{ printTable(io.Writer, []int) }
	if sub == "longmemeval" {
		rep, err = evalLongMemEval(ctx, *data, cuts, dumpTo, opts...)
	} else {
		rep, err = evalLocomoFile(ctx, *data, cuts, ths, dumpTo, opts...)
	}
	if err != nil {
		return err
	}
	if dw != nil {
		if err := dw.Flush(); err != nil {
			return fmt.Errorf("write %s: %w", *dump, err)
		}
		if err := df.Close(); err != nil {
			return fmt.Errorf("write %s: %w", *dump, err)
		}
	}
	if *asJSON {
		return printJSON(e.stdout, rep)
	}
	rep.printTable(e.stdout, cuts)
	if r, ok := rep.(*evalReport); ok {
		r.printThresholds(e.stdout)
	}
	return nil
}

// parseThresholds reads --thresholds: numbers from 0 to 1, comma-separated,
// in ascending order.
func parseThresholds(s string) ([]float64, error) {
	if strings.TrimSpace(s) == "" {
		return nil, nil
	}
	var out []float64
	for _, p := range strings.Split(s, ",") {
		t, err := strconv.ParseFloat(strings.TrimSpace(p), 64)
		if err != nil || loci.ValidateThreshold(t) != nil {
			return nil, usagef("--thresholds must be numbers from 0 to 1, comma-separated")
		}
		out = append(out, t)
	}
	sort.Float64s(out)
	return out, nil
}

// evalOptions returns the service options of an evaluation: the
// configuration's, and the ranking without the signals named in without
// (comma-separated; "" for none).
func evalOptions(cfg Config, without string) ([]rules.Option, error) {
	opts, err := cfg.memoryOptions(quietLogger())
	if err != nil {
		return nil, err
	}
	if without != "" {
		base := rules.DefaultRanking()
		if cfg.VectorWeight != nil {
			base.VectorWeight = *cfg.VectorWeight
		}
		p, err := rankingWithout(base, without)
		if err != nil {
			return nil, err
		}
		opts = append(opts, rules.WithRanking(p))
	}
	return opts, nil
}

// evalLocomoFile reads a LoCoMo file and evaluates it (evalLocomo).
func evalLocomoFile(ctx context.Context, path string, cuts []int, thresholds []float64, dump io.Writer, opts ...rules.Option) (*evalReport, error) {
	raw, err := os.ReadFile(path)
	if err != nil {
		return nil, loci.Errorf(loci.EINVALID, "read %s: %v", path, err)
	}
	var convs []locomoSample
	if err := json.Unmarshal(raw, &convs); err != nil {
		return nil, loci.Errorf(loci.EINVALID, "%s is not a LoCoMo JSON file: %v", path, err)
	}
	return evalLocomo(ctx, convs, cuts, thresholds, dump, opts...)
}

// evalSignals are the ranking signals --without turns off.
var evalSignals = []string{"context", "answer", "session", "date", "recency", "vector", "participant", "mention", "assistant"}

// rankingWithout returns p with the named signals off: context (a hit
// lends to its neighbours), answer (a question lends more to the message
// after it than context does), session (session strength), date (periods
// named in the query), recency, vector (the embedder's similarity),
// participant (what the participant a query names said, or what names
// them), mention (only what names them), assistant (the prior that
// weighs down what the assistant said).
func rankingWithout(p rules.RankingParams, names string) (rules.RankingParams, error) {
	for _, name := range strings.Split(names, ",") {
		switch strings.TrimSpace(name) {
		case "context":
			p.ContextWeight, p.AnswerWeight = 0, 0
		case "answer":
			p.AnswerWeight = p.ContextWeight
		case "session":
			p.SessionWeight = 0
		case "date":
			p.DateWeight, p.DateBoost = 0, 0
		case "recency":
			p.RecencyWeight = 0
		case "vector":
			p.VectorWeight, p.LexicalVectorWeight = 0, 0
		case "participant":
			p.ParticipantBoost, p.MentionBoost = 0, 0
		case "mention":
			p.MentionBoost = 0
		case "assistant":
			p.AssistantWeight = 0
		default:
			return p, usagef("--without takes %s; not %q", strings.Join(evalSignals, ", "), name)
		}
	}
	return p, nil
}

// parseKs reads --k: cut-offs from 1 to most, comma-separated.
func parseKs(s string, most int) ([]int, error) {
	var out []int
	for _, p := range strings.Split(s, ",") {
		k, err := strconv.Atoi(strings.TrimSpace(p))
		if err != nil || k <= 0 || k > most {
			return nil, usagef("--k must be positive numbers up to %d, comma-separated", most)
		}
		out = append(out, k)
	}
	sort.Ints(out)
	return out, nil
}

// locomoSample is one conversation of a LoCoMo file with its questions.
type locomoSample struct {
	SampleID     string                     `json:"sample_id"`
	Conversation map[string]json.RawMessage `json:"conversation"`
	QA           []locomoQA                 `json:"qa"`
}

// locomoQA is one question of a LoCoMo conversation, with its evidence
// turns and its category.
type locomoQA struct {
	Question string          `json:"question"`
	Evidence json.RawMessage `json:"evidence"`
	Category json.Number     `json:"category"`
}

type locomoTurn struct {
	Speaker     string `json:"speaker"`
	DiaID       string `json:"dia_id"`
	Text        string `json:"text"`
	BlipCaption string `json:"blip_caption"`
}

// evalDump is one question's line in the --dump file. Ranks maps each
// cut-off k to the rank (1-based; 0: not returned) each evidence turn got
// in the search with limit k, in the order of Evidence; Returned lists
// the turns the search with the largest limit returned, best first.
type evalDump struct {
	Conversation string           `json:"conversation"`
	Category     string           `json:"category"`
	Question     string           `json:"question"`
	Evidence     []string         `json:"evidence"`
	Ranks        map[string][]int `json:"ranks"`
	Returned     []string         `json:"returned"`
}

// evalReport is the --json output: per category, n, recall@k / hit@k and
// mrr (the mean over questions of 1/rank of the first evidence turn in the
// search with the largest limit; 0 when none is returned). Categories 1-4
// are also scored together ("1-4", the headline); category 5 (adversarial:
// the question's premise is false, and its evidence is the turn that says
// so) is reported beside them, never in the aggregate.
type evalReport struct {
	Categories map[string]map[string]float64 `json:"categories"`
	Skipped    int                           `json:"skipped"`
	// Thresholds holds, for each --thresholds value, per category (1-4
	// together, and 5), what searches with that threshold at limit 10
	// answered: precision (the share of the results answered that are
	// evidence, over every result answered), recall (the mean share of a
	// question's evidence answered), answered (the share of questions
	// answered at least one result) and results (the mean number
	// answered).
	Thresholds map[string]map[string]map[string]float64 `json:"thresholds,omitempty"`
}

// thresholdCut is the limit of the searches --thresholds scores.
const thresholdCut = 10

// thresholdAcc sums one category's scores at one threshold.
type thresholdAcc struct {
	n, answered     int
	evidence, total int // results that are evidence, results
	recall          float64
}

var diaIDPattern = regexp.MustCompile(`^D\s*:?\s*0*(\d+)\s*:\s*0*(\d+)$`)

// normDiaIDs splits an evidence string into normalised dialogue ids:
// "D8:6; D9:17" is two ids, "D30:05" is "D30:5"; what does not parse is
// left out.
func normDiaIDs(s string) []string {
	var out []string
	for _, p := range strings.FieldsFunc(s, func(r rune) bool { return r == ';' || r == ',' }) {
		p = strings.TrimSpace(p)
		if m := diaIDPattern.FindStringSubmatch(p); m != nil {
			out = append(out, "D"+trimZeros(m[1])+":"+trimZeros(m[2]))
		}
	}
	return out
}

func trimZeros(s string) string {
	if s == "" {
		return "0"
	}
	return s
}

// sessionTime parses a LoCoMo session date such as "1:56 pm on 8 May, 2023".
func sessionTime(s string) (time.Time, bool) {
	s = strings.TrimSpace(s)
	for _, layout := range []string{"3:04 pm on 2 January, 2006", "3:04 pm on 2 Jan, 2006", "3:04 PM on 2 January, 2006"} {
		if t, err := time.Parse(layout, s); err == nil {
			return t.UTC(), true
		}
	}
	return time.Time{}, false
}

// evalLocomo loads each conversation into its own scope of a fresh
// in-memory store, one record per dialogue turn, embeds them, asks every
// question in its conversation's scope, and scores the ranking against
// the evidence turns. Each recall@k and hit@k is scored on what a search
// with limit k returns, as an API client asking for k results gets it
// (the candidate pool grows with the limit). When dump is set, one JSON
// line per question is written to it: the query, its evidence and the
// rank each evidence turn got in each of those searches (0: not
// returned), and the turns the largest search returned.
func evalLocomo(ctx context.Context, convs []locomoSample, cuts []int, thresholds []float64, dump io.Writer, opts ...rules.Option) (*evalReport, error) {
	db, err := sqlite.Open(ctx, sqlite.Memory)
	if err != nil {
		return nil, err
	}
	defer db.Close()
	svc := rules.New(db, append([]rules.Option{rules.WithLogger(slog.New(slog.NewTextHandler(io.Discard, nil)))}, opts...)...)

	ev := &locomoEval{svc: svc, cuts: cuts, thresholds: thresholds, diaOf: map[string]string{}, loaded: map[string]bool{}, accs: map[string]*locomoAcc{},
		ths: map[string][]thresholdAcc{}}
	for ci, c := range convs {
		recs := ev.records(ci, c)
		if err := db.Update(ctx, func(tx loci.Tx) error {
			for _, r := range recs {
				if err := tx.InsertRecord(ctx, r); err != nil {
					return err
				}
			}
			return nil
		}); err != nil {
			return nil, fmt.Errorf("load conversation %s: %w", c.SampleID, err)
		}
	}
	if svc.Embedder() != nil {
		if _, err := svc.Reindex(ctx, nil); err != nil {
			return nil, err
		}
	}

	rep := &evalReport{Categories: map[string]map[string]float64{}}
	var enc *json.Encoder
	if dump != nil {
		enc = json.NewEncoder(dump)
	}
	for ci, c := range convs {
		for _, qa := range c.QA {
			line, err := ev.ask(ctx, ci, c, qa)
			if err != nil {
				return nil, err
			} else if line == nil {
				rep.Skipped++
				continue
			}
			if enc != nil {
				if err := enc.Encode(line); err != nil {
					return nil, fmt.Errorf("dump: %w", err)
				}
			}
		}
	}
	ev.report(rep)
	return rep, nil
}

// locomoEval is one LoCoMo evaluation in progress: the service searched,
// the cuts scored, the dialogue id of each record loaded and the scores
// so far, by category.
type locomoEval struct {
	svc        *rules.Service
	cuts       []int
	thresholds []float64
	ths        map[string][]thresholdAcc // by category, by threshold
	diaOf      map[string]string         // record id -> dialogue id
	loaded     map[string]bool           // conversation index and dialogue id of each record
	accs       map[string]*locomoAcc
}

// locomoAcc sums the scores of one category's questions.
type locomoAcc struct {
	n           int
	recall, hit []float64
	rr          float64 // the sum of reciprocal ranks
}

// acc returns category cat's sums, started at zero.
func (ev *locomoEval) acc(cat string) *locomoAcc {
	if ev.accs[cat] == nil {
		ev.accs[cat] = &locomoAcc{recall: make([]float64, len(ev.cuts)), hit: make([]float64, len(ev.cuts))}
	}
	return ev.accs[cat]
}

// records returns conversation ci's turns as the records to load, one
// per turn, noting each one's dialogue id.
func (ev *locomoEval) records(ci int, c locomoSample) []*loci.Record {
	scope := loci.Scope{AgentID: fmt.Sprintf("locomo-%d-%s", ci, c.SampleID)}
	var recs []*loci.Record
	for _, key := range sessionKeys(c.Conversation) {
		var turns []locomoTurn
		if json.Unmarshal(c.Conversation[key], &turns) != nil {
			continue
		}
		var at time.Time
		var dt string
		if json.Unmarshal(c.Conversation[key+"_date_time"], &dt) == nil {
			at, _ = sessionTime(dt)
		}
		for _, t := range turns {
			ids := normDiaIDs(t.DiaID)
			if len(ids) != 1 {
				continue
			}
			content := t.Speaker + ": " + t.Text
			if t.BlipCaption != "" {
				content += " [image: " + t.BlipCaption + "]"
			}
			// A turn is a conversation message (kind session, category
			// message) of its LoCoMo session, as PutSession stores them.
			data, _ := json.Marshal(map[string]any{"role": t.Speaker, "index": len(recs)})
			msgScope := scope
			msgScope.SessionID = scope.AgentID + "-" + key
			r := &loci.Record{
				// Ids in turn order, as the time-ordered ids of a
				// live writer would be: turns share their session's time.
				ID: fmt.Sprintf("c%03d-t%05d", ci, len(recs)), Workspace: loci.DefaultWorkspace, Kind: loci.KindSession,
				Category: "message", Scope: msgScope, Content: content, SearchText: analysis.SearchText(content),
				Data: data, CreatedAt: at, UpdatedAt: at, Version: 1,
			}
			ev.diaOf[r.ID] = ids[0]
			ev.loaded[fmt.Sprintf("c%03d-%s", ci, ids[0])] = true
			recs = append(recs, r)
		}
	}
	return recs
}

// ask asks question qa of conversation ci with each cut as the limit,
// scores the answers and returns the question's dump line; nil for a
// question skipped (no evidence loaded, or no question).
func (ev *locomoEval) ask(ctx context.Context, ci int, c locomoSample, qa locomoQA) (*evalDump, error) {
	scope := fmt.Sprintf("locomo-%d-%s", ci, c.SampleID)
	evidence := map[string]bool{}
	var evList []string
	for _, e := range evidenceStrings(qa.Evidence) {
		for _, id := range normDiaIDs(e) {
			if ev.loaded[fmt.Sprintf("c%03d-%s", ci, id)] && !evidence[id] {
				evidence[id] = true
				evList = append(evList, id)
			}
		}
	}
	if len(evidence) == 0 || strings.TrimSpace(qa.Question) == "" {
		return nil, nil
	}
	cats := []string{qa.Category.String()}
	if n, err := strconv.Atoi(qa.Category.String()); err == nil && n >= 1 && n <= 4 {
		cats = append(cats, "1-4")
	}
	line := &evalDump{Conversation: c.SampleID, Category: qa.Category.String(), Question: qa.Question,
		Evidence: evList, Ranks: map[string][]int{}}
	for i, k := range ev.cuts {
		res, err := ev.svc.Search(ctx, loci.SearchQuery{Query: qa.Question, AgentID: scope, Limit: k})
		if err != nil {
			return nil, fmt.Errorf("question %q: %w", qa.Question, err)
		}
		ranks := make([]int, len(evList))
		found := 0
		for j, r := range res.Results {
			if !evidence[ev.diaOf[r.ID]] {
				continue
			}
			found++
			if at := slices.Index(evList, ev.diaOf[r.ID]); at >= 0 && ranks[at] == 0 {
				ranks[at] = j + 1
			}
		}
		line.Ranks[strconv.Itoa(k)] = ranks
		first := 0 // the rank of the first evidence turn
		if i == len(ev.cuts)-1 {
			for j, r := range res.Results {
				line.Returned = append(line.Returned, ev.diaOf[r.ID])
				if first == 0 && evidence[ev.diaOf[r.ID]] {
					first = j + 1
				}
			}
		}
		for _, cat := range cats {
			a := ev.acc(cat)
			if i == 0 {
				a.n++
			}
			a.recall[i] += float64(found) / float64(len(evidence))
			if found > 0 {
				a.hit[i]++
			}
			if first > 0 {
				a.rr += 1 / float64(first)
			}
		}
	}
	for i, th := range ev.thresholds {
		res, err := ev.svc.Search(ctx, loci.SearchQuery{Query: qa.Question, AgentID: scope, Limit: thresholdCut, Threshold: th})
		if err != nil {
			return nil, fmt.Errorf("question %q: %w", qa.Question, err)
		}
		found, seen := 0, map[string]bool{}
		for _, r := range res.Results {
			if id := ev.diaOf[r.ID]; evidence[id] && !seen[id] {
				seen[id] = true
				found++
			}
		}
		for _, cat := range cats {
			if ev.ths[cat] == nil {
				ev.ths[cat] = make([]thresholdAcc, len(ev.thresholds))
			}
			a := &ev.ths[cat][i]
			a.n++
			a.total += len(res.Results)
			a.evidence += found
			a.recall += float64(found) / float64(len(evidence))
			if len(res.Results) > 0 {
				a.answered++
			}
		}
	}
	return line, nil
}

// report writes the scores of every category into rep: n, mrr and each
// cut's recall and hit.
func (ev *locomoEval) report(rep *evalReport) {
	for _, cat := range []string{"1", "2", "3", "4", "5", "1-4"} {
		ev.acc(cat)
	}
	for cat, a := range ev.accs {
		m := map[string]float64{"n": float64(a.n), "mrr": 0}
		if a.n > 0 {
			m["mrr"] = round4(a.rr / float64(a.n))
		}
		for i, k := range ev.cuts {
			m[fmt.Sprintf("recall@%d", k)], m[fmt.Sprintf("hit@%d", k)] = 0, 0
			if a.n > 0 {
				m[fmt.Sprintf("recall@%d", k)] = round4(a.recall[i] / float64(a.n))
				m[fmt.Sprintf("hit@%d", k)] = round4(a.hit[i] / float64(a.n))
			}
		}
		rep.Categories[cat] = m
	}
	if len(ev.thresholds) == 0 {
		return
	}
	rep.Thresholds = map[string]map[string]map[string]float64{}
	for i, th := range ev.thresholds {
		byCat := map[string]map[string]float64{}
		for _, cat := range []string{"1-4", "5"} {
			m := map[string]float64{"n": 0, "precision": 0, "recall": 0, "answered": 0, "results": 0}
			if accs := ev.ths[cat]; accs != nil && accs[i].n > 0 {
				a := accs[i]
				m["n"] = float64(a.n)
				if a.total > 0 {
					m["precision"] = round4(float64(a.evidence) / float64(a.total))
				}
				m["recall"] = round4(a.recall / float64(a.n))
				m["answered"] = round4(float64(a.answered) / float64(a.n))
				m["results"] = round4(float64(a.total) / float64(a.n))
			}
			byCat[cat] = m
		}
		rep.Thresholds[strconv.FormatFloat(th, 'f', -1, 64)] = byCat
	}
}

// printThresholds writes the --thresholds table: at each threshold, for
// categories 1-4 and 5, precision, recall@10, the share of questions
// answered anything and the mean number of results.
func (r *evalReport) printThresholds(w io.Writer) {
	if len(r.Thresholds) == 0 {
		return
	}
	keys := make([]string, 0, len(r.Thresholds))
	for k := range r.Thresholds {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool {
		a, _ := strconv.ParseFloat(keys[i], 64)
		b, _ := strconv.ParseFloat(keys[j], 64)
		return a < b
	})
	fmt.Fprintf(w, "\nthreshold (limit %d)  1-4: precision  recall  answered  results    5: precision  recall  answered  results\n", thresholdCut)
	for _, k := range keys {
		a, b := r.Thresholds[k]["1-4"], r.Thresholds[k]["5"]
		fmt.Fprintf(w, "%-20s %14.4f %7.4f %9.4f %8.2f %14.4f %7.4f %9.4f %8.2f\n", k,
			a["precision"], a["recall"], a["answered"], a["results"], b["precision"], b["recall"], b["answered"], b["results"])
	}
}

// sessionKeys returns the conversation's session keys ("session_N") in
// session order.
func sessionKeys(conv map[string]json.RawMessage) []string {
	var keys []string
	for key := range conv {
		if n, err := strconv.Atoi(strings.TrimPrefix(key, "session_")); err == nil && n >= 0 && strings.HasPrefix(key, "session_") {
			keys = append(keys, key)
		}
	}
	sort.Slice(keys, func(i, j int) bool {
		a, _ := strconv.Atoi(strings.TrimPrefix(keys[i], "session_"))
		b, _ := strconv.Atoi(strings.TrimPrefix(keys[j], "session_"))
		return a < b
	})
	return keys
}

// evidenceStrings reads a question's evidence: a list of strings, or one.
func evidenceStrings(raw json.RawMessage) []string {
	var list []string
	if json.Unmarshal(raw, &list) == nil {
		return list
	}
	var one string
	if json.Unmarshal(raw, &one) == nil {
		return []string{one}
	}
	return nil
}

func round4(x float64) float64 { return float64(int64(x*10000+0.5)) / 10000 }

func (r *evalReport) printTable(w io.Writer, cuts []int) {
	cats := make([]string, 0, len(r.Categories))
	for c := range r.Categories {
		cats = append(cats, c)
	}
	sort.Slice(cats, func(i, j int) bool {
		if (cats[i] == "1-4") != (cats[j] == "1-4") {
			return cats[j] == "1-4"
		}
		return cats[i] < cats[j]
	})
	fmt.Fprintf(w, "%-8s %5s", "category", "n")
	for _, k := range cuts {
		fmt.Fprintf(w, " %9s", fmt.Sprintf("recall@%d", k))
	}
	for _, k := range cuts {
		fmt.Fprintf(w, " %7s", fmt.Sprintf("hit@%d", k))
	}
	fmt.Fprintf(w, " %6s\n", "MRR")
	for _, c := range cats {
		m := r.Categories[c]
		fmt.Fprintf(w, "%-8s %5d", c, int(m["n"]))
		for _, k := range cuts {
			fmt.Fprintf(w, " %9.4f", m[fmt.Sprintf("recall@%d", k)])
		}
		for _, k := range cuts {
			fmt.Fprintf(w, " %7.4f", m[fmt.Sprintf("hit@%d", k)])
		}
		fmt.Fprintf(w, " %6.4f\n", m["mrr"])
	}
	// The headline: categories 1-4 together; the adversarial category
	// beside them, on its own.
	k := cuts[len(cuts)-1]
	if i := slices.Index(cuts, 10); i >= 0 {
		k = 10
	}
	at := fmt.Sprintf("recall@%d", k)
	fmt.Fprintf(w, "headline: categories 1-4 %s %.4f, MRR %.4f; adversarial (5) %s %.4f, MRR %.4f\n",
		at, r.Categories["1-4"][at], r.Categories["1-4"]["mrr"], at, r.Categories["5"][at], r.Categories["5"]["mrr"])
	fmt.Fprintf(w, "skipped (no usable evidence): %d\n", r.Skipped)
}
