package postgres_test

import (
	"context"
	"testing"
	"time"

	"github.com/loci-memory/loci"
	"github.com/loci-memory/loci/internal/testdb"
	"github.com/loci-memory/loci/postgres"
	"github.com/loci-memory/loci/storetest"
)

// standbyPair is a primary of the test's own with a streaming hot standby
// (pg_basebackup), and a store on a fresh schema of the primary that reads
// from the standby.
type standbyPair struct {
	primary, standby *testdb.Cluster
}

func newStandbyPair(t *testing.T) *standbyPair {
	t.Helper()
	postgresDSN(t) // the PostgreSQL suites only
	p := testdb.NewCluster(t)
	return &standbyPair{primary: p, standby: p.Standby(t)}
}

func (sp *standbyPair) open(t testing.TB, opts ...postgres.Option) *postgres.DB {
	t.Helper()
	dsn := sp.primary.DSN("postgres")
	cfg, err := testdb.PostgresConfig(dsn, testdb.NewSchema(t, dsn))
	if err != nil {
		t.Fatal(err)
	}
	db, err := postgres.OpenConfig(context.Background(), cfg,
		append([]postgres.Option{postgres.WithReadReplicas(sp.standby.DSN("postgres"))}, opts...)...)
	if err != nil {
		t.Fatalf("open with a read replica: %v", err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

// TestConformanceStandby runs the conformance suite on a store whose reads
// go to a streaming standby whenever it has replayed what they need: every
// read after a write sees it.
func TestConformanceStandby(t *testing.T) {
	sp := newStandbyPair(t)
	var dbs []*postgres.DB
	storetest.Run(t, func(t testing.TB) loci.Store {
		db := sp.open(t)
		dbs = append(dbs, db)
		return db
	})
	var standby int64
	for _, db := range dbs {
		_, s := db.ReadsServed()
		standby += s[0]
	}
	t.Logf("reads served by the standby across the suite: %d", standby)
}

// TestReadReplica: a client's read after its own write finds it (from the
// standby once it has replayed it, else from the primary); reads go to the
// standby; a standby whose replay is paused past the lag bound, or that is
// down, is skipped, and used again once back.
func TestReadReplica(t *testing.T) {
	sp := newStandbyPair(t)
	db := sp.open(t, postgres.WithMaxLag(time.Second))
	ctx := context.Background()
	client := loci.WithPrincipal(ctx, &loci.Principal{KeyID: "k1", Role: loci.RoleAdmin})
	other := loci.WithPrincipal(ctx, &loci.Principal{KeyID: "k2", Role: loci.RoleAdmin})

	insert := func(ctx context.Context) string {
		t.Helper()
		r := storetest.NewRecord(loci.KindPassage, loci.Scope{AgentID: "a"}, "", "a passage on the standby")
		if err := db.Update(ctx, func(tx loci.Tx) error { return tx.InsertRecord(ctx, r) }); err != nil {
			t.Fatal(err)
		}
		return r.ID
	}
	find := func(ctx context.Context, id string) bool {
		t.Helper()
		var found bool
		if err := db.View(ctx, func(tx loci.Tx) error {
			recs, err := tx.FindRecords(ctx, loci.RecordFilter{Workspace: loci.DefaultWorkspace, IDs: []string{id}})
			found = len(recs) == 1
			return err
		}); err != nil {
			t.Fatal(err)
		}
		return found
	}
	standbyReads := func() int64 { _, s := db.ReadsServed(); return s[0] }
	// eventually waits for a read of ctx to be served by the standby.
	eventually := func(ctx context.Context, id string) {
		t.Helper()
		before := standbyReads()
		for end := time.Now().Add(20 * time.Second); time.Now().Before(end); time.Sleep(20 * time.Millisecond) {
			if !find(ctx, id) {
				t.Fatalf("%s not found", id)
			}
			if standbyReads() > before {
				return
			}
		}
		t.Fatalf("no read went to the standby within 20s")
	}

	t.Run("ReadYourWrites", func(t *testing.T) {
		for range 200 {
			if id := insert(client); !find(client, id) {
				t.Fatalf("read after write: %s not found", id)
			}
		}
		p, s := db.ReadsServed()
		t.Logf("200 reads after writes: primary %d, standby %d", p, s[0])
	})
	t.Run("ReadsGoToStandby", func(t *testing.T) {
		eventually(client, insert(client))
	})
	t.Run("LaggingSkipped", func(t *testing.T) {
		sp.standby.Exec("postgres", `SELECT pg_wal_replay_pause()`)
		id := insert(client)
		if !find(client, id) {
			t.Fatalf("read after write with the standby paused: %s not found", id)
		}
		// Past the lag bound, even a client that wrote nothing (which the
		// standby could serve) is served by the primary.
		time.Sleep(1500 * time.Millisecond)
		insert(other)
		time.Sleep(3 * postgres.ReplicaPoll)
		before := standbyReads()
		for range 20 {
			find(ctx, id)
		}
		if n := standbyReads() - before; n != 0 {
			t.Fatalf("%d reads went to a standby paused past the lag bound", n)
		}
		sp.standby.Exec("postgres", `SELECT pg_wal_replay_resume()`)
		eventually(ctx, id)
	})
	t.Run("DownSkipped", func(t *testing.T) {
		id := insert(client)
		sp.standby.Stop()
		for range 50 {
			if !find(client, id) || !find(ctx, id) {
				t.Fatalf("%s not found with the standby down", id)
			}
		}
		sp.standby.Start()
		eventually(client, id)
	})
}
