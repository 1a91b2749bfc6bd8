package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"slices"
	"strings"
	"time"

	"github.com/loci-memory/loci"
)

// runMaintain runs maintenance tasks on the local database or a server.
func runMaintain(ctx context.Context, e *env, args []string) error {
	fs := flag.NewFlagSet("maintain", flag.ContinueOnError)
	tasks := fs.String("tasks", strings.Join(loci.MaintenanceTasks, ","), "comma-separated tasks: "+strings.Join(loci.MaintenanceTasks, ", "))
	dry := fs.Bool("dry-run", false, "report what would change without changing anything")
	asJSON := fs.Bool("json", false, "print the API's JSON")
	tgt := targetFlags(fs)
	if pos, err := parseFlags(fs, args); err != nil {
		return err
	} else if len(pos) > 0 {
		return usagef("unexpected argument %q", pos[0])
	}
	req := loci.MaintenanceRequest{DryRun: *dry}
	for _, t := range strings.Split(*tasks, ",") {
		if t = strings.TrimSpace(t); t == "" {
			continue
		} else if !slices.Contains(loci.MaintenanceTasks, t) {
			return usagef("unknown task %q (tasks: %s)", t, strings.Join(loci.MaintenanceTasks, ", "))
		}
		req.Tasks = append(req.Tasks, t)
	}
	if len(req.Tasks) == 0 {
		return usagef("--tasks names no task")
	}
	svc, done, err := tgt.open(ctx)
	if err != nil {
		return err
	}
	defer done()
	rep, err := svc.Maintain(ctx, req)
	if err != nil {
		return err
	}
	if *asJSON {
		return printJSON(e.stdout, map[string]any{"success": true, "dry_run": rep.DryRun, "tasks": rep.Tasks})
	}
	printReport(e.stdout, rep)
	return nil
}

// printReport prints one line per task that ran.
func printReport(w io.Writer, rep *loci.MaintenanceReport) {
	prefix := ""
	if rep.DryRun {
		prefix = "(dry run) "
	}
	for _, t := range loci.MaintenanceTasks {
		if r, ok := rep.Tasks[t]; ok {
			fmt.Fprintf(w, "%s%-11s created %d, updated %d, deleted %d\n", prefix, t, r.Created, r.Updated, r.Deleted)
		}
	}
}

// maintainEvery runs every maintenance task each interval until ctx ends,
// logging what each run changed (loci serve --maintain-every).
func maintainEvery(ctx context.Context, svc loci.MaintenanceService, every time.Duration, logger *slog.Logger) {
	t := time.NewTicker(every)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			rep, err := svc.Maintain(ctx, loci.MaintenanceRequest{})
			if err != nil {
				logger.Error("scheduled maintenance", "err", err)
				continue
			}
			args := []any{}
			for _, task := range loci.MaintenanceTasks {
				if r := rep.Tasks[task]; r != nil {
					args = append(args, task, fmt.Sprintf("created=%d updated=%d deleted=%d", r.Created, r.Updated, r.Deleted))
				}
			}
			logger.Info("scheduled maintenance", args...)
		}
	}
}
