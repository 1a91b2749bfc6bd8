package main

import (
	"context"
	"flag"
	"log/slog"
	"math"
	"net"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/loci-memory/loci"
	"github.com/loci-memory/loci/httpapi"
	"github.com/loci-memory/loci/index"
	"github.com/loci-memory/loci/llm"
	"github.com/loci-memory/loci/postgres"
	"github.com/loci-memory/loci/retry"
	"github.com/loci-memory/loci/rules"
)

// Config is what serve, mcp and the verbs that use the local database
// share: the database and how long to wait for it, the storage failure
// policy, the search indexes' memory, the embedder and ranking the
// environment names, the audit log and, for serve, the server's settings.
//
// loadConfig fills it from the defaults and the environment; a command's
// flags write onto it (dbFlag, indexMemoryFlag, auditFlag, serveFlags);
// Validate checks it; openService builds the service from it.
type Config struct {
	// DB is the database: a file path, :memory: or a postgres:// URL; ""
	// for loci.db in the user's data directory. --db, $LOCI_DB.
	DB string
	// DBTimeout is the longest wait for the database (a free connection,
	// a lock, an answer). --db-timeout (serve), $LOCI_DB_TIMEOUT; 5s.
	DBTimeout time.Duration
	// DBPooler says that DB (PostgreSQL) is reached through a transaction
	// pooler such as PgBouncer in transaction mode: nothing is prepared
	// across transactions. --db-pooler (serve); also implied by a DSN's
	// default_query_exec_mode other than cache_statement, or detected when
	// the pooler refuses the DSN's search_path.
	DBPooler bool
	// DBRead are hot standbys of DB that reads go to (--db-read,
	// repeatable; serve), within DBReadMaxLag (--db-read-max-lag).
	DBRead       []string
	DBReadMaxLag time.Duration
	// RetryBackoff is the wait before a transient storage error is
	// retried, once. --retry-backoff (serve); retry.DefaultBackoff.
	RetryBackoff time.Duration

	// IndexMemory bounds the in-memory search indexes, in bytes.
	// --index-memory (serve, mcp); index.DefaultBudget.
	IndexMemory int64
	// TuneRuntime fits the Go runtime to a long-lived process (serve,
	// mcp): unless GOMEMLIMIT is set, IndexMemory plus headroom is its
	// soft memory limit, and unless GOGC is set, GOGC is 50.
	TuneRuntime bool
	// Embedder is the embedder: $LOCI_EMBEDDER and $LOCI_EMBED_*.
	Embedder EmbedderConfig
	// VectorWeight is the fusion weight of a semantic embedder's
	// similarity beside BM25's; nil keeps the default (1; the hash
	// embedder keeps its own 0.1). $LOCI_VECTOR_WEIGHT.
	VectorWeight *float64

	// LLM is the chat model that reads conversations added as memories:
	// none unless a URL is given.
	LLM LLMConfig

	// Audit writes every memory access to the audit log. --audit (serve,
	// mcp); on.
	Audit bool
	// Metrics counts storage transactions and the embedding queue for
	// GET /metrics (serve).
	Metrics bool

	// Serve holds the server's settings: nil for every command but serve.
	Serve *ServeConfig

	// envErrs are the environment variables that did not parse, by
	// name; Validate reports them, unless a flag given overrides the
	// variable (parseFlags).
	envErrs map[string]error
	// given are the flags given on the command line (parseFlags), for the
	// checks of combinations.
	given map[string]bool
}

// EmbedderConfig names the embedder.
type EmbedderConfig struct {
	// Kind is auto (the default, also ""), lexical (also hash) or openai.
	// auto looks, at start, for a model server on this machine that lists
	// an embedding model (Probe) and is openai on it when one does, else
	// lexical (resolve). --embedder, $LOCI_EMBEDDER.
	Kind string
	// Probe is where auto looks: "" for embed.DefaultProbes, "none" for
	// nowhere, else comma-separated KIND=URL (KIND ollama or openai).
	// $LOCI_EMBED_PROBE.
	Probe string
	// Dimensions is the vector length; 0 for the embedder's default (hash:
	// 256). $LOCI_EMBED_DIMENSIONS.
	Dimensions int
	// HashVectors has the hash embedder make, store, index and scan
	// vectors; without it (the default) the hash embedder is off and
	// search is lexical only, since its vectors, lexical too, add
	// nothing measurable to BM25 and cost about 1.5 KB of disk and some index
	// per record. --hash-vectors (serve, mcp, reindex),
	// $LOCI_HASH_VECTORS.
	HashVectors bool
	// URL, Model and APIKey configure openai: $LOCI_EMBED_URL (default
	// https://api.openai.com/v1), $LOCI_EMBED_MODEL (default
	// text-embedding-3-small), $LOCI_EMBED_API_KEY (default
	// $OPENAI_API_KEY).
	URL, Model, APIKey string
}

