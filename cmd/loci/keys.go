package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"text/tabwriter"
	"time"

	"github.com/loci-memory/loci"
)

// workspaceFlag registers --workspace.
func workspaceFlag(fs *flag.FlagSet) *string {
	return fs.String("workspace", loci.DefaultWorkspace, "workspace")
}

func quietLogger() *slog.Logger { return slog.New(slog.NewTextHandler(io.Discard, nil)) }

// runKeys is `loci keys create|list|revoke`.
func runKeys(ctx context.Context, e *env, args []string) error {
	sub, args, err := splitSubcommand("keys", args)
	if err != nil {
		return err
	}
	fs := flag.NewFlagSet("keys "+sub, flag.ContinueOnError)
	cfg := loadConfig()
	cfg.dbFlag(fs)
	var ws *string
	if sub != "revoke" {
		ws = workspaceFlag(fs)
	}
	switch sub {
	case "create":
		return createKey(ctx, e, fs, &cfg, ws, args)
	case "list":
		return listKeys(ctx, e, fs, &cfg, ws, args)
	case "revoke":
		return revokeKey(ctx, e, fs, &cfg, args)
	}
	return nil
}

// createKey is `loci keys create` in workspace *ws (a flag of fs): it
// prints the new key's secret, shown only once. cfg holds the flags fs
// sets: it is read once they are parsed.
func createKey(ctx context.Context, e *env, fs *flag.FlagSet, cfg *Config, ws *string, args []string) error {
	role := fs.String("role", "", "viewer, creator, editor or admin (required)")
	agent := fs.String("agent", "", "bind the key to this agent")
	name := fs.String("name", "", "a label for people")
	if pos, err := parseFlags(fs, args); err != nil {
		return err
	} else if len(pos) > 0 || *role == "" {
		return subUsage("keys", "create")
	}
	r, err := loci.ParseRole(*role)
	if err != nil {
		return usagef("%s", loci.ErrorMessage(err))
	}
	svc, done, err := openLocal(ctx, *cfg)
	if err != nil {
		return err
	}
	defer done()
	k, secret, err := svc.CreateKey(loci.WithWorkspace(ctx, *ws), loci.KeySpec{Role: r, AgentID: *agent, Name: *name})
	if err != nil {
		return err
	}
	fmt.Fprintln(e.stdout, secret)
	fmt.Fprintf(e.stderr, "created key %s (role %s, workspace %s%s); the key above is shown only once\n",
		k.ID, k.Role, k.Workspace, boundTo(k.AgentID))
	return nil
}

// listKeys is `loci keys list`: the keys of workspace *ws (a flag of fs),
// or of every workspace, as a table.
func listKeys(ctx context.Context, e *env, fs *flag.FlagSet, cfg *Config, ws *string, args []string) error {
	all := fs.Bool("all", false, "list the keys of every workspace")
	if pos, err := parseFlags(fs, args); err != nil {
		return err
	} else if len(pos) > 0 {
		return subUsage("keys", "list")
	}
	svc, done, err := openLocal(ctx, *cfg)
	if err != nil {
		return err
	}
	defer done()
	keys, err := svc.ListKeys(loci.WithWorkspace(ctx, *ws), *all)
	if err != nil {
		return err
	}
	tw := tabwriter.NewWriter(e.stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "ID\tROLE\tAGENT\tWORKSPACE\tNAME\tCREATED\tSTATUS")
	for _, k := range keys {
		status := "active"
		if !k.Active() {
			status = "revoked " + k.RevokedAt.Format(time.RFC3339)
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\n", k.ID, k.Role, dash(k.AgentID), k.Workspace, dash(k.Name), k.CreatedAt.Format(time.RFC3339), status)
	}
	return tw.Flush()
}

// revokeKey is `loci keys revoke ID`.
func revokeKey(ctx context.Context, e *env, fs *flag.FlagSet, cfg *Config, args []string) error {
	pos, err := parseFlags(fs, args)
	if err != nil {
		return err
	} else if len(pos) != 1 {
		return subUsage("keys", "revoke")
	}
	svc, done, err := openLocal(ctx, *cfg)
	if err != nil {
		return err
	}
	defer done()
	if err := svc.RevokeKey(ctx, pos[0]); err != nil {
		return err
	}
	fmt.Fprintf(e.stdout, "Revoked: %s\n", pos[0])
	return nil
}

func boundTo(agent string) string {
	if agent == "" {
		return ""
	}
	return ", bound to agent " + agent
}

func dash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}
