package main

import (
	"context"
	"errors"
	"flag"
	"math"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/loci-memory/loci"
	"github.com/loci-memory/loci/httpapi"
	"github.com/loci-memory/loci/index"
	"github.com/loci-memory/loci/internal/testdb"
	"github.com/loci-memory/loci/retry"
	"github.com/loci-memory/loci/rules"
)

// envOf returns a getenv reading vars.
func envOf(vars map[string]string) func(string) string {
	return func(name string) string { return vars[name] }
}

func TestConfigFromEnv(t *testing.T) {
	t.Run("Defaults", func(t *testing.T) {
		c := configFromEnv(envOf(nil))
		if c.DB != "" || c.DBTimeout != defaultDBTimeout || c.RetryBackoff != retry.DefaultBackoff ||
			c.IndexMemory != index.DefaultBudget || !c.Audit || c.Metrics || c.TuneRuntime || c.Serve != nil || c.VectorWeight != nil {
			t.Errorf("defaults: %+v", c)
		}
		want := EmbedderConfig{URL: "https://api.openai.com/v1", Model: "text-embedding-3-small"}
		if c.Embedder != want {
			t.Errorf("embedder = %+v, want %+v", c.Embedder, want)
		}
		if err := c.Validate(); err != nil {
			t.Errorf("Validate: %v", err)
		}
	})
	t.Run("OK", func(t *testing.T) {
		c := configFromEnv(envOf(map[string]string{
			"LOCI_DB": "/tmp/x.db", "LOCI_DB_TIMEOUT": "250ms", "LOCI_EMBEDDER": "OpenAI", "LOCI_EMBED_DIMENSIONS": "64",
			"LOCI_EMBED_URL": "http://127.0.0.1:11434/v1", "LOCI_EMBED_MODEL": "nomic", "OPENAI_API_KEY": "sk-1",
			"LOCI_VECTOR_WEIGHT": " 0.5 ",
		}))
		want := EmbedderConfig{Kind: "openai", Dimensions: 64, URL: "http://127.0.0.1:11434/v1", Model: "nomic", APIKey: "sk-1"}
		if c.DB != "/tmp/x.db" || c.DBTimeout != 250*time.Millisecond || c.Embedder != want || c.VectorWeight == nil || *c.VectorWeight != 0.5 {
			t.Errorf("got %+v (embedder %+v)", c, c.Embedder)
		}
		if err := c.Validate(); err != nil {
			t.Errorf("Validate: %v", err)
		}
	})
	t.Run("EmbedAPIKeyFirst", func(t *testing.T) {
		c := configFromEnv(envOf(map[string]string{"LOCI_EMBED_API_KEY": "a", "OPENAI_API_KEY": "b"}))
		if c.Embedder.APIKey != "a" {
			t.Errorf("api key = %q, want LOCI_EMBED_API_KEY's", c.Embedder.APIKey)
		}
	})
	// A variable that does not parse is reported by Validate, as an
	// invalid error (exit 1) naming it.
	for _, tc := range []struct {
		name, value, want string
	}{
		{"LOCI_DB_TIMEOUT", "soon", "LOCI_DB_TIMEOUT must be a positive duration such as 5s"},
		{"LOCI_DB_TIMEOUT", "-1s", "LOCI_DB_TIMEOUT must be a positive duration"},
		{"LOCI_DB_TIMEOUT", "0", "LOCI_DB_TIMEOUT must be a positive duration"},
		{"LOCI_EMBEDDER", "word2vec", `LOCI_EMBEDDER must be auto, lexical (also hash) or openai, not "word2vec"`},
		{"LOCI_EMBED_PROBE", "11434", "LOCI_EMBED_PROBE must be none or comma-separated KIND=URL"},
		{"LOCI_EMBED_PROBE", "bert=http://127.0.0.1:1", "LOCI_EMBED_PROBE must be none"},
		{"LOCI_EMBED_PROBE", "ollama=127.0.0.1:11434", "LOCI_EMBED_PROBE must be none"},
		{"LOCI_EMBED_DIMENSIONS", "many", "LOCI_EMBED_DIMENSIONS must be a positive number"},
		{"LOCI_EMBED_DIMENSIONS", "-3", "LOCI_EMBED_DIMENSIONS must be a positive number"},
		{"LOCI_HASH_VECTORS", "maybe", `LOCI_HASH_VECTORS must be true or false, not "maybe"`},
		{"LOCI_VECTOR_WEIGHT", "heavy", "LOCI_VECTOR_WEIGHT must be a number, 0 or more"},
		{"LOCI_VECTOR_WEIGHT", "-1", `LOCI_VECTOR_WEIGHT must be a number, 0 or more, not "-1"`},
		{"LOCI_VECTOR_WEIGHT", "NaN", "LOCI_VECTOR_WEIGHT must be a number, 0 or more"},
	} {
		t.Run("Err"+tc.name+"="+tc.value, func(t *testing.T) {
			c := configFromEnv(envOf(map[string]string{tc.name: tc.value}))
			err := c.Validate()
			var ue *usageError
			if err == nil || errors.As(err, &ue) || loci.ErrorCode(err) != loci.EINVALID || !strings.Contains(loci.ErrorMessage(err), tc.want) {
				t.Errorf("Validate = %v, want an invalid error saying %q", err, tc.want)
			}
		})
	}
}