// LLMConfig names the chat model, any OpenAI-compatible
// /v1/chat/completions: --llm-url and $LOCI_LLM_URL (the API root, e.g.
// http://localhost:11434/v1), --llm-model and $LOCI_LLM_MODEL,
// $LOCI_LLM_API_KEY, --llm-timeout and $LOCI_LLM_TIMEOUT (the longest an
// add waits for it, its calls together; default 30s).
type LLMConfig struct {
	URL, Model, APIKey string
	Timeout            time.Duration
}

// ServeConfig is what only loci serve takes, each from its flag.
type ServeConfig struct {
	Addr              string        // --addr
	Auth              bool          // --auth: require a key even while none exists
	RateLimit         float64       // --rate-limit: requests per second per key (or IP); 0: none
	RateBurst         int           // --rate-burst: the burst above RateLimit
	AuditRetention    time.Duration // --audit-retention: prune older audit entries; 0: keep them
	AuditMaxEntries   int           // --audit-max-entries: prune the oldest beyond this many; 0: no bound
	MaxImportBytes    int64         // --max-import-bytes
	ReadHeaderTimeout time.Duration // --read-header-timeout
	ReadTimeout       time.Duration // --read-timeout
	WriteTimeout      time.Duration // --write-timeout
	IdleTimeout       time.Duration // --idle-timeout
	ShutdownTimeout   time.Duration // --shutdown-timeout: the longest drain on SIGTERM
	MaintainEvery     time.Duration // --maintain-every: run every maintenance task at this interval; 0: never
	Pprof             string        // --pprof: serve net/http/pprof on this address; "": off
}

// defaultDBTimeout is the longest wait for the database unless
// --db-timeout or $LOCI_DB_TIMEOUT says otherwise.
const defaultDBTimeout = 5 * time.Second

// loadConfig returns the defaults with the environment applied.
func loadConfig() Config { return configFromEnv(os.Getenv) }

// configFromEnv returns the defaults with the environment getenv reads
// applied. A variable that does not parse is kept for Validate to report,
// so that a command that does not use it (a verb given --server) does not
// fail for it.
func configFromEnv(getenv func(string) string) Config {
	c := Config{
		DB:           getenv("LOCI_DB"),
		DBTimeout:    defaultDBTimeout,
		RetryBackoff: retry.DefaultBackoff,
		IndexMemory:  index.DefaultBudget,
		Audit:        true,
		LLM: LLMConfig{URL: strings.TrimSpace(getenv("LOCI_LLM_URL")), Model: strings.TrimSpace(getenv("LOCI_LLM_MODEL")),
			APIKey: getenv("LOCI_LLM_API_KEY"), Timeout: rules.DefaultChatTimeout},
		Embedder: EmbedderConfig{
			Kind:   strings.ToLower(strings.TrimSpace(getenv("LOCI_EMBEDDER"))),
			Probe:  strings.TrimSpace(getenv("LOCI_EMBED_PROBE")),
			URL:    getenv("LOCI_EMBED_URL"),
			Model:  getenv("LOCI_EMBED_MODEL"),
			APIKey: getenv("LOCI_EMBED_API_KEY"),
		},
	}
	c.envErrs = map[string]error{}
	fail := func(name string, err error) { c.envErrs[name] = err }
	if v := getenv("LOCI_DB_TIMEOUT"); v != "" {
		d, err := time.ParseDuration(strings.TrimSpace(v))
		if err != nil || d <= 0 {
			fail("LOCI_DB_TIMEOUT", loci.Errorf(loci.EINVALID, "LOCI_DB_TIMEOUT must be a positive duration such as 5s, not %q", v))
		} else {
			c.DBTimeout = d
		}
	}
	if v := getenv("LOCI_LLM_TIMEOUT"); v != "" {
		d, err := time.ParseDuration(strings.TrimSpace(v))
		if err != nil || d <= 0 {
			fail("LOCI_LLM_TIMEOUT", loci.Errorf(loci.EINVALID, "LOCI_LLM_TIMEOUT must be a positive duration such as 30s, not %q", v))
		} else {
			c.LLM.Timeout = d
		}
	}
	if c.Embedder.URL == "" {
		c.Embedder.URL = "https://api.openai.com/v1"
	}
	if c.Embedder.Model == "" {
		c.Embedder.Model = "text-embedding-3-small"
	}
	if c.Embedder.APIKey == "" {
		c.Embedder.APIKey = getenv("OPENAI_API_KEY")
	}
	if v := getenv("LOCI_EMBED_DIMENSIONS"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil {
			fail("LOCI_EMBED_DIMENSIONS", loci.Errorf(loci.EINVALID, "LOCI_EMBED_DIMENSIONS must be a positive number"))
		}
		c.Embedder.Dimensions = n
	}
	if v := getenv("LOCI_HASH_VECTORS"); v != "" {
		b, err := strconv.ParseBool(strings.TrimSpace(v))
		if err != nil {
			fail("LOCI_HASH_VECTORS", loci.Errorf(loci.EINVALID, "LOCI_HASH_VECTORS must be true or false, not %q", v))
		}
		c.Embedder.HashVectors = b
	}
	if v := getenv("LOCI_VECTOR_WEIGHT"); v != "" {
		w, err := strconv.ParseFloat(strings.TrimSpace(v), 64)
		if err != nil {
			fail("LOCI_VECTOR_WEIGHT", loci.Errorf(loci.EINVALID, "LOCI_VECTOR_WEIGHT must be a number, 0 or more, not %q", v))
		}
		c.VectorWeight = &w
	}
	return c
}

