package main

import (
	"context"
	"errors"
	"flag"
	"io"
	"log/slog"
	"os"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/loci-memory/loci/mcpserver"
)

// runMCP serves MCP on stdin/stdout, bound to one agent (and user) for the
// whole session. Logs go to stderr: stdout is the protocol.
func runMCP(ctx context.Context, e *env, args []string) error {
	fs := flag.NewFlagSet("mcp", flag.ContinueOnError)
	agent := fs.String("agent", "", "agent id whose memory the tools use (required)")
	user := fs.String("user", "", "user id the agent serves (optional)")
	tools := fs.String("tools", os.Getenv(mcpserver.ToolsEnv), "tool set: default (remember, recall, add_memory, search_memory, update_memory, delete_memory) or all (every kind's tools) (default $"+mcpserver.ToolsEnv+", else default)")
	cfg := loadConfig()
	cfg.TuneRuntime = true // a stdio server lives as long as its client
	cfg.auditFlag(fs, "memory access")
	cfg.dbFlag(fs)
	cfg.indexMemoryFlag(fs)
	cfg.hashVectorsFlag(fs)
	if pos, err := cfg.parseFlags(fs, args); err != nil {
		return err
	} else if len(pos) > 0 {
		return usagef("unexpected argument %q", pos[0])
	} else if *agent == "" {
		return usagef("--agent is required")
	}
	set, err := mcpserver.ParseToolSet(*tools)
	if err != nil {
		return usagef("--tools (or $%s) must be default or all, not %q", mcpserver.ToolsEnv, *tools)
	}
	logger := slog.New(slog.NewTextHandler(e.stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))
	svc, err := openService(ctx, cfg, logger)
	if err != nil {
		return err
	}
	defer svc.Close()
	// A stdio server lives as long as its client: embed what it stores in
	// the background, as loci serve does, so vector search covers it.
	defer svc.StartEmbedding(ctx)()
	srv, err := mcpserver.New(svc.Service, mcpserver.Identity{AgentID: *agent, UserID: *user}, mcpserver.WithLogger(logger), mcpserver.WithAudit(cfg.Audit), mcpserver.WithVersion(lociVersion()), mcpserver.WithTools(set))
	if err != nil {
		return err
	}
	pipe := newStdioPipe(e.stdin, e.stdout)
	t := &mcp.IOTransport{Reader: io.NopCloser(pipe), Writer: nopWriteCloser{pipe}}
	if err := srv.Run(ctx, t); err != nil && !errors.Is(err, context.Canceled) && !errors.Is(err, io.EOF) {
		return err
	}
	return nil
}

type nopWriteCloser struct{ io.Writer }

func (nopWriteCloser) Close() error { return nil }