// TestEmbedderChoice: the hash embedder makes no vectors unless
// --hash-vectors or LOCI_HASH_VECTORS asks; a flag given overrides the
// variable, and its parse error. auto with no model server where it looks
// is lexical (TestEmbedderAuto has the servers).
func TestEmbedderChoice(t *testing.T) {
	nowhere := closedPort(t)
	for _, tc := range []struct {
		name  string
		env   map[string]string
		args  []string
		model string // "" for none
	}{
		{"Default", map[string]string{"LOCI_EMBED_PROBE": nowhere}, nil, ""},
		{"Hash", map[string]string{"LOCI_EMBEDDER": "hash"}, nil, ""},
		{"Lexical", map[string]string{"LOCI_EMBEDDER": "lexical"}, nil, ""},
		{"LexicalFlag", nil, []string{"--embedder", "lexical"}, ""},
		{"Env", map[string]string{"LOCI_HASH_VECTORS": "true"}, nil, "hash-v1-256"},
		{"EnvDims", map[string]string{"LOCI_HASH_VECTORS": "1", "LOCI_EMBED_DIMENSIONS": "64"}, nil, "hash-v1-64"},
		{"EnvOff", map[string]string{"LOCI_HASH_VECTORS": "false"}, nil, ""},
		{"Flag", nil, []string{"--hash-vectors"}, "hash-v1-256"},
		{"FlagOverEnv", map[string]string{"LOCI_HASH_VECTORS": "true"}, []string{"--hash-vectors=false"}, ""},
		{"FlagOverBadEnv", map[string]string{"LOCI_HASH_VECTORS": "maybe"}, []string{"--hash-vectors"}, "hash-v1-256"},
		{"OpenAI", map[string]string{"LOCI_EMBEDDER": "openai", "LOCI_EMBED_MODEL": "nomic"}, nil, "nomic"},
		{"OpenAIFlag", map[string]string{"LOCI_EMBEDDER": "lexical", "LOCI_EMBED_MODEL": "nomic"}, []string{"--embedder=OpenAI"}, "nomic"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := configFromEnv(envOf(tc.env))
			fs := flag.NewFlagSet("serve", flag.ContinueOnError)
			c.serveFlags(fs)
			if _, err := c.parseFlags(fs, tc.args); err != nil {
				t.Fatal(err)
			}
			if err := c.Validate(); err != nil {
				t.Fatal(err)
			}
			emb, err := c.Embedder.embedder(context.Background())
			if err != nil {
				t.Fatal(err)
			}
			switch {
			case tc.model == "" && emb != nil:
				t.Errorf("embedder %s, want none", emb.Model())
			case tc.model != "" && (emb == nil || !strings.Contains(emb.Model(), tc.model)):
				t.Errorf("embedder %v, want %s", emb, tc.model)
			}
		})
	}
}

