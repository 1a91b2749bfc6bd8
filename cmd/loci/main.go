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
	"runtime/debug"
	"runtime/pprof"
	"strings"
	"syscall"

	"github.com/loci-memory/loci"
	"github.com/loci-memory/loci/httpclient"
)

// Exit statuses (docs/api.md, "CLI").
const (
	exitOK     = 0
	exitDomain = 1
	exitUsage  = 2
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	// LOCI_CPUPROFILE=FILE profiles any verb (for developers: import,
	// eval, ...; serve has --pprof).
	if path := os.Getenv("LOCI_CPUPROFILE"); path != "" {
		if f, err := os.Create(path); err == nil {
			if pprof.StartCPUProfile(f) == nil {
				defer f.Close()
				defer pprof.StopCPUProfile()
			}
		}
	}
	code := run(ctx, os.Args[1:], os.Stdin, os.Stdout, os.Stderr)
	stop()
	pprof.StopCPUProfile()
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
		{"mcp", "mcp --agent ID [--user ID] [--tools default|all]: an MCP server on stdio", runMCP},
		{"remember", "remember KEY VALUE --agent ID: store a note", runRemember},
		{"recall", "recall [KEY] --agent ID: read one note or all", runRecall},
		{"forget", "forget KEY --agent ID: delete a note", runForget},
		{"prompt", "prompt --agent ID: print the agent's core memory as its prompt", runPrompt},
		{"block", "block list|get LABEL|set LABEL TEXT --agent ID: core memory blocks", runBlock},
		{"passage", "passage add TEXT|list|search QUERY|delete ID --agent ID: archival memory", runPassage},
		{"facts", "facts add|list|search|get|history|validate|contradict|invalidate|resolve|delete|review …: long-term facts, their history and disputes", runFacts},
		{"memories", "memories add|get|update|delete|history|list …: memories of every kind by id, with metadata, filters and a time to live", runMemories},
		{"users", "users list|memories|forget|delete …: users and everything held about them", runUsers},
		{"preferences", "preferences list|set|delete|clear --user ID …: a user's preferences", runPreferences},
		{"sessions", "sessions list --user ID|get ID|delete ID: a user's sessions", runSessions},
		{"episodes", "episodes list --user ID --agent ID|get ID|delete ID: episodic memory", runEpisodes},
		{"working", "working list|get|set|clear TASK …: a task's working memory", runWorking},
		{"maintain", "maintain [--tasks consolidate,decay,prune,expire] [--dry-run]: run lifecycle maintenance", runMaintain},
		{"keys", "keys create --role R [--agent ID] | list | revoke ID: API keys", runKeys},
		{"export", "export [--user ID] > file.jsonl: the workspace as JSON Lines", runExport},
		{"import", "import < file.jsonl: load an export", runImport},
		{"search", "search QUERY [--agent ID] [--user ID] [--explain]: hybrid search", runSearch},
		{"eval", "eval locomo|longmemeval --data PATH [--k …] [--json] [--dump FILE] [--without SIGNALS]: retrieval recall on LoCoMo or LongMemEval", runEval},
		{"bench", "bench [--n 10000,100000] [--db postgres://…] [--json]: ingest and search performance", runBench},
		{"reindex", "reindex [--hash-vectors]: embed every record whose embedding is not the current embedder's", runReindex},
	}
}

// subcommand is one sub-command of a verb that has them.
type subcommand struct {
	name    string
	usage   string // after "loci VERB ", e.g. "set LABEL TEXT|- --agent ID"
	summary string
}

