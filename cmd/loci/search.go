package main

import (
	"context"
	"flag"
	"fmt"
	"strings"

	"github.com/loci-memory/loci"
)

func runSearch(ctx context.Context, e *env, args []string) error {
	fs := flag.NewFlagSet("search", flag.ContinueOnError)
	agent := fs.String("agent", "", "only this agent's records")
	user := fs.String("user", "", "only this user's records")
	session := fs.String("session", "", "only this session's records")
	kinds := fs.String("kind", "", "only these kinds, comma-separated")
	limit := fs.Int("limit", loci.DefaultSearchLimit, "most results")
	explain := fs.Bool("explain", false, "explain each score")
	asJSON := fs.Bool("json", false, "print the API's JSON")
	tgt := targetFlags(fs)
	pos, err := parseFlags(fs, args)
	if err != nil {
		return err
	} else if len(pos) != 1 {
		return usagef("usage: loci search QUERY [--agent ID] [--user ID] [--explain]")
	}
	q := loci.SearchQuery{Query: pos[0], AgentID: *agent, UserID: *user, SessionID: *session, Limit: *limit, Explain: *explain}
	if *kinds != "" {
		for _, k := range strings.Split(*kinds, ",") {
			q.Kinds = append(q.Kinds, loci.Kind(strings.TrimSpace(k)))
		}
	}
	svc, done, err := tgt.open(ctx)
	if err != nil {
		return err
	}
	defer done()
	res, err := svc.Search(ctx, q)
	if err != nil {
		return err
	}
	if *asJSON {
		return printJSON(e.stdout, map[string]any{"success": true, "count": len(res.Results), "results": res.Results, "pending_embeddings": res.PendingEmbeddings})
	}
	for _, r := range res.Results {
		fmt.Fprintf(e.stdout, "%.4f\t%s\t%s\t%s\n", r.Score, r.Kind, r.ID, oneLine(r.Content))
		if r.Explain != nil {
			var sigs []string
			for _, name := range []string{"lexical", "vector", "date"} {
				if s, ok := r.Explain.Signals[name]; ok {
					sigs = append(sigs, fmt.Sprintf("%s rank %d score %.4f", name, s.Rank, s.Score))
				}
			}
			line := fmt.Sprintf("\t%s; fused %.4f, recency %.3f", strings.Join(sigs, ", "), r.Explain.Fused, r.Explain.Recency)
			if r.Explain.Confidence != nil {
				line += fmt.Sprintf(", confidence %.2f", *r.Explain.Confidence)
			}
			for _, part := range []struct {
				name string
				v    float64
			}{{"context", r.Explain.Context}, {"session", r.Explain.Session}, {"date", r.Explain.Date}} {
				if part.v != 0 {
					line += fmt.Sprintf(", %s %.3f", part.name, part.v)
				}
			}
			fmt.Fprintln(e.stdout, line)
		}
	}
	if res.PendingEmbeddings > 0 {
		fmt.Fprintf(e.stderr, "%d records in scope still wait for their embedding (found lexically only): a loci serve "+
			"running on this database embeds them within seconds; with none running, loci reindex embeds them now\n", res.PendingEmbeddings)
	}
	return nil
}

func runReindex(ctx context.Context, e *env, args []string) error {
	fs := flag.NewFlagSet("reindex", flag.ContinueOnError)
	cfg := loadConfig()
	cfg.dbFlag(fs)
	cfg.hashVectorsFlag(fs)
	quiet := fs.Bool("quiet", false, "no progress bar")
	if pos, err := cfg.parseFlags(fs, args); err != nil {
		return err
	} else if len(pos) > 0 {
		return usagef("usage: loci reindex [--db PATH] [--hash-vectors]")
	}
	svc, done, err := openLocal(ctx, cfg)
	if err != nil {
		return err
	}
	defer done()
	if svc.Embedder() == nil {
		return loci.Errorf(loci.EINVALID, "no embedder: the hash embedder's vectors are off (search is lexical only); give --hash-vectors (or set LOCI_HASH_VECTORS=true) to make them, or set LOCI_EMBEDDER=openai")
	}
	bar := &progressBar{w: e.stderr, label: "embedding (" + svc.Embedder().Model() + ")"}
	var progress func(int, int)
	if !*quiet {
		progress = bar.update
	}
	n, err := svc.Reindex(ctx, progress)
	if !*quiet {
		bar.finish()
	}
	if err != nil {
		return err
	}
	if n == 0 {
		fmt.Fprintf(e.stdout, "Nothing waits for an embedding: every record has one made by %s\n", svc.Embedder().Model())
		return nil
	}
	fmt.Fprintf(e.stdout, "Re-embedded %d records with %s\n", n, svc.Embedder().Model())
	return nil
}
