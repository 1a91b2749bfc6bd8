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
	"github.com/loci-memory/loci/httpclient"
)

// The memories verbs (docs/api.md, "The memories API over every kind"): one
// verb set over every kind, by id, with metadata, filters and a time to live,
// on the local database or a server.

// memoryTarget is what the memories verbs need of a target: the server's
// client and the local service both have it.
type memoryTarget interface {
	loci.MemoryService
	ListMemories(ctx context.Context, q loci.MemoryQuery) ([]*loci.UserMemory, int, error)
}

var (
	_ memoryTarget = (*httpclient.Client)(nil)
	_ memoryTarget = (*service)(nil)
)

// runMemories runs the memories verbs: add, get, update, delete, history
// and list.
func runMemories(ctx context.Context, e *env, args []string) error {
	sub, args, err := splitSubcommand("memories", args)
	if err != nil {
		return err
	}
	fs := flag.NewFlagSet("memories "+sub, flag.ContinueOnError)
	o := defineMemoryFlags(fs, sub)
	tgt := targetFlags(fs)
	pos, err := parseFlags(fs, args)
	if err != nil {
		return err
	}
	want := map[string]int{"add": 1, "get": 1, "update": 1, "delete": 1, "history": 1, "list": 0}[sub]
	if sub == "update" && len(pos) == 2 {
		want = 2 // the id and the new content
	}
	if len(pos) != want {
		return subUsage("memories", sub)
	}
	o.tagsSet = fsSet(fs, "tags")
	if sub == "update" && *o.noExpiry && o.ttl.secs != nil {
		return usagef("--no-expiry removes the time to live: give it or --ttl, not both")
	}
	if sub == "update" && len(pos) == 1 && !o.tagsSet && !o.metadata.set && o.ttl.secs == nil && !*o.noExpiry {
		return usagef("nothing to change: give the new content, --tags, --metadata, --ttl or --no-expiry")
	}
	svc, done, err := tgt.open(ctx)
	if err != nil {
		return err
	}
	defer done()
	mem, ok := svc.(memoryTarget)
	if !ok {
		return fmt.Errorf("this target has no memories API")
	}
	switch sub {
	case "add":
		return o.add(ctx, e, mem, pos[0])
	case "update":
		return o.update(ctx, e, mem, pos)
	case "get":
		m, err := mem.GetMemory(ctx, pos[0])
		if err != nil {
			return err
		}
		if *o.asJSON {
			return printJSON(e.stdout, m)
		}
		printMemory(e.stdout, m)
	case "delete":
		if err := mem.DeleteMemory(ctx, pos[0]); err != nil {
			return err
		}
		if *o.asJSON {
			return printJSON(e.stdout, map[string]any{"success": true, "id": pos[0]})
		}
		fmt.Fprintf(e.stdout, "Deleted: %s\n", pos[0])
	case "history":
		return o.history(ctx, e, mem, pos[0])
	case "list":
		return o.list(ctx, e, mem)
	}
	return nil
}

// memoryFlags are the flags of the memories verbs; each verb defines its
// own (defineMemoryFlags), the others stay nil.
type memoryFlags struct {
	asJSON                                    *bool
	kind, key, category, user, agent, session *string
	tags, kinds                               listFlag
	tagsSet                                   bool // --tags was given (update: replaces them)
	metadata, filter                          jsonFlag
	ttl                                       ttlFlag
	noExpiry                                  *bool
	limit, offset                             *int
}

// defineMemoryFlags defines on fs the flags of the memories verb sub.
func defineMemoryFlags(fs *flag.FlagSet, sub string) *memoryFlags {
	o := &memoryFlags{asJSON: fs.Bool("json", false, "print the API's JSON")}
	switch sub {
	case "add", "list":
		o.user = fs.String("user", "", "the user it is about (list: only those)")
		o.agent = fs.String("agent", "", "the agent it belongs to (list: only those)")
		o.session = fs.String("session", "", "the session it belongs to (list: only those)")
	}
	switch sub {
	case "add":
		o.kind = fs.String("kind", "", "fact (the default), passage or note")
		o.key = fs.String("key", "", "a key: new content under it updates the key's memory (required for a note)")
		o.category = fs.String("category", "", "a fact's category, a name of a-z, 0-9 and _ (default general_fact)")
	case "list":
		fs.Var(&o.kinds, "kind", "only these kinds, comma-separated or repeated")
		fs.Var(&o.filter, "filter", `a filter in the API's language, e.g. '{"metadata.project": "billing"}'`)
		o.limit = fs.Int("limit", 0, fmt.Sprintf("at most this many (default %d)", loci.DefaultListLimit))
		o.offset = fs.Int("offset", 0, "skip this many")
	}
	switch sub {
	case "add", "update":
		fs.Var(&o.tags, "tags", "tags, comma-separated or repeated (update: replaces them)")
		fs.Var(&o.metadata, "metadata", `a JSON object of your own fields, e.g. '{"project": "billing"}' (update: replaces it; {} clears it)`)
		fs.Var(&o.ttl, "ttl", "forget it after this long: a duration (90s, 24h) or seconds")
	}
	if sub == "update" {
		o.noExpiry = fs.Bool("no-expiry", false, "keep it: remove its time to live")
	}
	return o
}