// subcommands are the sub-commands of block, passage, keys and eval, for
// their usage and help (the verbs register each one's flags).
var subcommands = map[string][]subcommand{
	"block": {
		{"list", "list --agent ID [--json]", "the agent's core memory blocks: its own, then the shared ones attached to it"},
		{"get", "get LABEL --agent ID [--json]", "print one block's content"},
		{"set", "set LABEL TEXT|- --agent ID [--expected-version N] [--limit N] [--json]",
			"create or replace a block (TEXT - reads it from stdin); with --expected-version, only if the block is at that version (0: only if it does not exist)"},
	},
	"passage": {
		{"add", "add TEXT --agent ID [--tag T]… [--json]", "store an archival passage; prints its id"},
		{"list", "list --agent ID [--tag T] [--limit N] [--offset N] [--json]", "the agent's passages, newest first"},
		{"search", "search QUERY --agent ID [--tag T] [--limit N] [--json]", "the passages that best match QUERY, with their scores"},
		{"delete", "delete ID --agent ID", "delete a passage"},
	},
	"keys": {
		{"create", "create --role viewer|creator|editor|admin [--agent ID] [--workspace W] [--name N]",
			"create an API key and print it, once; authentication is on while any key is active"},
		{"list", "list [--workspace W | --all]", "the keys, with their role, agent, workspace and status"},
		{"revoke", "revoke ID", "revoke a key: it is refused from the next request on"},
	},
	"facts": {
		{"add", "add TEXT --category C [--user ID] [--agent ID] [--key K] [--valid-at TIME] [--keyword W]… [--evidence JSON]",
			"store a fact; with --key it supersedes the current fact of that key (kept as history)"},
		{"list", "list [--user ID] [--keyword W] [--category C] [--global] [--as-of TIME] [--history] [--disputed]",
			"facts true now (or as of a time), by relevance"},
		{"search", "search QUERY [--user ID] [--category C] [--global] [--as-of TIME] [--history]", "the facts that best match QUERY"},
		{"get", "get ID", "one fact"},
		{"history", "history ID", "every fact of the same key and scope, newest first"},
		{"validate", "validate ID", "raise a fact's relevance by 0.1"},
		{"contradict", "contradict ID", "lower a fact's relevance by 0.2 and mark it disputed"},
		{"invalidate", "invalidate ID [--at TIME]", "it is no longer true: kept as history"},
		{"resolve", "resolve ID keep|drop", "settle a dispute: keep the fact, or invalidate it"},
		{"delete", "delete ID", "delete a fact"},
		{"review", "review --user ID", "what awaits review: disputed facts, preferences flagged for removal"},
	},
	"memories": {
		{"add", "add TEXT [--kind fact|passage|note] [--key K] [--category C] [--user ID] [--agent ID] [--session ID] [--tags T,…] [--metadata JSON] [--ttl DURATION] [--json]",
			"add a memory (a fact by default); prints its id, and on stderr ADD, UPDATE (a key's new content) or NOOP (the same content again)"},
		{"get", "get ID [--json]", "one memory of any kind: id, kind, key, content, metadata"},
		{"update", "update ID [TEXT] [--tags T,…] [--metadata JSON] [--ttl DURATION] [--json]", "change a memory in place, keeping history"},
		{"delete", "delete ID", "delete a memory of any kind"},
		{"history", "history ID [--json]", "every value a memory has had, newest first"},
		{"list", "list [--user ID] [--agent ID] [--session ID] [--kind K,…] [--filter JSON] [--limit N] [--offset N] [--json]",
			"memories of every kind, newest first, narrowed by a filter"},
	},
	"users": {
		{"list", "list [--match S] [--limit N] [--offset N] [--json]", "users, newest first, with how many memories each has"},
		{"memories", "memories USER [--json]", "everything held about the user, every kind"},
		{"forget", "forget USER --query WORDS | --id ID… [--dry-run] [--json]", "forget what holds the words (or those records); --dry-run says what would go"},
		{"delete", "delete USER [--json]", "delete everything about the user, at once"},
	},
	"preferences": {
		{"list", "list --user ID [--session ID] [--json]", "the user's preferences with their confidence"},
		{"set", "set TYPE VALUE --user ID [--source explicit|implicit|decision] [--session ID] [--context TEXT] [--value-json] [--json]",
			"observe a preference (explicit sets 100; implicit starts at 40, +15 a repeat)"},
		{"delete", "delete TYPE --user ID [--json]", "forget one preference"},
		{"clear", "clear --user ID [--json]", "forget every preference of the user"},
	},
	"sessions": {
		{"list", "list --user ID [--limit N] [--offset N] [--json]", "the user's sessions, newest first"},
		{"get", "get ID [--json]", "one session with its messages"},
		{"delete", "delete ID [--json]", "delete a session and its messages"},
	},
	"episodes": {
		{"list", "list --user ID --agent ID [--outcome O] [--limit N] [--offset N] [--json]", "the episodes of a user and agent, newest first"},
		{"get", "get ID [--json]", "one episode"},
		{"delete", "delete ID [--json]", "delete an episode"},
	},
	"working": {
		{"list", "list TASK [--agent ID] [--user ID] [--json]", "the task's working memory"},
		{"get", "get TASK KEY [--agent ID] [--user ID] [--json]", "one entry's value"},
		{"set", "set TASK KEY VALUE --agent ID [--user ID] [--value-json] [--json]", "store an entry (expires 24 h after its last write)"},
		{"clear", "clear TASK [--agent ID] [--user ID] [--json]", "delete the task's entries"},
	},
	"eval": {
		{"locomo", "locomo --data FILE [--k 1,3,5,10,20,50] [--json] [--dump FILE] [--without SIGNALS]", "retrieval recall@k on a LoCoMo-format file, per category"},
		{"longmemeval", "longmemeval --data FILE|DIR [--k 1,3,5,10] [--json] [--dump FILE] [--without SIGNALS]",
			"LongMemEval's session and turn recall_any, recall_all and NDCG@k on its questions (a file or a directory of them), per question type"},
	},
}

