package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/loci-memory/loci"
)

// agentFlags are the flags of the core memory and archival verbs, which
// work on the local database.
type agentFlags struct {
	agent *string
	cfg   Config
}

func newAgentFlags(fs *flag.FlagSet) *agentFlags {
	f := &agentFlags{agent: fs.String("agent", "", "agent id (required)"), cfg: loadConfig()}
	f.cfg.dbFlag(fs)
	return f
}

// service opens the local service, once --agent is known to be set.
func (f *agentFlags) service(ctx context.Context) (loci.Service, func(), error) {
	if *f.agent == "" {
		return nil, nil, usagef("--agent is required")
	}
	return openLocal(ctx, f.cfg)
}

func runPrompt(ctx context.Context, e *env, args []string) error {
	fs := flag.NewFlagSet("prompt", flag.ContinueOnError)
	af := newAgentFlags(fs)
	pos, err := parseFlags(fs, args)
	if err != nil {
		return err
	} else if len(pos) != 0 {
		return usagef("usage: loci prompt --agent ID")
	}
	svc, done, err := af.service(ctx)
	if err != nil {
		return err
	}
	defer done()
	text, err := svc.Prompt(ctx, *af.agent)
	if err != nil {
		return err
	}
	fmt.Fprintln(e.stdout, text)
	return nil
}

func runBlock(ctx context.Context, e *env, args []string) error {
	sub, args, err := splitSubcommand("block", args)
	if err != nil {
		return err
	}
	fs := flag.NewFlagSet("block "+sub, flag.ContinueOnError)
	af := newAgentFlags(fs)
	asJSON := fs.Bool("json", false, "print the API's JSON")
	var expected, limit *int
	if sub == "set" {
		expected = fs.Int("expected-version", -1, "write only if the block is at this version (0: only if it does not exist)")
		limit = fs.Int("limit", 0, fmt.Sprintf("the block's limit in characters (default: keep, or %d for a new block)", loci.DefaultBlockLimit))
	}
	pos, err := parseFlags(fs, args)
	if err != nil {
		return err
	}
	if want := map[string]int{"list": 0, "get": 1, "set": 2}[sub]; len(pos) != want {
		return subUsage("block", sub)
	}
	svc, done, err := af.service(ctx)
	if err != nil {
		return err
	}
	defer done()
	switch sub {
	case "list":
		blocks, err := svc.ListBlocks(ctx, *af.agent)
		if err != nil {
			return err
		}
		if *asJSON {
			return printJSON(e.stdout, map[string]any{"success": true, "count": len(blocks), "blocks": blocks})
		}
		for _, b := range blocks {
			owner := ""
			if b.IsShared {
				owner = "\tshared by " + b.OwnerAgentID
			}
			fmt.Fprintf(e.stdout, "%s\tv%d\t%d/%d chars%s\n", b.Label, b.Version, len([]rune(b.Content)), b.Limit, owner)
		}
		return nil
	case "get":
		b, err := svc.GetBlock(ctx, *af.agent, pos[0])
		if err != nil {
			return err
		}
		if *asJSON {
			return printJSON(e.stdout, b)
		}
		fmt.Fprintln(e.stdout, b.Content)
		return nil
	default:
		text := pos[1]
		if text == "-" {
			raw, err := io.ReadAll(e.stdin)
			if err != nil {
				return fmt.Errorf("read stdin: %w", err)
			}
			text = strings.TrimSuffix(string(raw), "\n")
		}
		w := loci.BlockWrite{Content: text, Limit: *limit}
		if *expected >= 0 {
			w.ExpectedVersion = expected
		}
		b, created, err := svc.SetBlock(ctx, *af.agent, pos[0], w)
		if err != nil {
			return err
		}
		if *asJSON {
			return printJSON(e.stdout, b)
		}
		action := loci.ActionUpdated
		if created {
			action = loci.ActionCreated
		}
		fmt.Fprintf(e.stdout, "%s %s (version %d)\n", strings.ToUpper(action[:1])+action[1:], b.Label, b.Version)
		return nil
	}
}

