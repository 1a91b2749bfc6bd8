package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"

	"github.com/loci-memory/loci"
)

// noteFlags are the flags of the note verbs.
type noteFlags struct {
	agent *string
	*target
}

func newNoteFlags(fs *flag.FlagSet) *noteFlags {
	return &noteFlags{agent: fs.String("agent", "", "agent id (required)"), target: targetFlags(fs)}
}

// notes returns the note service: the server's over HTTP when --server is
// given, else the local database's.
func (f *noteFlags) notes(ctx context.Context) (loci.NoteService, func(), error) {
	if *f.agent == "" {
		return nil, nil, usagef("--agent is required")
	}
	return f.open(ctx)
}

func runRemember(ctx context.Context, e *env, args []string) error {
	fs := flag.NewFlagSet("remember", flag.ContinueOnError)
	nf := newNoteFlags(fs)
	asJSON := fs.Bool("json", false, "VALUE is JSON, not a string")
	pos, err := parseFlags(fs, args)
	if err != nil {
		return err
	} else if len(pos) != 2 {
		return usagef("usage: loci remember KEY VALUE --agent ID")
	}
	value := json.RawMessage(pos[1])
	if !*asJSON {
		value, _ = json.Marshal(pos[1])
	} else if !json.Valid(value) {
		return loci.Errorf(loci.EINVALID, "VALUE is not valid JSON")
	}
	svc, done, err := nf.notes(ctx)
	if err != nil {
		return err
	}
	defer done()
	res, err := svc.Remember(ctx, *nf.agent, pos[0], value)
	if err != nil {
		return err
	}
	fmt.Fprintf(e.stdout, "Remembered: %s (%s)\n", res.Key, res.Action)
	return nil
}

func runRecall(ctx context.Context, e *env, args []string) error {
	fs := flag.NewFlagSet("recall", flag.ContinueOnError)
	nf := newNoteFlags(fs)
	asJSON := fs.Bool("json", false, "print the API's JSON instead of plain values")
	pos, err := parseFlags(fs, args)
	if err != nil {
		return err
	} else if len(pos) > 1 {
		return usagef("usage: loci recall [KEY] --agent ID")
	}
	svc, done, err := nf.notes(ctx)
	if err != nil {
		return err
	}
	defer done()
	if len(pos) == 1 {
		n, err := svc.Recall(ctx, *nf.agent, pos[0])
		if err != nil {
			return err
		}
		if *asJSON {
			return printJSON(e.stdout, map[string]any{"success": true, "key": n.Key, "value": n.Value, "updated_at": n.UpdatedAt})
		}
		fmt.Fprintln(e.stdout, plainValue(n.Value))
		return nil
	}
	notes, err := svc.RecallAll(ctx, *nf.agent)
	if err != nil {
		return err
	}
	if *asJSON {
		return printJSON(e.stdout, map[string]any{"success": true, "count": len(notes), "memories": notes})
	}
	for _, n := range notes {
		fmt.Fprintf(e.stdout, "%s\t%s\n", n.Key, plainValue(n.Value))
	}
	return nil
}

func runForget(ctx context.Context, e *env, args []string) error {
	fs := flag.NewFlagSet("forget", flag.ContinueOnError)
	nf := newNoteFlags(fs)
	pos, err := parseFlags(fs, args)
	if err != nil {
		return err
	} else if len(pos) != 1 {
		return usagef("usage: loci forget KEY --agent ID")
	}
	svc, done, err := nf.notes(ctx)
	if err != nil {
		return err
	}
	defer done()
	if err := svc.Forget(ctx, *nf.agent, pos[0]); err != nil {
		return err
	}
	fmt.Fprintf(e.stdout, "Forgotten: %s\n", pos[0])
	return nil
}

// plainValue prints a JSON string as its text and other JSON as is.
func plainValue(v json.RawMessage) string {
	var s string
	if json.Unmarshal(v, &s) == nil {
		return s
	}
	return string(v)
}