// Validate reports the first thing wrong with c. What a flag set is a
// usage error (exit status 2) naming the flag; what only the environment
// sets is an invalid error (exit status 1) naming the variable.
func (c *Config) Validate() error {
	for _, name := range envVars {
		if err := c.envErrs[name]; err != nil {
			return err
		}
	}
	switch {
	case c.DBTimeout <= 0:
		return usagef("--db-timeout must be positive, e.g. 5s")
	case c.DBPooler && !isPostgresDSN(c.DB):
		return usagef("--db-pooler applies to a PostgreSQL database (--db postgres://…)")
	case len(c.DBRead) > 0 && !isPostgresDSN(c.DB):
		return usagef("--db-read applies to a PostgreSQL database (--db postgres://…)")
	case c.DBReadMaxLag < 0:
		return usagef("--db-read-max-lag must not be negative")
	case c.RetryBackoff < 0:
		return usagef("--retry-backoff must not be negative")
	case c.IndexMemory < 0:
		return usagef("--index-memory must not be negative")
	}
	c.Embedder.Kind = strings.ToLower(strings.TrimSpace(c.Embedder.Kind))
	switch c.Embedder.Kind {
	case "", embedderAuto, embedderLexical, embedderHash, embedderOpenAI:
	default:
		if c.given["embedder"] {
			return usagef("--embedder must be auto, lexical (also hash) or openai, not %q", c.Embedder.Kind)
		}
		return loci.Errorf(loci.EINVALID, "LOCI_EMBEDDER must be auto, lexical (also hash) or openai, not %q", c.Embedder.Kind)
	}
	if _, err := parseProbes(c.Embedder.Probe); err != nil {
		return err
	}
	if c.Embedder.HashVectors && c.Embedder.Kind == embedderOpenAI {
		if c.given["hash-vectors"] {
			return usagef("--hash-vectors is for the hash embedder, but the embedder is openai")
		}
		return loci.Errorf(loci.EINVALID, "LOCI_HASH_VECTORS is for the hash embedder, but LOCI_EMBEDDER is openai")
	}
	if c.Embedder.Dimensions < 0 {
		return loci.Errorf(loci.EINVALID, "LOCI_EMBED_DIMENSIONS must be a positive number")
	}
	if err := c.validateLLM(); err != nil {
		return err
	}
	if w := c.VectorWeight; w != nil && (*w < 0 || math.IsInf(*w, 0) || math.IsNaN(*w)) {
		return loci.Errorf(loci.EINVALID, "LOCI_VECTOR_WEIGHT must be a number, 0 or more, not %q", strconv.FormatFloat(*w, 'g', -1, 64))
	}
	if c.Serve != nil {
		return c.validateServe()
	}
	return nil
}

