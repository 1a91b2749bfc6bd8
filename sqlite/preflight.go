package sqlite

import (
	"bytes"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/loci-memory/loci"
)

// sqliteHeader starts every SQLite database file.
var sqliteHeader = []byte("SQLite format 3\x00")

// preflight checks, before anything opens path for SQLite (which would
// switch it to WAL mode and create -wal and -shm files beside it), that
// loci may use it: the file and its directory are writable, the file is a
// SQLite database, it holds no tables but loci's, and no loci newer than
// this one has written it. It changes nothing but to create the file when
// it does not exist. Every refusal is EINVALID naming the path.
func preflight(ctx context.Context, path string) error {
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return loci.WrapError(err, loci.EINVALID, "cannot create the database directory %s: %v", dir, cause(err))
	}
	info, err := os.Stat(path)
	if errors.Is(err, fs.ErrNotExist) {
		// A new database: create the empty file here, so that a directory
		// loci may not write is reported as such.
		f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o600)
		if errors.Is(err, fs.ErrExist) {
			return nil // another process created it meanwhile: it migrates it
		} else if err != nil {
			return loci.WrapError(err, loci.EINVALID, "cannot create the database file %s: %v", path, cause(err))
		}
		return f.Close()
	} else if err != nil {
		return loci.WrapError(err, loci.EINVALID, "cannot read the database file %s: %v", path, cause(err))
	} else if info.IsDir() {
		return loci.Errorf(loci.EINVALID, "the database path %s is a directory, not a file", path)
	}

	f, err := os.OpenFile(path, os.O_RDWR, 0)
	if err != nil {
		return loci.WrapError(err, loci.EINVALID, "the database file %s is read-only (%v): loci writes to its database; "+
			"make the file writable or pass another --db", path, cause(err))
	}
	head := make([]byte, len(sqliteHeader))
	n, err := io.ReadFull(f, head)
	f.Close()
	if n == 0 && (err == io.EOF || err == nil) {
		return checkWritableDir(dir, path) // an empty file is a new database
	} else if err != nil && err != io.ErrUnexpectedEOF {
		return loci.WrapError(err, loci.EINVALID, "cannot read the database file %s: %v", path, cause(err))
	} else if !bytes.Equal(head[:n], sqliteHeader) {
		return loci.Errorf(loci.EINVALID, "%s is not a SQLite database: refusing to use it as loci's database", path)
	}
	// SQLite writes -wal and -shm beside the file: they must be writable,
	// or creatable in the directory.
	for _, suffix := range []string{"-wal", "-shm"} {
		side := path + suffix
		if _, err := os.Stat(side); err == nil {
			f, err := os.OpenFile(side, os.O_RDWR, 0)
			if err != nil {
				return loci.WrapError(err, loci.EINVALID, "the database's %s file %s is read-only (%v): make it writable or pass another --db",
					suffix, side, cause(err))
			}
			f.Close()
		} else if err := checkWritableDir(dir, path); err != nil {
			return err
		}
	}
	return checkOwnership(ctx, path)
}

// checkWritableDir reports whether files can be created in dir, by
// creating and removing one.
func checkWritableDir(dir, path string) error {
	f, err := os.CreateTemp(dir, ".loci-write-check-*")
	if err != nil {
		return loci.WrapError(err, loci.EINVALID, "the directory of the database %s is not writable (%v): SQLite keeps its "+
			"write-ahead log beside the file; make the directory writable or pass another --db", path, cause(err))
	}
	f.Close()
	os.Remove(f.Name())
	return nil
}

// checkOwnership reads the schema of the existing database at path on a
// connection of its own (no WAL switch, no write) and refuses a database
// that holds tables but is not loci's, or that a newer loci wrote.
func checkOwnership(ctx context.Context, path string) error {
	conn, err := sql.Open("sqlite", "file:"+(&url.URL{Path: path}).EscapedPath()+"?mode=rw&_pragma=busy_timeout(5000)")
	if err != nil {
		return fmt.Errorf("open %s: %w", path, err)
	}
	defer conn.Close()
	conn.SetMaxOpenConns(1)
	rows, err := conn.QueryContext(ctx, `SELECT name FROM sqlite_master WHERE type IN ('table', 'view') AND name NOT LIKE 'sqlite\_%' ESCAPE '\' ORDER BY name`)
	if err != nil {
		if code := sqliteCode(err); code == sqliteNotADB {
			return loci.WrapError(err, loci.EINVALID, "%s is not a SQLite database: refusing to use it as loci's database", path)
		}
		return fmt.Errorf("read the schema of %s: %w", path, err)
	}
	var tables []string
	for rows.Next() {
		var name string
		if err := rows.Scan(&name); err != nil {
			rows.Close()
			return fmt.Errorf("read the schema of %s: %w", path, err)
		}
		tables = append(tables, name)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return fmt.Errorf("read the schema of %s: %w", path, err)
	}
	if len(tables) == 0 {
		return nil
	}
	owned, applied, err := lociSchema(ctx, conn, tables)
	if err != nil {
		return fmt.Errorf("read the schema of %s: %w", path, err)
	}
	if !owned {
		return loci.Errorf(loci.EINVALID, "%s holds tables that are not loci's (%s) and no loci schema: "+
			"refusing to write into another application's database; pass another --db", path, tableList(tables))
	}
	if known := latestMigration(); applied > known {
		return loci.Errorf(loci.EINVALID, "%s was written by a newer loci (schema version %d; this loci knows versions up to %d): "+
			"upgrade loci to use it", path, applied, known)
	}
	return nil
}

// lociSchema reports whether a database holding tables is loci's: it has
// loci's schema_migrations (version, name, applied_at) recording loci's
// first migration, or that table alone (a first start that stopped before
// its first migration). It returns the highest migration applied.
func lociSchema(ctx context.Context, conn *sql.DB, tables []string) (bool, int, error) {
	if !slices.Contains(tables, "schema_migrations") {
		return false, 0, nil
	}
	rows, err := conn.QueryContext(ctx, `SELECT name FROM pragma_table_info('schema_migrations')`)
	if err != nil {
		return false, 0, err
	}
	var cols []string
	for rows.Next() {
		var c string
		if err := rows.Scan(&c); err != nil {
			rows.Close()
			return false, 0, err
		}
		cols = append(cols, c)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return false, 0, err
	}
	slices.Sort(cols)
	if !slices.Equal(cols, []string{"applied_at", "name", "version"}) {
		return false, 0, nil
	}
	var first, latest int
	if err := conn.QueryRowContext(ctx, `SELECT count(*) FROM schema_migrations WHERE version = 1 AND name = '0001_records'`).Scan(&first); err != nil {
		return false, 0, err
	}
	if err := conn.QueryRowContext(ctx, `SELECT coalesce(max(version), 0) FROM schema_migrations`).Scan(&latest); err != nil {
		return false, 0, err
	}
	if first == 0 && len(tables) > 1 {
		return false, 0, nil
	}
	return true, latest, nil
}

// tableList names up to five tables.
func tableList(tables []string) string {
	if len(tables) > 5 {
		return strings.Join(tables[:5], ", ") + fmt.Sprintf(", and %d more", len(tables)-5)
	}
	return strings.Join(tables, ", ")
}

// cause is the innermost message of a file system error (for
// "permission denied" rather than the whole "open PATH: permission
// denied").
func cause(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}
