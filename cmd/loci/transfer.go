package main

import (
	"context"
	"flag"
	"fmt"

	"github.com/loci-memory/loci"
)

// runExport is `loci export [--user ID] > file.jsonl`.
func runExport(ctx context.Context, e *env, args []string) error {
	fs := flag.NewFlagSet("export", flag.ContinueOnError)
	cfg := loadConfig()
	cfg.dbFlag(fs)
	ws := workspaceFlag(fs)
	user := fs.String("user", "", "export only what is about this user")
	if pos, err := parseFlags(fs, args); err != nil {
		return err
	} else if len(pos) > 0 {
		return usagef("usage: loci export [--user ID] [--workspace W] > file.jsonl")
	}
	svc, done, err := openLocal(ctx, cfg)
	if err != nil {
		return err
	}
	defer done()
	n, err := svc.Export(loci.WithWorkspace(ctx, *ws), loci.ExportFilter{UserID: *user}, e.stdout)
	if err != nil {
		return err
	}
	fmt.Fprintf(e.stderr, "exported %d records\n", n)
	return nil
}

// runImport is `loci import < file.jsonl`.
func runImport(ctx context.Context, e *env, args []string) error {
	fs := flag.NewFlagSet("import", flag.ContinueOnError)
	cfg := loadConfig()
	cfg.dbFlag(fs)
	ws := workspaceFlag(fs)
	if pos, err := parseFlags(fs, args); err != nil {
		return err
	} else if len(pos) > 0 {
		return usagef("usage: loci import [--workspace W] < file.jsonl")
	}
	svc, done, err := openLocal(ctx, cfg)
	if err != nil {
		return err
	}
	defer done()
	res, err := svc.Import(loci.WithWorkspace(ctx, *ws), e.stdin)
	if err != nil {
		return err
	}
	fmt.Fprintf(e.stdout, "imported %d records (%d versions), %d agents, %d users, %d block links; %d records already there skipped\n",
		res.Records, res.Versions, res.Agents, res.Users, res.BlockLinks, res.Skipped)
	return nil
}