// serveConfig is loci serve's configuration with its defaults, as its
// flags leave it.
func serveConfig(t *testing.T) Config {
	t.Helper()
	c := configFromEnv(envOf(nil))
	fs := flag.NewFlagSet("serve", flag.ContinueOnError)
	c.serveFlags(fs)
	if _, err := c.parseFlags(fs, nil); err != nil {
		t.Fatal(err)
	}
	return c
}

func TestConfigValidate(t *testing.T) {
	weight := func(w float64) *float64 { return &w }
	for _, tc := range []struct {
		name   string
		change func(c *Config)
		usage  bool   // a usage error (exit 2), else an invalid one (exit 1)
		want   string // "" for none
	}{
		{"OK", func(c *Config) {}, false, ""},
		{"OKRateLimit", func(c *Config) { c.Serve.RateLimit, c.Serve.RateBurst = 10, 1 }, false, ""},
		{"OKNoTimeouts", func(c *Config) { c.Serve.ReadTimeout, c.Serve.WriteTimeout, c.Serve.IdleTimeout = 0, 0, 0 }, false, ""},
		{"OKPprofPortZero", func(c *Config) { c.Serve.Addr, c.Serve.Pprof = "127.0.0.1:0", "127.0.0.1:0" }, false, ""},
		{"ErrDBTimeoutZero", func(c *Config) { c.DBTimeout = 0 }, true, "--db-timeout must be positive"},
		{"ErrDBTimeoutNegative", func(c *Config) { c.DBTimeout = -time.Second }, true, "--db-timeout must be positive"},
		{"ErrRetryBackoff", func(c *Config) { c.RetryBackoff = -time.Second }, true, "--retry-backoff must not be negative"},
		{"ErrIndexMemory", func(c *Config) { c.IndexMemory = -1 }, true, "--index-memory must not be negative"},
		{"ErrEmbedder", func(c *Config) { c.Embedder.Kind = "bert" }, false, "LOCI_EMBEDDER must be auto, lexical (also hash) or openai"},
		{"ErrEmbedderFlag", func(c *Config) { c.Embedder.Kind, c.given["embedder"] = "bert", true }, true, "--embedder must be auto, lexical (also hash) or openai"},
		{"ErrDimensions", func(c *Config) { c.Embedder.Dimensions = -1 }, false, "LOCI_EMBED_DIMENSIONS"},
		{"ErrWeightNegative", func(c *Config) { c.VectorWeight = weight(-0.5) }, false, "LOCI_VECTOR_WEIGHT"},
		{"ErrHashVectorsEnvOpenAI", func(c *Config) { c.Embedder.Kind, c.Embedder.HashVectors = "openai", true }, false, "LOCI_HASH_VECTORS is for the hash embedder"},
		{"ErrHashVectorsFlagOpenAI", func(c *Config) {
			c.Embedder.Kind, c.Embedder.HashVectors, c.given["hash-vectors"] = "openai", true, true
		}, true, "--hash-vectors is for the hash embedder"},
		{"ErrWeightInf", func(c *Config) { c.VectorWeight = weight(math.Inf(1)) }, false, `not "+Inf"`},
		{"ErrAddr", func(c *Config) { c.Serve.Addr = "8420" }, true, `--addr "8420" must be HOST:PORT`},
		{"ErrPprofAddr", func(c *Config) { c.Serve.Pprof = "6060" }, true, `--pprof "6060" must be HOST:PORT`},
		{"ErrPprofIsAddr", func(c *Config) { c.Serve.Pprof = c.Serve.Addr }, true, "--pprof must not be --addr's address"},
		{"ErrMaintainEvery", func(c *Config) { c.Serve.MaintainEvery = -time.Second }, true, "--maintain-every must not be negative"},
		{"ErrAuditRetention", func(c *Config) { c.Serve.AuditRetention = -time.Hour }, true, "--audit-retention must not be negative"},
		{"ErrReadTimeout", func(c *Config) { c.Serve.ReadTimeout = -time.Second }, true, "--read-timeout must not be negative"},
		{"ErrRateLimit", func(c *Config) { c.Serve.RateLimit = -1 }, true, "--rate-limit must be a number"},
		{"ErrRateLimitNaN", func(c *Config) { c.Serve.RateLimit = math.NaN() }, true, "--rate-limit must be a number"},
		{"ErrRateBurst", func(c *Config) { c.Serve.RateLimit, c.Serve.RateBurst = 5, 0 }, true, "--rate-burst must be at least 1"},
		{"ErrBurstWithoutLimit", func(c *Config) { c.given["rate-burst"] = true }, true, "--rate-burst needs --rate-limit"},
		{"ErrMaxImportBytes", func(c *Config) { c.Serve.MaxImportBytes = 0 }, true, "--max-import-bytes must be positive"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := serveConfig(t)
			tc.change(&c)
			err := c.Validate()
			if tc.want == "" {
				if err != nil {
					t.Fatalf("Validate: %v", err)
				}
				return
			}
			var ue *usageError
			switch {
			case err == nil:
				t.Fatalf("Validate succeeded, want %q", tc.want)
			case errors.As(err, &ue) != tc.usage:
				t.Errorf("Validate = %v (usage error %v), want a usage error: %v", err, !tc.usage, tc.usage)
			case !strings.Contains(err.Error(), tc.want) && !strings.Contains(loci.ErrorMessage(err), tc.want):
				t.Errorf("Validate = %v, want %q", err, tc.want)
			}
		})
	}
}