func runPassage(ctx context.Context, e *env, args []string) error {
	sub, args, err := splitSubcommand("passage", args)
	if err != nil {
		return err
	}
	fs := flag.NewFlagSet("passage "+sub, flag.ContinueOnError)
	af := newAgentFlags(fs)
	var asJSON *bool
	if sub != "delete" {
		asJSON = fs.Bool("json", false, "print the API's JSON")
	}
	var tags tagList
	limit, offset := new(int), new(int)
	switch sub {
	case "add":
		fs.Var(&tags, "tag", "a tag (repeatable)")
	case "list", "search":
		fs.Var(&tags, "tag", "only passages with this tag")
		limit = fs.Int("limit", 0, fmt.Sprintf("at most this many (default %d for list, %d for search)", loci.DefaultListLimit, loci.DefaultSearchLimit))
	}
	if sub == "list" {
		offset = fs.Int("offset", 0, "skip this many")
	}
	pos, err := parseFlags(fs, args)
	if err != nil {
		return err
	}
	if (sub == "list" && len(pos) != 0) || (sub != "list" && len(pos) != 1) {
		return subUsage("passage", sub)
	}
	if sub != "add" && len(tags) > 1 {
		return usagef("--tag may be given once for %s", sub)
	}
	f := loci.PassageFilter{Limit: *limit, Offset: *offset}
	if sub != "add" && len(tags) == 1 {
		f.Tag = tags[0]
	}
	svc, done, err := af.service(ctx)
	if err != nil {
		return err
	}
	defer done()
	switch sub {
	case "add":
		p, err := svc.AddPassage(ctx, *af.agent, pos[0], tags)
		if err != nil {
			return err
		}
		if *asJSON {
			return printJSON(e.stdout, map[string]any{"success": true, "id": p.ID, "created_at": p.CreatedAt})
		}
		fmt.Fprintln(e.stdout, p.ID)
	case "list":
		return listPassages(ctx, e, svc, *asJSON, *af.agent, f)
	case "search":
		return searchPassages(ctx, e, svc, *asJSON, *af.agent, pos[0], f)
	case "delete":
		if err := svc.DeletePassage(ctx, *af.agent, pos[0]); err != nil {
			return err
		}
		fmt.Fprintf(e.stdout, "Deleted: %s\n", pos[0])
	}
	return nil
}

// listPassages prints agent agentID's passages that f selects.
func listPassages(ctx context.Context, e *env, svc loci.Service, asJSON bool, agentID string, f loci.PassageFilter) error {
	passages, total, err := svc.ListPassages(ctx, agentID, f)
	if err != nil {
		return err
	}
	if asJSON {
		return printJSON(e.stdout, map[string]any{"success": true, "count": total, "passages": passages})
	}
	for _, p := range passages {
		fmt.Fprintf(e.stdout, "%s\t%s\t%s\n", p.ID, strings.Join(p.Tags, ","), p.Content)
	}
	return nil
}

// searchPassages prints agent agentID's passages that answer query, with
// their scores.
func searchPassages(ctx context.Context, e *env, svc loci.Service, asJSON bool, agentID, query string, f loci.PassageFilter) error {
	res, err := svc.SearchPassages(ctx, agentID, query, f)
	if err != nil {
		return err
	}
	if asJSON {
		return printJSON(e.stdout, map[string]any{
			"success": true, "count": len(res.Results), "results": res.Results, "pending_embeddings": res.PendingEmbeddings,
		})
	}
	for _, r := range res.Results {
		fmt.Fprintf(e.stdout, "%s\t%s\t%s\n", strconv.FormatFloat(r.Score, 'f', 3, 64), r.ID, r.Content)
	}
	return nil
}