// validateLLM checks the chat model's settings: a URL and a model
// together, an http(s) URL, a positive timeout. A flag given is named as
// a usage error, else the variable.
func (c *Config) validateLLM() error {
	l := c.LLM
	name := func(flag, env string) string {
		if c.given[flag] {
			return "--" + flag
		}
		return env
	}
	fail := func(flag, format string, args ...any) error {
		if c.given[flag] {
			return usagef(format, args...)
		}
		return loci.Errorf(loci.EINVALID, format, args...)
	}
	switch {
	case l.Timeout <= 0:
		return fail("llm-timeout", "%s must be positive, e.g. 30s", name("llm-timeout", "LOCI_LLM_TIMEOUT"))
	case l.URL == "" && l.Model == "":
		return nil
	case l.URL == "":
		return fail("llm-model", "%s names a chat model but no URL is given: set %s too", name("llm-model", "LOCI_LLM_MODEL"), name("llm-url", "LOCI_LLM_URL"))
	case l.Model == "":
		return fail("llm-url", "%s names a chat model server but no model: set %s too", name("llm-url", "LOCI_LLM_URL"), name("llm-model", "LOCI_LLM_MODEL"))
	case !strings.HasPrefix(l.URL, "http://") && !strings.HasPrefix(l.URL, "https://"):
		return fail("llm-url", "%s must be an http:// or https:// URL such as http://localhost:11434/v1, not %q", name("llm-url", "LOCI_LLM_URL"), l.URL)
	}
	return nil
}

// validateServe checks serve's settings and their combinations.
func (c *Config) validateServe() error {
	s := c.Serve
	if _, _, err := net.SplitHostPort(s.Addr); err != nil {
		return usagef("--addr %q must be HOST:PORT, e.g. 127.0.0.1:8420", s.Addr)
	}
	if s.Pprof != "" {
		if _, _, err := net.SplitHostPort(s.Pprof); err != nil {
			return usagef("--pprof %q must be HOST:PORT, e.g. 127.0.0.1:6060", s.Pprof)
		}
		if s.Pprof == s.Addr && !strings.HasSuffix(s.Addr, ":0") {
			return usagef("--pprof must not be --addr's address %s", s.Addr)
		}
	}
	for _, d := range []struct {
		name string
		v    time.Duration
	}{
		{"maintain-every", s.MaintainEvery}, {"audit-retention", s.AuditRetention},
		{"read-header-timeout", s.ReadHeaderTimeout}, {"read-timeout", s.ReadTimeout},
		{"write-timeout", s.WriteTimeout}, {"idle-timeout", s.IdleTimeout}, {"shutdown-timeout", s.ShutdownTimeout},
	} {
		if d.v < 0 {
			return usagef("--%s must not be negative", d.name)
		}
	}
	if s.AuditMaxEntries < 0 {
		return usagef("--audit-max-entries must not be negative")
	}
	switch {
	case s.RateLimit < 0 || math.IsInf(s.RateLimit, 0) || math.IsNaN(s.RateLimit):
		return usagef("--rate-limit must be a number of requests per second, 0 (no limit) or more")
	case s.RateLimit > 0 && s.RateBurst < 1:
		return usagef("--rate-burst must be at least 1")
	case s.RateLimit == 0 && c.given["rate-burst"]:
		return usagef("--rate-burst needs --rate-limit: without it nothing is limited")
	case s.MaxImportBytes <= 0:
		return usagef("--max-import-bytes must be positive")
	}
	return nil
}

// parseFlags parses args with fs (see parseFlags) and remembers which
// flags were given, for Validate's checks of combinations; a flag given
// overrides its variable, so that variable's parse error no longer
// counts.
func (c *Config) parseFlags(fs *flag.FlagSet, args []string) ([]string, error) {
	pos, err := parseFlags(fs, args)
	if err != nil {
		return nil, err
	}
	c.given = map[string]bool{}
	fs.Visit(func(f *flag.Flag) {
		c.given[f.Name] = true
		delete(c.envErrs, flagEnv[f.Name])
	})
	return pos, nil
}

