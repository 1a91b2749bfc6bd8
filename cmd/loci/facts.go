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

// timeFlag is a flag holding an RFC 3339 time.
type timeFlag struct{ t time.Time }

func (f *timeFlag) String() string {
	if f == nil || f.t.IsZero() {
		return ""
	}
	return f.t.Format(time.RFC3339Nano)
}

func (f *timeFlag) Set(v string) error {
	t, err := time.Parse(time.RFC3339Nano, v)
	if err != nil {
		return fmt.Errorf("not an RFC 3339 time (e.g. 2026-01-02T15:04:05Z)")
	}
	f.t = t
	return nil
}

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
	user := fs.String("user", "", "the user's facts (default: global facts)")
	asJSON := fs.Bool("json", false, "print the API's JSON")
	var (
		agent, category, key, keyword, evidence *string
		validAt, asOf, at                       timeFlag
		keywords                                tagList
		global, history, disputed               *bool
		limit, offset                           *int
	)
	switch sub {
	case "add":
		agent = fs.String("agent", "", "the agent that learned it")
		category = fs.String("category", "", "a name of a-z, 0-9 and _, e.g. "+strings.Join(loci.FactCategories, ", ")+" (required)")
		key = fs.String("key", "", "the slot it fills (e.g. home_city): supersedes the current fact of that key")
		fs.Var(&validAt, "valid-at", "when it became (or becomes) true, RFC 3339 (default now)")
		fs.Var(&keywords, "keyword", "a keyword (repeatable)")
		evidence = fs.String("evidence", "", "why it is believed, a JSON object")
	case "list", "search":
		category = fs.String("category", "", "only this category")
		global = fs.Bool("global", false, "with --user: global facts too")
		fs.Var(&asOf, "as-of", "only what was true at this time, RFC 3339 (default now)")
		history = fs.Bool("history", false, "every version, superseded and invalidated facts too")
		limit = fs.Int("limit", 0, fmt.Sprintf("at most this many (default %d for list, %d for search)", loci.DefaultListLimit, loci.DefaultSearchLimit))
		if sub == "list" {
			keyword = fs.String("keyword", "", "only facts with this keyword")
			disputed = fs.Bool("disputed", false, "only facts contradicted and not yet resolved")
			offset = fs.Int("offset", 0, "skip this many")
		}
	case "invalidate":
		fs.Var(&at, "at", "when it stopped (or stops) being true, RFC 3339 (default now)")
	case "review":
		limit = fs.Int("limit", 0, fmt.Sprintf("at most this many (default %d)", loci.DefaultListLimit))
		offset = fs.Int("offset", 0, "skip this many")
	}
	tgt := targetFlags(fs)
	pos, err := parseFlags(fs, args)
	if err != nil {
		return err
	}
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
	var keep bool
	switch {
	case sub == "add" && *category == "":
		return usagef("--category is required (a name of a-z, 0-9 and _, e.g. %s)", strings.Join(loci.FactCategories, ", "))
	case sub == "add" && *evidence != "" && !json.Valid([]byte(*evidence)):
		return usagef("--evidence is not valid JSON")
	case sub == "review" && *user == "":
		return usagef("--user is required")
	case sub == "resolve":
		switch pos[1] {
		case "keep":
			keep = true
		case "drop":
		default:
			return subUsage("facts", sub)
		}
	}
	svc, done, err := tgt.open(ctx)
	if err != nil {
		return err
	}
	defer done()
	switch sub {
	case "add":
		in := loci.FactInput{UserID: *user, AgentID: *agent, Category: *category, Fact: pos[0], Keywords: keywords, Key: *key, ValidAt: validAt.t}
		if *evidence != "" {
			in.Evidence = json.RawMessage(*evidence)
		}
		f, err := svc.StoreFact(ctx, in)
		if err != nil {
			return err
		}
		if *asJSON {
			return printJSON(e.stdout, f)
		}
		fmt.Fprintln(e.stdout, f.ID)
		if f.Supersedes != "" {
			fmt.Fprintf(e.stderr, "supersedes %s\n", f.Supersedes)
		}
	case "list", "search":
		q := loci.FactQuery{UserID: *user, Category: *category, IncludeGlobal: *global, AsOf: asOf.t, IncludeHistory: *history, Limit: *limit}
		if sub == "list" {
			q.Keyword, q.Offset = *keyword, *offset
			if *disputed {
				q.Status = loci.FactDisputed
			}
			facts, total, err := svc.FactsByKeyword(ctx, q)
			if err != nil {
				return err
			}
			if *asJSON {
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
		q.Query = pos[0]
		res, err := svc.SearchFacts(ctx, q)
		if err != nil {
			return err
		}
		if *asJSON {
			return printJSON(e.stdout, map[string]any{"success": true, "count": len(res.Results), "results": res.Results, "pending_embeddings": res.PendingEmbeddings})
		}
		for _, r := range res.Results {
			fmt.Fprintf(e.stdout, "%.4f\t", r.Score)
			printFact(e.stdout, r.Fact)
		}
		if len(res.Results) == 0 {
			fmt.Fprintln(e.stderr, noFacts(0, q))
		}
	case "history":
		facts, err := svc.FactHistory(ctx, pos[0])
		if err != nil {
			return err
		}
		if *asJSON {
			return printJSON(e.stdout, map[string]any{"success": true, "count": len(facts), "facts": facts})
		}
		for _, f := range facts {
			until := "-"
			if !f.InvalidAt.IsZero() {
				until = f.InvalidAt.Format(time.RFC3339Nano)
			}
			fmt.Fprintf(e.stdout, "%s\t%s\t%s\t%s\t%s\n", f.ID, f.Status, f.ValidAt.Format(time.RFC3339Nano), until, oneLine(f.Fact))
		}
	case "delete":
		if err := svc.DeleteFact(ctx, pos[0]); err != nil {
			return err
		}
		fmt.Fprintf(e.stdout, "Deleted: %s\n", pos[0])
	case "review":
		items, total, err := svc.ReviewQueue(ctx, loci.ReviewQuery{UserID: *user, Limit: *limit, Offset: *offset})
		if err != nil {
			return err
		}
		if *asJSON {
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
	default: // get, validate, contradict, invalidate, resolve: one fact
		var f *loci.Fact
		switch sub {
		case "get":
			f, err = svc.GetFact(ctx, pos[0])
		case "validate":
			f, err = svc.ValidateFact(ctx, pos[0])
		case "contradict":
			f, err = svc.ContradictFact(ctx, pos[0])
		case "invalidate":
			f, err = svc.InvalidateFact(ctx, pos[0], at.t)
		case "resolve":
			f, err = svc.ResolveFact(ctx, pos[0], keep)
		}
		if err != nil {
			return err
		}
		if *asJSON {
			return printJSON(e.stdout, f)
		}
		printFact(e.stdout, f)
	}
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
