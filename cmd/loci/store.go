package main

import (
	"context"
	"fmt"
	"log/slog"
	"net/url"
	"os"
	"path/filepath"
	"runtime"

	"github.com/loci-memory/loci"
	"github.com/loci-memory/loci/metrics"
	"github.com/loci-memory/loci/postgres"
	"github.com/loci-memory/loci/retry"
	"github.com/loci-memory/loci/rules"
	"github.com/loci-memory/loci/sqlite"
)

// defaultDBPath is loci.db in the user's data directory.
func defaultDBPath() (string, error) {
	dir := os.Getenv("XDG_DATA_HOME")
	if dir == "" {
		home, err := os.UserHomeDir()
		if err != nil {
			return "", fmt.Errorf("find the user's data directory: %w", err)
		}
		if runtime.GOOS == "darwin" {
			dir = filepath.Join(home, "Library", "Application Support")
		} else {
			dir = filepath.Join(home, ".local", "share")
		}
	}
	return filepath.Join(dir, "loci", "loci.db"), nil
}

// openRawStore opens the backend that cfg.DB names, without decorators;
// cfg.DBTimeout bounds every wait for the database.
func openRawStore(ctx context.Context, cfg Config) (loci.Store, string, error) {
	dsn, timeout := cfg.DB, cfg.DBTimeout
	if dsn == "" {
		p, err := defaultDBPath()
		if err != nil {
			return nil, "", err
		}
		dsn = p
	}
	if isPostgresDSN(dsn) {
		opts := []postgres.Option{postgres.WithTimeout(timeout)}
		if cfg.DBPooler {
			opts = append(opts, postgres.WithTransactionPooling())
		}
		if len(cfg.DBRead) > 0 {
			opts = append(opts, postgres.WithReadReplicas(cfg.DBRead...), postgres.WithMaxLag(cfg.DBReadMaxLag))
		}
		db, err := postgres.Open(ctx, dsn, opts...)
		if err != nil {
			return nil, "", &openError{db: redactDSN(dsn), err: err}
		}
		return db, redactDSN(dsn), nil
	}
	db, err := sqlite.Open(ctx, dsn, sqlite.WithTimeout(timeout))
	if err != nil {
		return nil, "", &openError{db: dsn, err: err}
	}
	return db, dsn, nil
}

// openError is a database that cannot be opened (a path that cannot be
// created or is not a database, a server that does not answer): the CLI
// says so and names it, never "internal error".
type openError struct {
	db  string // the path, or the URL without its password
	err error
}

func (e *openError) Error() string {
	cause := e.err.Error()
	if loci.ErrorCode(e.err) != loci.EINTERNAL {
		cause = loci.ErrorMessage(e.err)
	}
	return fmt.Sprintf("cannot open the database %s: %s", e.db, cause)
}

func (e *openError) Unwrap() error { return e.err }

// service is the service a command runs on, built from its Config by
// openService, with what serve needs beside it.
type service struct {
	*rules.Service
	// metrics counts requests, transactions and the embedding queue; nil
	// unless Config.Metrics.
	metrics *metrics.Metrics
	// db names the database for logs: its path, or its URL without the
	// password.
	db string
}

// Close stops the embedding worker, writes what waits to be written to the
// audit log, then closes the database (rules.Service.Close).
func (s *service) Close() error {
	return s.Service.Close()
}

// openService builds the service the way serve, mcp and every verb on the
// local database do: it validates cfg, opens the database cfg names
// (waiting at most cfg.DBTimeout for it), puts the store behind the
// storage failure policy (a transient error is retried once after
// cfg.RetryBackoff, when the retry fits in cfg.DBTimeout from the first
// attempt: a database that does not answer is reported within it) and, with cfg.Metrics, counts its transactions, then
// builds the service with cfg's embedder, ranking and index budget.
func openService(ctx context.Context, cfg Config, logger *slog.Logger) (*service, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	opts, err := cfg.memoryOptions(logger)
	if err != nil {
		return nil, err
	}
	raw, name, err := openRawStore(ctx, cfg)
	if err != nil {
		return nil, err
	}
	s := &service{db: name}
	if db, ok := raw.(*postgres.DB); ok && logger != nil {
		logger.Info("postgres", "pgvector", db.VectorStatus())
	}
	var store loci.Store = retry.New(raw, cfg.RetryBackoff, retry.WithLogger(logger), retry.WithBudget(cfg.DBTimeout))
	if cfg.Metrics {
		s.metrics = metrics.New()
		store = s.metrics.Store(store)
		opts = append(opts, rules.WithEmbedQueueDepth(s.metrics.SetEmbeddingQueueDepth))
	}
	if cfg.TuneRuntime {
		tuneRuntime(cfg.IndexMemory)
	}
	s.Service = rules.New(store, opts...)
	if s.metrics != nil {
		s.metrics.WatchIndex(func() metrics.IndexStats {
			st := s.Service.IndexStats()
			return metrics.IndexStats{
				Entries: st.Entries, Bytes: st.Bytes, Budget: st.Budget,
				Hits: st.Hits, Loads: st.Loads, Resets: st.Resets, Evictions: st.Evictions,
				Streams: st.Streams, Private: st.Private, Applied: st.Applied, Dropped: st.Dropped,
			}
		})
		if db, ok := raw.(*postgres.DB); ok && db.Servers() != nil {
			s.metrics.WatchReads(db.Servers(), func() []int64 {
				primary, standbys := db.ReadsServed()
				return append([]int64{primary}, standbys...)
			})
		}
	}
	return s, nil
}

// redactDSN returns a postgres:// URL without its password, for logs.
func redactDSN(dsn string) string {
	u, err := url.Parse(dsn)
	if err != nil {
		return "postgres"
	}
	return u.Redacted()
}

// openLocal is openService for a verb on the local database: logging
// nothing, with a function that closes the database.
func openLocal(ctx context.Context, cfg Config) (*service, func(), error) {
	svc, err := openService(ctx, cfg, quietLogger())
	if err != nil {
		return nil, nil, err
	}
	return svc, func() { svc.Close() }, nil
}