// add adds a memory of content.
func (o *memoryFlags) add(ctx context.Context, e *env, mem memoryTarget, content string) error {
	in := loci.MemoryInput{
		Content: content, UserID: *o.user, AgentID: *o.agent, SessionID: *o.session, Kind: loci.Kind(*o.kind), Key: *o.key,
		Category: *o.category, Tags: o.tags, Metadata: o.metadata.raw, TTLSeconds: o.ttl.secs,
	}
	ev, err := mem.AddMemory(ctx, in)
	if err != nil {
		return err
	}
	return printEvent(e, ev, *o.asJSON)
}

// update changes memory pos[0]: its content (pos[1], if given) and what
// the flags give.
func (o *memoryFlags) update(ctx context.Context, e *env, mem memoryTarget, pos []string) error {
	p := loci.MemoryPatch{Metadata: o.metadata.raw, TTLSeconds: o.ttl.secs, NoExpiry: *o.noExpiry}
	if len(pos) == 2 {
		p.Content = &pos[1]
	}
	if o.tagsSet {
		t := []string(o.tags)
		if t == nil {
			t = []string{}
		}
		p.Tags = &t
	}
	ev, err := mem.UpdateMemory(ctx, pos[0], p)
	if err != nil {
		return err
	}
	return printEvent(e, ev, *o.asJSON)
}

// history prints every value memory id has had, newest first.
func (o *memoryFlags) history(ctx context.Context, e *env, mem memoryTarget, id string) error {
	vs, err := mem.MemoryHistory(ctx, id)
	if err != nil {
		return err
	}
	if *o.asJSON {
		return printJSON(e.stdout, map[string]any{"success": true, "id": id, "count": len(vs), "versions": vs})
	}
	for _, v := range vs {
		fmt.Fprintf(e.stdout, "%d\t%s\t%s\t%s%s\n", v.Version, v.Event, v.UpdatedAt.UTC().Format(time.RFC3339), oneLine(v.Content), metaSuffix(v.Metadata))
	}
	return nil
}

// list prints the memories the flags select.
func (o *memoryFlags) list(ctx context.Context, e *env, mem memoryTarget) error {
	q := loci.MemoryQuery{Scope: loci.Scope{UserID: *o.user, AgentID: *o.agent, SessionID: *o.session}, Limit: *o.limit, Offset: *o.offset}
	for _, k := range o.kinds {
		q.Kinds = append(q.Kinds, loci.Kind(k))
	}
	var err error
	if q.Filters, err = loci.ParseMemoryFilter(o.filter.raw); err != nil {
		return err
	}
	ms, total, err := mem.ListMemories(ctx, q)
	if err != nil {
		return err
	}
	if *o.asJSON {
		return printJSON(e.stdout, map[string]any{"success": true, "count": total, "memories": ms})
	}
	for _, m := range ms {
		printMemory(e.stdout, m)
	}
	return nil
}

// printEvent prints what an add or update did: the memory's id on stdout
// (for scripts), the event on stderr.
func printEvent(e *env, ev *loci.MemoryEvent, asJSON bool) error {
	if asJSON {
		return printJSON(e.stdout, map[string]any{"success": true, "id": ev.ID, "kind": ev.Kind, "event": ev.Event, "version": ev.Version, "previous_id": ev.Previous})
	}
	fmt.Fprintln(e.stdout, ev.ID)
	switch {
	case ev.Event == loci.EventNoop:
		fmt.Fprintf(e.stderr, "%s: nothing changed, the same content is already current\n", ev.Event)
	case ev.Previous != "":
		fmt.Fprintf(e.stderr, "%s %s (version %d, supersedes %s)\n", ev.Event, ev.Kind, ev.Version, ev.Previous)
	default:
		fmt.Fprintf(e.stderr, "%s %s (version %d)\n", ev.Event, ev.Kind, ev.Version)
	}
	return nil
}

// printMemory prints a memory as one line: id, kind, key (- for none),
// text, and its metadata when it has some.
func printMemory(w io.Writer, m *loci.UserMemory) {
	key := m.Key
	if key == "" {
		key = "-"
	}
	fmt.Fprintf(w, "%s\t%s\t%s\t%s%s\n", m.ID, m.Kind, key, oneLine(m.Content), metaSuffix(m.Metadata))
}

func metaSuffix(meta json.RawMessage) string {
	if s := strings.TrimSpace(string(meta)); s != "" && s != "{}" && s != "null" {
		return "\t" + s
	}
	return ""
}
