package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/loci-memory/loci"
)

// runFacts runs the long-term fact verbs on the local database or a
// server: store (with a key that supersedes), list and search (now, as of
// a time, or with history), one fact and its history, validate,
// contradict, invalidate, resolve a dispute, delete, and a user's review
// queue.
func runFacts(ctx context.Context, e *env, args []string) error {
	sub, args, err := splitSubcommand("facts", args)
	if err != nil {
		return err
	}
	fs := flag.NewFlagSet("facts "+sub, flag.ContinueOnError)
	o := defineFactFlags(fs, sub)
	tgt := targetFlags(fs)
	pos, err := parseFlags(fs, args)
	if err != nil {
		return err
	}
	if err := o.check(sub, pos); err != nil {
		return err
	}
	svc, done, err := tgt.open(ctx)
	if err != nil {
		return err
	}
	defer done()
	switch sub {
	case "add":
		return o.add(ctx, e, svc, pos[0])
	case "list":
		return o.list(ctx, e, svc)
	case "search":
		return o.search(ctx, e, svc, pos[0])
	case "history":
		return o.history(ctx, e, svc, pos[0])
	case "delete":
		if err := svc.DeleteFact(ctx, pos[0]); err != nil {
			return err
		}
		fmt.Fprintf(e.stdout, "Deleted: %s\n", pos[0])
		return nil
	case "review":
		return o.review(ctx, e, svc)
	default: // get, validate, contradict, invalidate, resolve: one fact
		return o.one(ctx, e, svc, sub, pos[0])
	}
}

// factFlags are the flags of the facts verbs; each verb defines its own
// (defineFactFlags), the others stay nil.
type factFlags struct {
	user                                    *string
	asJSON                                  *bool
	agent, category, key, keyword, evidence *string
	validAt, asOf, at                       timeFlag
	keywords                                tagList
	global, withHistory, disputed           *bool
	limit, offset                           *int
	keep                                    bool // resolve: keep the fact (its second argument)
}

// defineFactFlags defines on fs the flags of the facts verb sub.
func defineFactFlags(fs *flag.FlagSet, sub string) *factFlags {
	o := &factFlags{
		user:   fs.String("user", "", "the user's facts (default: global facts)"),
		asJSON: fs.Bool("json", false, "print the API's JSON"),
	}
	switch sub {
	case "add":
		o.agent = fs.String("agent", "", "the agent that learned it")
		o.category = fs.String("category", "", "a name of a-z, 0-9 and _, e.g. "+strings.Join(loci.FactCategories, ", ")+" (required)")
		o.key = fs.String("key", "", "the slot it fills (e.g. home_city): supersedes the current fact of that key")
		fs.Var(&o.validAt, "valid-at", "when it became (or becomes) true, RFC 3339 (default now)")
		fs.Var(&o.keywords, "keyword", "a keyword (repeatable)")
		o.evidence = fs.String("evidence", "", "why it is believed, a JSON object")
	case "list", "search":
		o.category = fs.String("category", "", "only this category")
		o.global = fs.Bool("global", false, "with --user: global facts too")
		fs.Var(&o.asOf, "as-of", "only what was true at this time, RFC 3339 (default now)")
		o.withHistory = fs.Bool("history", false, "every version, superseded and invalidated facts too")
		o.limit = fs.Int("limit", 0, fmt.Sprintf("at most this many (default %d for list, %d for search)", loci.DefaultListLimit, loci.DefaultSearchLimit))
		if sub == "list" {
			o.keyword = fs.String("keyword", "", "only facts with this keyword")
			o.disputed = fs.Bool("disputed", false, "only facts contradicted and not yet resolved")
			o.offset = fs.Int("offset", 0, "skip this many")
		}
	case "invalidate":
		fs.Var(&o.at, "at", "when it stopped (or stops) being true, RFC 3339 (default now)")
	case "review":
		o.limit = fs.Int("limit", 0, fmt.Sprintf("at most this many (default %d)", loci.DefaultListLimit))
		o.offset = fs.Int("offset", 0, "skip this many")
	}
	return o
}

// check checks the arguments pos and the flags of verb sub before
// anything is opened.
func (o *factFlags) check(sub string, pos []string) error {
	want := 1 // the text, query or id
	switch sub {
	case "list", "review":
		want = 0
	case "resolve":
		want = 2
	}
	if len(pos) != want {
		return subUsage("facts", sub)
	}
	switch {
	case sub == "add" && *o.category == "":
		return usagef("--category is required (a name of a-z, 0-9 and _, e.g. %s)", strings.Join(loci.FactCategories, ", "))
	case sub == "add" && *o.evidence != "" && !json.Valid([]byte(*o.evidence)):
		return usagef("--evidence is not valid JSON")
	case sub == "review" && *o.user == "":
		return usagef("--user is required")
	case sub == "resolve":
		switch pos[1] {
		case "keep":
			o.keep = true
		case "drop":
		default:
			return subUsage("facts", sub)
		}
	}
	return nil
}

// add stores the fact text.
func (o *factFlags) add(ctx context.Context, e *env, svc remote, text string) error {
	in := loci.FactInput{UserID: *o.user, AgentID: *o.agent, Category: *o.category, Fact: text, Keywords: o.keywords, Key: *o.key, ValidAt: o.validAt.t}
	if *o.evidence != "" {
		in.Evidence = json.RawMessage(*o.evidence)
	}
	f, err := svc.StoreFact(ctx, in)
	if err != nil {
		return err
	}
	if *o.asJSON {
		return printJSON(e.stdout, f)
	}
	fmt.Fprintln(e.stdout, f.ID)
	if f.Supersedes != "" {
		fmt.Fprintf(e.stderr, "supersedes %s\n", f.Supersedes)
	}
	return nil
}