// TestServeUsageErrors: serve's bad flags and combinations of flags are
// usage errors (exit 2) naming the flag, found before the database is
// opened.
func TestServeUsageErrors(t *testing.T) {
	for _, tc := range []struct {
		name string
		args []string
		want string
	}{
		{"ErrBurstWithoutLimit", []string{"--rate-burst", "5"}, "--rate-burst needs --rate-limit"},
		{"ErrZeroBurst", []string{"--rate-limit", "10", "--rate-burst", "0"}, "--rate-burst must be at least 1"},
		{"ErrNegativeLimit", []string{"--rate-limit", "-1"}, "--rate-limit must be a number"},
		{"ErrDBTimeout", []string{"--db-timeout", "0s"}, "--db-timeout must be positive"},
		{"ErrDBPoolerSQLite", []string{"--db-pooler"}, "--db-pooler applies to a PostgreSQL database"},
		{"ErrDBReadSQLite", []string{"--db-read", "postgres://standby/loci"}, "--db-read applies to a PostgreSQL database"},
		{"ErrDBReadEmpty", []string{"--db-read", " "}, `invalid value " " for flag -db-read: empty value`},
		{"ErrDBReadMaxLag", []string{"--db-read-max-lag", "-1s"}, "--db-read-max-lag must not be negative"},
		{"ErrRetryBackoff", []string{"--retry-backoff", "-1s"}, "--retry-backoff must not be negative"},
		{"ErrMaxImport", []string{"--max-import-bytes", "0"}, "--max-import-bytes must be positive"},
		{"ErrWriteTimeout", []string{"--write-timeout", "-5s"}, "--write-timeout must not be negative"},
		{"ErrAuditRetention", []string{"--audit-retention", "-1h"}, "--audit-retention must not be negative"},
		{"ErrAuditMaxEntries", []string{"--audit-max-entries", "-1"}, "--audit-max-entries must not be negative"},
		{"ErrShutdownTimeout", []string{"--shutdown-timeout", "-1s"}, "--shutdown-timeout must not be negative"},
		{"ErrAddr", []string{"--addr", "localhost"}, `--addr "localhost" must be HOST:PORT`},
		{"ErrPprofIsAddr", []string{"--addr", "127.0.0.1:18420", "--pprof", "127.0.0.1:18420"}, "--pprof must not be --addr's address"},
		{"ErrMaintainEvery", []string{"--maintain-every", "-1s"}, "--maintain-every must not be negative"},
		{"ErrLLMTimeout", []string{"--llm-url", "http://127.0.0.1:1/v1", "--llm-model", "m", "--llm-timeout", "0s"}, "--llm-timeout must be positive"},
		{"ErrLLMURLWithoutModel", []string{"--llm-url", "http://127.0.0.1:1/v1"}, "--llm-url names a chat model server but no model"},
		{"ErrLLMModelWithoutURL", []string{"--llm-model", "llama3"}, "--llm-model names a chat model but no URL"},
		{"ErrLLMURL", []string{"--llm-url", "localhost:11434", "--llm-model", "m"}, "--llm-url must be an http:// or https:// URL"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			db := filepath.Join(t.TempDir(), "loci.db")
			code, stdout, stderr := runCLI(t, append([]string{"serve", "--db", db}, tc.args...)...)
			if code != exitUsage || !strings.Contains(stderr, "loci serve: "+tc.want) {
				t.Errorf("exit %d, stderr %q; want %d saying %q", code, stderr, exitUsage, tc.want)
			}
			if stdout != "" {
				t.Errorf("stdout %q: it listened", stdout)
			}
			if _, err := os.Stat(db); !os.IsNotExist(err) {
				t.Errorf("the database was opened: %v", err)
			}
		})
	}
}

