package main

import (
	"context"
	"flag"
	"net/url"
	"os"
	"strings"

	"github.com/loci-memory/loci"
	"github.com/loci-memory/loci/httpclient"
)

// remote is what the verbs that take --server need; httpclient.Client and
// rules.Service both implement it, so a verb runs the same code on a
// running server or on the local database.
type remote interface {
	loci.NoteService
	loci.SearchService
	loci.MaintenanceService
	loci.FactService
	loci.ReviewService
}

var _ remote = (*httpclient.Client)(nil)

// target is where a verb acts: a running server (--server, with --api-key)
// or the local database (--db and the rest of the Config).
type target struct {
	server, key *string
	cfg         Config
	fs          *flag.FlagSet
}

// targetFlags registers --server, --api-key and --db.
func targetFlags(fs *flag.FlagSet) *target {
	t := &target{
		server: fs.String("server", "", "URL of a running loci server (default: use the local database)"),
		key:    fs.String("api-key", os.Getenv("LOCI_API_KEY"), "API key for --server (default $LOCI_API_KEY)"),
		cfg:    loadConfig(),
		fs:     fs,
	}
	t.cfg.dbFlag(fs)
	return t
}

// open returns the service: the server's over HTTP when --server is given,
// else the local database's, and a function that releases it. --db with
// --server, or --api-key without it, is bad usage: the flag would be
// ignored.
func (t *target) open(ctx context.Context) (remote, func(), error) {
	if *t.server != "" {
		if fsSet(t.fs, "db") {
			return nil, nil, usagef("--db and --server exclude each other: with --server the verb uses the server's database")
		}
		if err := checkServerURL(*t.server); err != nil {
			return nil, nil, err
		}
		return httpclient.NewClient(*t.server, *t.key), func() {}, nil
	}
	if fsSet(t.fs, "api-key") {
		return nil, nil, usagef("--api-key needs --server: the local database takes no key")
	}
	return openLocal(ctx, t.cfg)
}

// checkServerURL accepts an http:// or https:// URL with a host: a bare
// address such as 127.0.0.1:8420 is a usage error that shows the fix.
func checkServerURL(raw string) error {
	u, err := url.Parse(raw)
	if err == nil && (u.Scheme == "http" || u.Scheme == "https") && u.Host != "" {
		return nil
	}
	if err != nil || u.Scheme == "" || u.Opaque != "" {
		return usagef("--server %q is not a URL: give its scheme, e.g. http://%s", raw, strings.TrimPrefix(raw, "//"))
	}
	return usagef("--server %q: want an http:// or https:// URL, e.g. http://127.0.0.1:8420", raw)
}