// envVars are the variables configFromEnv parses, in the order Validate
// reports them.
var envVars = []string{"LOCI_DB_TIMEOUT", "LOCI_EMBED_DIMENSIONS", "LOCI_HASH_VECTORS", "LOCI_VECTOR_WEIGHT", "LOCI_LLM_TIMEOUT"}

// The embedder kinds (EmbedderConfig.Kind).
const (
	embedderAuto    = "auto"
	embedderLexical = "lexical"
	embedderHash    = "hash" // another name for lexical
	embedderOpenAI  = "openai"
)

// flagEnv maps a flag to the variable that is its default.
var flagEnv = map[string]string{"db-timeout": "LOCI_DB_TIMEOUT", "hash-vectors": "LOCI_HASH_VECTORS", "llm-timeout": "LOCI_LLM_TIMEOUT"}

// dbFlag registers --db.
func (c *Config) dbFlag(fs *flag.FlagSet) {
	fs.StringVar(&c.DB, "db", c.DB, "database: a file path, :memory:, or postgres://… (default $LOCI_DB, else a file in the user's data directory)")
}

// indexMemoryFlag registers --index-memory.
func (c *Config) indexMemoryFlag(fs *flag.FlagSet) {
	fs.Var((*byteSize)(&c.IndexMemory), "index-memory", "memory for in-memory search indexes, e.g. 256MB; the scopes searched are kept within it, least recently used first out")
}

// hashVectorsFlag registers --hash-vectors and --embedder.
func (c *Config) hashVectorsFlag(fs *flag.FlagSet) {
	fs.BoolVar(&c.Embedder.HashVectors, "hash-vectors", c.Embedder.HashVectors,
		"with the built-in hash embedder, make, store and search its vectors (off by default: search is lexical only, and they add nothing measurable to it); default $LOCI_HASH_VECTORS")
	fs.StringVar(&c.Embedder.Kind, "embedder", c.Embedder.Kind,
		"auto: at start, look for a model server on this machine that lists an embedding model (Ollama on 11434, llama.cpp, LM Studio "+
			"or vLLM on 8080, 1234, 8000: one GET of the model list each, half a second in all; $LOCI_EMBED_PROBE=KIND=URL,… or none "+
			"says where instead) and search by meaning and by words with it, else by words only; lexical (also hash): by words only, never "+
			"looking; openai: $LOCI_EMBED_URL and $LOCI_EMBED_MODEL (default $LOCI_EMBEDDER, else auto)")
}

// auditFlag registers --audit; what describes what is audited.
func (c *Config) auditFlag(fs *flag.FlagSet, what string) {
	fs.BoolVar(&c.Audit, "audit", c.Audit, "write every "+what+" to the audit log")
}