// TestTargetUsageErrors: a verb that can use a server refuses flags the
// chosen target would ignore.
func TestTargetUsageErrors(t *testing.T) {
	srv := httptest.NewServer(httpapi.NewServer(rules.New(testdb.OpenSQLite(t)), quietLogger()))
	defer srv.Close()
	db := filepath.Join(t.TempDir(), "loci.db")
	for _, tc := range []struct {
		name string
		args []string
		want string
	}{
		{"ErrDBAndServer", []string{"recall", "--agent", "a", "--server", srv.URL, "--db", db}, "--db and --server exclude each other"},
		{"ErrDBAndServerSearch", []string{"search", "x", "--server", srv.URL, "--db", db}, "--db and --server exclude each other"},
		{"ErrAPIKeyLocal", []string{"maintain", "--api-key", "k", "--db", db}, "--api-key needs --server"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, _, stderr := runCLI(t, tc.args...)
			if code != exitUsage || !strings.Contains(stderr, tc.want) {
				t.Errorf("exit %d, stderr %q; want %d saying %q", code, stderr, exitUsage, tc.want)
			}
			if _, err := os.Stat(db); !os.IsNotExist(err) {
				t.Errorf("the local database was opened: %v", err)
			}
		})
	}
	t.Run("OKServerIgnoresLocalSettings", func(t *testing.T) {
		// The embedder and ranking are the server's: a bad local setting
		// does not stop a verb given --server.
		t.Setenv("LOCI_VECTOR_WEIGHT", "heavy")
		t.Setenv("LOCI_DB_TIMEOUT", "soon")
		if code, _, stderr := runCLI(t, "recall", "--agent", "a", "--server", srv.URL); code != exitOK {
			t.Errorf("exit %d, stderr %q", code, stderr)
		}
	})
	t.Run("OKFlagOverridesEnv", func(t *testing.T) {
		t.Setenv("LOCI_DB_TIMEOUT", "soon")
		c := loadConfig()
		fs := flag.NewFlagSet("serve", flag.ContinueOnError)
		c.serveFlags(fs)
		if _, err := c.parseFlags(fs, []string{"--db-timeout", "2s"}); err != nil {
			t.Fatal(err)
		}
		if err := c.Validate(); err != nil || c.DBTimeout != 2*time.Second {
			t.Errorf("Validate = %v, db timeout %v; want --db-timeout to override LOCI_DB_TIMEOUT", err, c.DBTimeout)
		}
	})
	t.Run("ErrEnvLocal", func(t *testing.T) {
		t.Setenv("LOCI_DB_TIMEOUT", "soon")
		code, _, stderr := runCLI(t, "recall", "--agent", "a", "--db", db)
		if code != exitDomain || !strings.Contains(stderr, "LOCI_DB_TIMEOUT must be a positive duration") {
			t.Errorf("exit %d, stderr %q; want %d naming LOCI_DB_TIMEOUT", code, stderr, exitDomain)
		}
	})
}

