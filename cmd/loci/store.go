package main

import (
	"context"
	"flag"
	"fmt"
	"log/slog"
	"net/url"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"time"

	"github.com/loci-memory/loci"
	"github.com/loci-memory/loci/memory"
	"github.com/loci-memory/loci/postgres"
	"github.com/loci-memory/loci/retry"
	"github.com/loci-memory/loci/sqlite"
)

// dbFlag registers --db, defaulting to $LOCI_DB.
func dbFlag(fs *flag.FlagSet) *string {
	return fs.String("db", os.Getenv("LOCI_DB"), "database: a file path, :memory:, or postgres://… (default $LOCI_DB, else a file in the user's data directory)")
}

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

// dbTimeoutFlag registers --db-timeout, defaulting to $LOCI_DB_TIMEOUT.
func dbTimeoutFlag(fs *flag.FlagSet) *time.Duration {
	return fs.Duration("db-timeout", defaultDBTimeout(),
		"longest wait for the database (a free connection, a lock, an answer) before a request fails with 503 (default $LOCI_DB_TIMEOUT, else 5s)")
}

// defaultDBTimeout is $LOCI_DB_TIMEOUT when it is a duration, else 5s.
func defaultDBTimeout() time.Duration {
	if d, err := time.ParseDuration(os.Getenv("LOCI_DB_TIMEOUT")); err == nil && d > 0 {
		return d
	}
	return 5 * time.Second
}

// openStore opens the store that dsn names, behind the storage failure
// policy (a transient error is retried once after retry.DefaultBackoff).
func openStore(ctx context.Context, dsn string) (loci.Store, string, error) {
	store, path, err := openRawStore(ctx, dsn, defaultDBTimeout())
	if err != nil {
		return nil, "", err
	}
	return retry.New(store, retry.DefaultBackoff), path, nil
}

// openRawStore opens the backend that dsn names, without decorators;
// timeout bounds every wait for the database.
func openRawStore(ctx context.Context, dsn string, timeout time.Duration) (loci.Store, string, error) {
	if dsn == "" {
		p, err := defaultDBPath()
		if err != nil {
			return nil, "", err
		}
		dsn = p
	}
	if strings.HasPrefix(dsn, "postgres://") || strings.HasPrefix(dsn, "postgresql://") {
		db, err := postgres.Open(ctx, dsn, postgres.WithTimeout(timeout))
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

// openService opens the store and the service on it.
func openService(ctx context.Context, dsn string, logger *slog.Logger, opts ...memory.Option) (*memory.Service, func(), error) {
	store, _, err := openStore(ctx, dsn)
	if err != nil {
		return nil, nil, err
	}
	emb, err := newEmbedder()
	if err != nil {
		store.Close()
		return nil, nil, err
	}
	ranking, err := rankingOptions()
	if err != nil {
		store.Close()
		return nil, nil, err
	}
	svc := memory.New(store, append(append([]memory.Option{memory.WithLogger(logger), memory.WithEmbedder(emb)}, ranking...), opts...)...)
	// What waits to be written to the audit log is written before the
	// store closes.
	return svc, func() {
		if err := svc.FlushAudit(context.WithoutCancel(ctx)); err != nil {
			logger.Error("audit log write failed", "err", err)
		}
		store.Close()
	}, nil
}

// redactDSN returns a postgres:// URL without its password, for logs.
func redactDSN(dsn string) string {
	u, err := url.Parse(dsn)
	if err != nil {
		return "postgres"
	}
	return u.Redacted()
}