// serveFlags registers every flag of loci serve and turns on what a
// long-lived server has: metrics, the runtime's tuning, Serve.
func (c *Config) serveFlags(fs *flag.FlagSet) {
	c.Metrics, c.TuneRuntime = true, true
	c.Serve = &ServeConfig{}
	s := c.Serve
	fs.StringVar(&s.Addr, "addr", "127.0.0.1:8420", "address to listen on")
	c.dbFlag(fs)
	fs.DurationVar(&c.DBTimeout, "db-timeout", c.DBTimeout,
		"longest wait for the database (a free connection, a lock, an answer), its retry included, before a request fails with 503 (default $LOCI_DB_TIMEOUT, else 5s)")
	fs.BoolVar(&c.DBPooler, "db-pooler", false,
		"--db reaches PostgreSQL through a transaction pooler (PgBouncer with pool_mode = transaction): prepare no statement across "+
			"transactions and set the DSN's search_path in each (default: when the DSN sets default_query_exec_mode, or the pooler refuses search_path)")
	fs.Var((*repeatFlag)(&c.DBRead), "db-read",
		"a hot standby of --db (postgres://…) that searches and reads go to, repeatable; writes go to --db, and a client's read "+
			"after its own write goes to a standby only once it has replayed that write, else to --db; a standby down or lagging "+
			"past --db-read-max-lag is skipped")
	fs.DurationVar(&c.DBReadMaxLag, "db-read-max-lag", postgres.DefaultMaxLag,
		"skip a --db-read standby that has not replayed what the primary had written this long ago")
	fs.DurationVar(&s.MaintainEvery, "maintain-every", 0, "run every maintenance task at this interval, e.g. 1h (default off)")
	fs.BoolVar(&s.Auth, "auth", false, "require an API key even while none exists (it is required anyway once one exists)")
	fs.Float64Var(&s.RateLimit, "rate-limit", 0, "requests per second allowed per key (per client IP without auth); 0: no limit")
	fs.IntVar(&s.RateBurst, "rate-burst", 50, "burst allowed above --rate-limit")
	c.auditFlag(fs, "memory access")
	fs.DurationVar(&s.AuditRetention, "audit-retention", loci.DefaultAuditRetention.MaxAge,
		"delete audit entries older than this (checked every minute); 0: keep them whatever their age")
	fs.IntVar(&s.AuditMaxEntries, "audit-max-entries", loci.DefaultAuditRetention.MaxEntries,
		"keep at most this many audit entries, deleting the oldest (checked every minute); 0: no bound")
	fs.DurationVar(&c.RetryBackoff, "retry-backoff", c.RetryBackoff, "wait before retrying a transient storage error once (only when the retry fits in --db-timeout)")
	fs.Int64Var(&s.MaxImportBytes, "max-import-bytes", httpapi.DefaultMaxImportBytes, "largest POST /v1/import body")
	fs.DurationVar(&s.ReadHeaderTimeout, "read-header-timeout", 10*time.Second, "time to read a request's headers")
	fs.DurationVar(&s.ReadTimeout, "read-timeout", 30*time.Second, "time to read a whole request")
	fs.DurationVar(&s.WriteTimeout, "write-timeout", 60*time.Second, "time to write a response (export is exempt)")
	fs.DurationVar(&s.IdleTimeout, "idle-timeout", 120*time.Second, "how long an idle keep-alive connection is kept")
	fs.DurationVar(&s.ShutdownTimeout, "shutdown-timeout", 15*time.Second,
		"on SIGTERM, the longest wait for the requests being handled to finish (new ones are refused meanwhile)")
	c.indexMemoryFlag(fs)
	c.hashVectorsFlag(fs)
	c.llmFlags(fs)
	fs.StringVar(&s.Pprof, "pprof", "", "serve net/http/pprof on this address (e.g. 127.0.0.1:6060); off by default")
}

// llmFlags registers --llm-url, --llm-model and --llm-timeout.
func (c *Config) llmFlags(fs *flag.FlagSet) {
	fs.StringVar(&c.LLM.URL, "llm-url", c.LLM.URL, "a chat model server that reads conversations added as memories: any "+
		"OpenAI-compatible API root, e.g. http://localhost:11434/v1 (Ollama); off by default (default $LOCI_LLM_URL; its key: $LOCI_LLM_API_KEY)")
	fs.StringVar(&c.LLM.Model, "llm-model", c.LLM.Model, "the chat model's name, with --llm-url (default $LOCI_LLM_MODEL)")
	fs.DurationVar(&c.LLM.Timeout, "llm-timeout", c.LLM.Timeout, "the longest an add of messages waits for the chat model "+
		"before answering 503 (default $LOCI_LLM_TIMEOUT, else 30s)")
}

// memoryOptions validates c and returns the service options it sets: the
// logger, the embedder, the ranking and the index budget.
func (c *Config) memoryOptions(logger *slog.Logger) ([]rules.Option, error) {
	if err := c.Validate(); err != nil {
		return nil, err
	}
	emb, err := c.Embedder.open(context.Background(), logger)
	if err != nil {
		return nil, err
	}
	opts := []rules.Option{rules.WithLogger(logger), rules.WithIndexBudget(c.IndexMemory), rules.WithAudit(c.Audit)}
	if emb != nil {
		opts = append(opts, rules.WithEmbedder(emb))
	}
	if c.LLM.URL != "" {
		m, err := llm.NewOpenAI(llm.Config{URL: c.LLM.URL, Model: c.LLM.Model, APIKey: c.LLM.APIKey, Timeout: c.LLM.Timeout})
		if err != nil {
			return nil, err
		}
		opts = append(opts, rules.WithChatModel(m, c.LLM.Timeout))
	}
	if c.VectorWeight != nil {
		p := rules.DefaultRanking()
		p.VectorWeight = *c.VectorWeight
		opts = append(opts, rules.WithRanking(p))
	}
	return opts, nil
}