// TestOpenService: the one builder opens what the Config names, with
// metrics only when asked, and opens nothing for an invalid Config.
func TestOpenService(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	for _, withMetrics := range []bool{false, true} {
		c := configFromEnv(envOf(nil))
		c.DB, c.Metrics = filepath.Join(dir, "loci.db"), withMetrics
		svc, err := openService(ctx, c, quietLogger())
		if err != nil {
			t.Fatal(err)
		}
		if svc.db != c.DB || (svc.metrics != nil) != withMetrics {
			t.Errorf("metrics %v: db %q, metrics %v", withMetrics, svc.db, svc.metrics)
		}
		if _, err := svc.Remember(ctx, "a", "k", []byte(`"v"`)); err != nil {
			t.Error(err)
		}
		for range 2 {
			if _, err := svc.Search(ctx, loci.SearchQuery{Query: "v", AgentID: "a"}); err != nil {
				t.Error(err)
			}
		}
		if withMetrics {
			rec := httptest.NewRecorder()
			svc.metrics.Handler().ServeHTTP(rec, httptest.NewRequest("GET", "/metrics", nil))
			if !strings.Contains(rec.Body.String(), `loci_store_transaction_duration_seconds_count{op="update",result="ok"}`) {
				t.Errorf("the store's transactions are not counted:\n%s", rec.Body.String())
			}
			for _, want := range []string{"loci_index_loads_total 1\n", "loci_index_resets_total 0\n", "loci_index_hits_total 1\n"} {
				if !strings.Contains(rec.Body.String(), want) {
					t.Errorf("the search index's %s is not exported:\n%s", want, rec.Body.String())
				}
			}
		}
		if err := svc.Close(); err != nil {
			t.Error(err)
		}
	}
	c := configFromEnv(envOf(nil))
	c.DB, c.DBTimeout = filepath.Join(dir, "never.db"), 0
	if _, err := openService(ctx, c, quietLogger()); err == nil {
		t.Error("an invalid Config opened a service")
	}
	if _, err := os.Stat(c.DB); !os.IsNotExist(err) {
		t.Errorf("an invalid Config opened the database: %v", err)
	}
}

// TestLLMConfig: the chat model's settings from the environment, checked
// by Validate naming the variable, and built into the service's model.
func TestLLMConfig(t *testing.T) {
	c := configFromEnv(envOf(nil))
	if c.LLM != (LLMConfig{Timeout: rules.DefaultChatTimeout}) {
		t.Errorf("default LLM = %+v, want none with the default timeout", c.LLM)
	}
	c = configFromEnv(envOf(map[string]string{"LOCI_LLM_URL": " http://127.0.0.1:11434/v1 ", "LOCI_LLM_MODEL": "llama3.2",
		"LOCI_LLM_API_KEY": "sk-2", "LOCI_LLM_TIMEOUT": "5s"}))
	if want := (LLMConfig{URL: "http://127.0.0.1:11434/v1", Model: "llama3.2", APIKey: "sk-2", Timeout: 5 * time.Second}); c.LLM != want {
		t.Errorf("LLM = %+v, want %+v", c.LLM, want)
	}
	opts, err := c.memoryOptions(quietLogger())
	if err != nil {
		t.Fatal(err)
	}
	svc := rules.New(testdb.OpenSQLite(t), opts...)
	if m := svc.ChatModel(); m == nil || m.Model() != "llama3.2" {
		t.Errorf("the service's chat model = %v, want llama3.2", m)
	}
	for _, tc := range []struct {
		name string
		env  map[string]string
		want string
	}{
		{"ErrTimeout", map[string]string{"LOCI_LLM_TIMEOUT": "soon"}, "LOCI_LLM_TIMEOUT must be a positive duration"},
		{"ErrNoModel", map[string]string{"LOCI_LLM_URL": "http://127.0.0.1:1/v1"}, "LOCI_LLM_URL names a chat model server but no model: set LOCI_LLM_MODEL"},
		{"ErrNoURL", map[string]string{"LOCI_LLM_MODEL": "m"}, "LOCI_LLM_MODEL names a chat model but no URL is given: set LOCI_LLM_URL"},
		{"ErrURL", map[string]string{"LOCI_LLM_URL": "ftp://x", "LOCI_LLM_MODEL": "m"}, "LOCI_LLM_URL must be an http:// or https:// URL"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := configFromEnv(envOf(tc.env))
			err := c.Validate()
			if loci.ErrorCode(err) != loci.EINVALID || !strings.Contains(loci.ErrorMessage(err), tc.want) {
				t.Errorf("Validate = %v, want invalid saying %q", err, tc.want)
			}
		})
	}
}
