// Command loci is long-term memory for AI agents: the server (serve), the
// MCP server (mcp) and the verbs people use from a shell. It only wires the
// packages together.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"

	"github.com/loci-memory/loci"
)

// Exit statuses (API.md).
const (
	exitOK     = 0
	exitDomain = 1
	exitUsage  = 2
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := run(ctx, os.Args[1:], os.Stdin, os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}

// env is what a command reads and writes besides its arguments.
type env struct {
	stdin          io.Reader
	stdout, stderr io.Writer
}

// command is one verb.
type command struct {
	name, usage string
	run         func(ctx context.Context, e *env, args []string) error
}

func commands() []command {
	return []command{
		{"serve", "serve [--addr 127.0.0.1:8420] [--db PATH]: run the server", runServe},
		{"mcp", "mcp --agent ID [--user ID]: an MCP server on stdio", runMCP},
		{"remember", "remember KEY VALUE --agent ID: store a note", runRemember},
		{"recall", "recall [KEY] --agent ID: read one note or all", runRecall},
		{"forget", "forget KEY --agent ID: delete a note", runForget},
		{"prompt", "prompt --agent ID: print the agent's core memory as its prompt", runPrompt},
		{"block", "block list|get LABEL|set LABEL TEXT --agent ID: core memory blocks", runBlock},
		{"passage", "passage add TEXT|list|search QUERY|delete ID --agent ID: archival memory", runPassage},
		{"facts", "facts add|list|search|get|history|validate|contradict|invalidate|resolve|delete|review …: long-term facts, their history and disputes", runFacts},
		{"maintain", "maintain [--tasks consolidate,decay,prune,expire] [--dry-run]: run lifecycle maintenance", runMaintain},
		{"keys", "keys create --role R [--agent ID] | list | revoke ID: API keys", runKeys},
		{"export", "export [--user ID] > file.jsonl: the workspace as JSON Lines", runExport},
		{"import", "import < file.jsonl: load an export", runImport},
		{"search", "search QUERY [--agent ID] [--user ID] [--explain]: hybrid search", runSearch},
		{"eval", "eval locomo --data FILE [--k 1,3,5,10,20,50] [--json]: retrieval recall on LoCoMo", runEval},
		{"bench", "bench [--n 10000,100000] [--db postgres://…] [--json]: ingest and search performance", runBench},
		{"reindex", "reindex: embed every record whose embedding is not the current model's", runReindex},
	}
}

// usageError is bad usage: exit status 2.
type usageError struct{ msg string }

func (e *usageError) Error() string { return e.msg }

func usagef(format string, args ...any) error { return &usageError{fmt.Sprintf(format, args...)} }

// run runs the command line and returns the exit status.
func run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	e := &env{stdin: stdin, stdout: stdout, stderr: stderr}
	if len(args) == 0 || args[0] == "-h" || args[0] == "--help" || args[0] == "help" {
		printUsage(stderr)
		if len(args) == 0 {
			return exitUsage
		}
		return exitOK
	}
	for _, c := range commands() {
		if c.name != args[0] {
			continue
		}
		err := c.run(ctx, e, args[1:])
		var ue *usageError
		switch {
		case err == nil:
			return exitOK
		case errors.Is(err, flag.ErrHelp):
			fmt.Fprintf(stdout, "loci %s\n", c.usage)
			var he *helpError
			if errors.As(err, &he) {
				he.fs.SetOutput(stdout)
				he.fs.PrintDefaults()
			}
			return exitOK
		case errors.As(err, &ue):
			fmt.Fprintf(stderr, "loci %s: %s\n", c.name, ue.msg)
			return exitUsage
		default:
			fmt.Fprintf(stderr, "loci %s: %s\n", c.name, loci.ErrorMessage(err))
			if loci.ErrorCode(err) == loci.EINTERNAL {
				fmt.Fprintf(stderr, "  (%v)\n", err)
			}
			return exitDomain
		}
	}
	fmt.Fprintf(stderr, "loci: unknown command %q\n\n", args[0])
	printUsage(stderr)
	return exitUsage
}

func printUsage(w io.Writer) {
	fmt.Fprintln(w, "usage: loci COMMAND [flags]\n\ncommands:")
	for _, c := range commands() {
		fmt.Fprintf(w, "  %-10s %s\n", c.name, c.usage)
	}
}

// isHelp reports whether arg asks for help, for verbs that read a
// sub-command before their flags.
func isHelp(arg string) bool { return arg == "-h" || arg == "-help" || arg == "--help" }

// helpError is -h or --help: run prints the command's flags and exits 0.
type helpError struct{ fs *flag.FlagSet }

func (e *helpError) Error() string { return flag.ErrHelp.Error() }
func (e *helpError) Unwrap() error { return flag.ErrHelp }

// parseFlags parses args with fs, allowing flags after positional
// arguments, and returns the positional ones. A parse failure is a usage
// error.
func parseFlags(fs *flag.FlagSet, args []string) ([]string, error) {
	fs.SetOutput(io.Discard)
	var pos []string
	for {
		if err := fs.Parse(args); err != nil {
			if errors.Is(err, flag.ErrHelp) {
				return nil, &helpError{fs}
			}
			return nil, usagef("%v", err)
		}
		args = fs.Args()
		if len(args) == 0 {
			return pos, nil
		}
		pos = append(pos, args[0])
		args = args[1:]
	}
}