// findSubcommand returns the sub-command a flag set was made for: the
// flag sets of sub-commands are named "VERB SUB".
func findSubcommand(name string) (subcommand, bool) {
	verb, sub, ok := strings.Cut(name, " ")
	if !ok {
		return subcommand{}, false
	}
	for _, sc := range subcommands[verb] {
		if sc.name == sub {
			return sc, true
		}
	}
	return subcommand{}, false
}

// usageError is bad usage: exit status 2. When it comes from parsing the
// flags, fs is the flag set, and the verb's usage and flags follow the
// message.
type usageError struct {
	msg string
	fs  *flag.FlagSet
}

func (e *usageError) Error() string { return e.msg }

func usagef(format string, args ...any) error { return &usageError{msg: fmt.Sprintf(format, args...)} }

// version is loci's version: set when building a release with
// -ldflags "-X main.version=v1.1.0"; without it, the module version that
// go install recorded, else "dev".
var version string

// lociVersion returns the version loci reports (loci version, MCP).
func lociVersion() string {
	if version != "" {
		return version
	}
	if bi, ok := debug.ReadBuildInfo(); ok && bi.Main.Version != "" && bi.Main.Version != "(devel)" {
		return bi.Main.Version
	}
	return "dev"
}

// run runs the command line and returns the exit status.
func run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	e := &env{stdin: stdin, stdout: stdout, stderr: stderr}
	switch {
	case len(args) == 0:
		printUsage(stderr)
		return exitUsage
	case isHelp(args[0]) || args[0] == "help" && len(args) == 1:
		printUsage(stdout)
		return exitOK
	case args[0] == "help":
		args = []string{args[1], "-h"} // loci help VERB
	case args[0] == "version" || args[0] == "--version" || args[0] == "-version":
		if len(args) > 1 {
			fmt.Fprintln(stderr, "loci version: takes no arguments")
			return exitUsage
		}
		fmt.Fprintf(stdout, "loci %s\n", lociVersion())
		return exitOK
	}
	for _, c := range commands() {
		if c.name != args[0] {
			continue
		}
		// Every operation a verb runs on a local database is audited as
		// coming from the command line (serve and mcp mark their own).
		err := c.run(loci.WithVia(ctx, loci.ViaCLI), e, args[1:])
		var ue *usageError
		var he *helpError
		switch {
		case err == nil:
			return exitOK
		case errors.As(err, &he):
			printHelp(stdout, c, he.fs)
			return exitOK
		case errors.Is(err, flag.ErrHelp):
			printHelp(stdout, c, nil)
			return exitOK
		case errors.As(err, &ue):
			fmt.Fprintf(stderr, "loci %s: %s\n", c.name, ue.msg)
			if ue.fs != nil {
				fmt.Fprintln(stderr)
				printHelp(stderr, c, ue.fs)
			}
			return exitUsage
		default:
			msg, detail := explain(err)
			fmt.Fprintf(stderr, "loci %s: %s\n", c.name, msg)
			if detail != "" {
				fmt.Fprintf(stderr, "  (%s)\n", detail)
			}
			return exitDomain
		}
	}
	fmt.Fprintf(stderr, "loci: unknown command %q\n\n", args[0])
	printUsage(stderr)
	return exitUsage
}