// query is the fact query of list and search.
func (o *factFlags) query() loci.FactQuery {
	return loci.FactQuery{UserID: *o.user, Category: *o.category, IncludeGlobal: *o.global, AsOf: o.asOf.t, IncludeHistory: *o.withHistory, Limit: *o.limit}
}

// list prints the facts the flags select, one a line.
func (o *factFlags) list(ctx context.Context, e *env, svc remote) error {
	q := o.query()
	q.Keyword, q.Offset = *o.keyword, *o.offset
	if *o.disputed {
		q.Status = loci.FactDisputed
	}
	facts, total, err := svc.FactsByKeyword(ctx, q)
	if err != nil {
		return err
	}
	if *o.asJSON {
		return printJSON(e.stdout, map[string]any{"success": true, "count": total, "facts": facts})
	}
	for _, f := range facts {
		printFact(e.stdout, f)
	}
	if len(facts) == 0 {
		fmt.Fprintln(e.stderr, noFacts(total, q))
	}
	return nil
}

// search prints the facts that answer query, with their scores.
func (o *factFlags) search(ctx context.Context, e *env, svc remote, query string) error {
	q := o.query()
	q.Query = query
	res, err := svc.SearchFacts(ctx, q)
	if err != nil {
		return err
	}
	if *o.asJSON {
		return printJSON(e.stdout, map[string]any{"success": true, "count": len(res.Results), "results": res.Results, "pending_embeddings": res.PendingEmbeddings})
	}
	for _, r := range res.Results {
		fmt.Fprintf(e.stdout, "%.4f\t", r.Score)
		printFact(e.stdout, r.Fact)
	}
	if len(res.Results) == 0 {
		fmt.Fprintln(e.stderr, noFacts(0, q))
	}
	return nil
}

// history prints every version of fact id's slot.
func (o *factFlags) history(ctx context.Context, e *env, svc remote, id string) error {
	facts, err := svc.FactHistory(ctx, id)
	if err != nil {
		return err
	}
	if *o.asJSON {
		return printJSON(e.stdout, map[string]any{"success": true, "count": len(facts), "facts": facts})
	}
	for _, f := range facts {
		until := "-"
		if !f.InvalidAt.IsZero() {
			until = f.InvalidAt.Format(time.RFC3339Nano)
		}
		fmt.Fprintf(e.stdout, "%s\t%s\t%s\t%s\t%s\n", f.ID, f.Status, f.ValidAt.Format(time.RFC3339Nano), until, oneLine(f.Fact))
	}
	return nil
}

// review prints the user's review queue.
func (o *factFlags) review(ctx context.Context, e *env, svc remote) error {
	items, total, err := svc.ReviewQueue(ctx, loci.ReviewQuery{UserID: *o.user, Limit: *o.limit, Offset: *o.offset})
	if err != nil {
		return err
	}
	if *o.asJSON {
		return printJSON(e.stdout, map[string]any{"success": true, "count": total, "items": items})
	}
	for _, it := range items {
		switch {
		case it.Fact != nil:
			fmt.Fprintf(e.stdout, "fact\t%s\t%s\t%s\n", it.Reason, it.Fact.ID, oneLine(it.Fact.Fact))
		case it.Preference != nil:
			fmt.Fprintf(e.stdout, "preference\t%s\t%s\t%s\n", it.Reason, it.Preference.Type, oneLine(string(it.Preference.Value)))
		}
	}
	return nil
}

// one runs verb sub on fact id (get, validate, contradict, invalidate,
// resolve) and prints the fact it answers.
func (o *factFlags) one(ctx context.Context, e *env, svc remote, sub, id string) error {
	var f *loci.Fact
	var err error
	switch sub {
	case "get":
		f, err = svc.GetFact(ctx, id)
	case "validate":
		f, err = svc.ValidateFact(ctx, id)
	case "contradict":
		f, err = svc.ContradictFact(ctx, id)
	case "invalidate":
		f, err = svc.InvalidateFact(ctx, id, o.at.t)
	case "resolve":
		f, err = svc.ResolveFact(ctx, id, o.keep)
	}
	if err != nil {
		return err
	}
	if *o.asJSON {
		return printJSON(e.stdout, f)
	}
	printFact(e.stdout, f)
	return nil
}

// noFacts is the line a listing or search that found no fact prints (on
// stderr: stdout stays one fact a line), saying what it looked at.
func noFacts(total int, q loci.FactQuery) string {
	if total > 0 {
		return fmt.Sprintf("No facts on this page (%d in all; lower --offset).", total)
	}
	who := "global"
	if q.UserID != "" {
		who = "user " + q.UserID
	}
	when := "now"
	if !q.AsOf.IsZero() {
		when = "as of " + q.AsOf.Format(time.RFC3339)
	}
	return fmt.Sprintf("No facts of %s match (true %s).", who, when)
}

// printFact prints a fact as one line: id, status, relevance, key (- for
// none) and text.
func printFact(w io.Writer, f *loci.Fact) {
	key := f.Key
	if key == "" {
		key = "-"
	}
	fmt.Fprintf(w, "%s\t%s\t%.2f\t%s\t%s\n", f.ID, f.Status, f.RelevanceScore, key, oneLine(f.Fact))
}
