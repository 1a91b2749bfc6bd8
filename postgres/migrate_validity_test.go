package postgres_test

import (
	"context"
	"testing"
	"time"

	"github.com/loci-memory/loci"
	"github.com/loci-memory/loci/postgres"
)

// TestMigrateValidity opens a schema written before migration 0008 with
// the records it changes, as SQLite's test of 0007: facts get valid_at,
// pattern facts a key that names their agent, preferences flagged for
// removal the review reason; nothing else changes.
func TestMigrateValidity(t *testing.T) {
	dsn := postgresDSN(t)
	ctx := context.Background()
	conn, cfg := migratedBefore(t, dsn, 8)
	at := time.Date(2025, 6, 1, 0, 0, 0, 0, time.UTC)
	for _, r := range []struct{ id, kind, agent, user, key, category, data string }{
		{"f1", "fact", "", "u", "", "general_fact", `{}`},
		{"p1", "fact", "coach", "u", "pattern:analysis", "pattern_learned", `{}`},
		{"pref1", "preference", "", "u", "tone", "", `{"type":"tone","flagged_for_removal":true}`},
		{"pref2", "preference", "", "u", "format", "", `{"type":"format","flagged_for_removal":false}`},
		{"n1", "note", "coach", "", "pattern:x", "", `{}`},
	} {
		var key any
		if r.key != "" {
			key = r.key
		}
		if _, err := conn.Exec(ctx, `INSERT INTO records (id, workspace, kind, agent_id, user_id, key, content, data, category, created_at, updated_at)
			VALUES ($1, 'default', $2, $3, $4, $5, 'c', $6::json, $7, $8, $8)`, r.id, r.kind, r.agent, r.user, key, r.data, r.category, at); err != nil {
			t.Fatal(err)
		}
	}

	db, err := postgres.OpenConfig(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	got := map[string]*loci.Record{}
	db.View(ctx, func(tx loci.Tx) error {
		recs, err := tx.FindRecords(ctx, loci.RecordFilter{Workspace: loci.DefaultWorkspace})
		for _, r := range recs {
			got[r.ID] = r
		}
		return err
	})
	for _, tc := range []struct {
		id, key, review string
		validAt         time.Time
	}{
		{"f1", "", "", at},
		{"p1", "pattern:coach:analysis", "", at},
		{"pref1", "tone", loci.ReviewFlaggedForRemoval, time.Time{}},
		{"pref2", "format", "", time.Time{}},
		{"n1", "pattern:x", "", time.Time{}},
	} {
		r := got[tc.id]
		if r == nil || r.Key != tc.key || r.Review != tc.review || !r.ValidAt.Equal(tc.validAt) || !r.InvalidAt.IsZero() {
			t.Errorf("%s after migration: %+v; want key %q, review %q, valid_at %v", tc.id, r, tc.key, tc.review, tc.validAt)
		}
	}
}