// printHelp prints the usage of a verb, or of the sub-command fs was made
// for, and fs's flags. Without fs, a verb with sub-commands lists them.
func printHelp(w io.Writer, c command, fs *flag.FlagSet) {
	if sc, ok := findSubcommand(flagSetName(fs)); ok {
		fmt.Fprintf(w, "loci %s %s\n  %s\n", c.name, sc.usage, sc.summary)
	} else {
		fmt.Fprintf(w, "loci %s\n", c.usage)
		if subs := subcommands[c.name]; fs == nil && len(subs) > 0 {
			fmt.Fprintln(w, "\ncommands:")
			for _, sc := range subs {
				fmt.Fprintf(w, "  loci %s %s\n      %s\n", c.name, sc.usage, sc.summary)
			}
			fmt.Fprintf(w, "\nEach prints its flags with -h, e.g. loci %s %s -h.\n", c.name, subs[len(subs)-1].name)
		}
	}
	if fs == nil {
		return
	}
	has := false
	fs.VisitAll(func(*flag.Flag) { has = true })
	if has {
		fmt.Fprintln(w, "\nflags:")
		fs.SetOutput(w)
		fs.PrintDefaults()
		fs.SetOutput(io.Discard)
	}
}

func flagSetName(fs *flag.FlagSet) string {
	if fs == nil {
		return ""
	}
	return fs.Name()
}

// explain returns what the CLI says about a failure: a domain error's
// message; for what the environment got wrong (a database that cannot be
// opened, a server that cannot be reached), what failed, named; for any
// other error "internal error" with the error's chain as detail.
func explain(err error) (msg, detail string) {
	var oe *openError
	var ue *httpclient.UnreachableError
	switch {
	case errors.As(err, &oe):
		return oe.Error(), ""
	case errors.As(err, &ue):
		return ue.Error(), ""
	case loci.ErrorCode(err) == loci.EINTERNAL:
		return loci.ErrorMessage(err), err.Error()
	}
	return loci.ErrorMessage(err), ""
}

func printUsage(w io.Writer) {
	fmt.Fprintln(w, "usage: loci COMMAND [flags]\n\ncommands:")
	for _, c := range commands() {
		fmt.Fprintf(w, "  %-10s %s\n", c.name, c.usage)
	}
	fmt.Fprintln(w, "\nloci COMMAND -h (or loci help COMMAND) prints its usage and flags; loci version prints the version.")
	fmt.Fprintln(w, "\nSearch is lexical (BM25) unless an embedder makes vectors: LOCI_EMBEDDER=openai (with LOCI_EMBED_URL,\n"+
		"LOCI_EMBED_MODEL, LOCI_EMBED_API_KEY, LOCI_EMBED_DIMENSIONS), or the built-in hash embedder's lexical\n"+
		"vectors with --hash-vectors (serve, mcp, reindex) or LOCI_HASH_VECTORS=true.")
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
			return nil, &usageError{msg: err.Error(), fs: fs}
		}
		args = fs.Args()
		if len(args) == 0 {
			return pos, nil
		}
		pos = append(pos, args[0])
		args = args[1:]
	}
}
