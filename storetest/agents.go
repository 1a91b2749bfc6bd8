package storetest

import (
	"context"
	"encoding/json"
	"fmt"
	"testing"
	"time"

	"github.com/loci-memory/loci"
)

func testAgents(t *testing.T, open Opener) {
	ctx := context.Background()
	s := open(t)
	err := s.Update(ctx, func(tx loci.Tx) error {
		for _, id := range []string{"b", "a"} {
			if err := tx.InsertAgent(ctx, &loci.Agent{Workspace: loci.DefaultWorkspace, ID: id, Name: "Agent " + id, CreatedAt: base}); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	err = s.Update(ctx, func(tx loci.Tx) error {
		return tx.InsertAgent(ctx, &loci.Agent{Workspace: loci.DefaultWorkspace, ID: "a", CreatedAt: base})
	})
	wantCode(t, err, loci.ECONFLICT)
	s.View(ctx, func(tx loci.Tx) error {
		a, err := tx.GetAgent(ctx, loci.DefaultWorkspace, "a")
		if err != nil || a.Name != "Agent a" || !a.CreatedAt.Equal(base) {
			t.Fatalf("get agent: %+v %v", a, err)
		}
		list, total, err := tx.ListAgents(ctx, loci.DefaultWorkspace, 1, 0)
		if err != nil || total != 2 || len(list) != 1 || list[0].ID != "a" {
			t.Fatalf("list agents: %+v %d %v", list, total, err)
		}
		_, err = tx.GetAgent(ctx, loci.DefaultWorkspace, "zzz")
		wantCode(t, err, loci.ENOTFOUND)
		return nil
	})
	// An agent that only records name (a note's) is listed too, after the
	// agents table's, by id; one named by an agent's record is not twice.
	cFirst := NewRecord(loci.KindNote, loci.Scope{AgentID: "c"}, "k1", "v")
	cEpisode := NewRecord(loci.KindEpisode, loci.Scope{AgentID: "c"}, "", "v")
	cEpisode.CreatedAt = cFirst.CreatedAt.Add(-time.Hour) // c's first record, of another kind
	MustUpdate(t, s, func(tx loci.Tx) error {
		for _, r := range []*loci.Record{
			cFirst,
			NewRecord(loci.KindNote, loci.Scope{AgentID: "c"}, "k2", "v"),
			NewRecord(loci.KindNote, loci.Scope{AgentID: "b"}, "k1", "v"),
			cEpisode,
		} {
			if err := tx.InsertRecord(ctx, r); err != nil {
				return err
			}
		}
		return nil
	})
	MustView(t, s, func(tx loci.Tx) error {
		if list, total, err := tx.ListAgents(ctx, loci.DefaultWorkspace, 10, 0); err != nil || total != 2 || len(list) != 2 {
			t.Errorf("list agents (the table's): %+v %d %v; want a, b", list, total, err)
		}
		list, total, err := tx.ListKnownAgents(ctx, loci.DefaultWorkspace, 10, 1)
		if err != nil || total != 3 || len(list) != 2 || list[0].ID != "b" || list[0].Name != "Agent b" || list[1].ID != "c" {
			t.Errorf("list agents with a notes-only agent: %+v %d %v; want b, c of 3", list, total, err)
		} else if !list[0].CreatedAt.Equal(base) || !list[1].CreatedAt.Equal(cEpisode.CreatedAt) {
			t.Errorf("created: b %v, c %v; want the table's %v, c's first record's %v", list[0].CreatedAt, list[1].CreatedAt, base, cEpisode.CreatedAt)
		}
		// By id: a notes-only agent is known, not in the table.
		for _, tt := range []struct {
			f        loci.AgentFilter
			wantName string
			want     int
		}{
			{loci.AgentFilter{Workspace: loci.DefaultWorkspace, ID: "c", Known: true}, "", 1},
			{loci.AgentFilter{Workspace: loci.DefaultWorkspace, ID: "c"}, "", 0},
			{loci.AgentFilter{Workspace: loci.DefaultWorkspace, ID: "b", Known: true}, "Agent b", 1},
			{loci.AgentFilter{Workspace: "other", ID: "b", Known: true}, "", 0},
		} {
			list, total, err := tx.FindAgents(ctx, tt.f)
			if err != nil || total != tt.want || len(list) != tt.want || (tt.want == 1 && (list[0].ID != tt.f.ID || list[0].Name != tt.wantName)) {
				t.Errorf("FindAgents(%+v) = %+v of %d, %v; want %d named %q", tt.f, list, total, err, tt.want, tt.wantName)
			}
		}
		return nil
	})
	// Pages of known agents, the table's and the records' interleaved by
	// id, each records-only agent dated by its first record.
	const ws = "paged"
	first := map[string]time.Time{}
	MustUpdate(t, s, func(tx loci.Tx) error {
		for _, id := range []string{"d", "h"} {
			if err := tx.InsertAgent(ctx, &loci.Agent{Workspace: ws, ID: id, Name: "Agent " + id, CreatedAt: base}); err != nil {
				return err
			}
		}
		for i, id := range []string{"a", "b", "c", "e", "f", "g", "h", "i"} {
			for j := range 2 {
				r := NewRecord(loci.KindFact, loci.Scope{AgentID: id, UserID: "u"}, "", "v")
				r.Workspace = ws
				r.CreatedAt = base.Add(time.Duration(i*10+j) * time.Minute)
				if _, ok := first[id]; !ok {
					first[id] = r.CreatedAt
				}
				if err := tx.InsertRecord(ctx, r); err != nil {
					return err
				}
			}
		}
		return nil
	})
	first["d"], first["h"] = base, base // the table's
	all := []string{"a", "b", "c", "d", "e", "f", "g", "h", "i"}
	MustView(t, s, func(tx loci.Tx) error {
		for _, pg := range []struct{ limit, offset int }{{3, 0}, {3, 2}, {4, 6}, {2, 8}, {5, 9}, {0, 0}} {
			list, total, err := tx.FindAgents(ctx, loci.AgentFilter{Workspace: ws, Known: true, Limit: pg.limit, Offset: pg.offset})
			want := all[min(pg.offset, len(all)):]
			if pg.limit > 0 {
				want = want[:min(pg.limit, len(want))]
			}
			var got []string
			for _, a := range list {
				got = append(got, a.ID)
				if !a.CreatedAt.Equal(first[a.ID]) {
					t.Errorf("page %+v: %s created %v, want %v", pg, a.ID, a.CreatedAt, first[a.ID])
				}
			}
			if err != nil || total != len(all) || fmt.Sprint(got) != fmt.Sprint(want) {
				t.Errorf("page %+v = %v of %d, %v; want %v of %d", pg, got, total, err, want, len(all))
			}
		}
		return nil
	})
	if err := s.Update(ctx, func(tx loci.Tx) error { return tx.DeleteAgent(ctx, loci.DefaultWorkspace, "a") }); err != nil {
		t.Fatal(err)
	}
	err = s.Update(ctx, func(tx loci.Tx) error { return tx.DeleteAgent(ctx, loci.DefaultWorkspace, "a") })
	wantCode(t, err, loci.ENOTFOUND)
}

func testBlockLinks(t *testing.T, open Opener) {
	ctx := context.Background()
	s := open(t)
	blk := NewRecord(loci.KindBlock, loci.Scope{AgentID: "owner"}, "office_news", "party on friday")
	MustInsert(t, s, blk)
	ws := loci.DefaultWorkspace
	if err := s.Update(ctx, func(tx loci.Tx) error {
		for _, a := range []string{"c1", "c2", "c1"} { // the second c1 is idempotent
			if err := tx.AttachBlock(ctx, ws, blk.ID, a, base); err != nil {
				return err
			}
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	links := func(blockID, agentID string) []loci.BlockLink {
		var out []loci.BlockLink
		if err := s.View(ctx, func(tx loci.Tx) (err error) { out, err = tx.ListBlockLinks(ctx, ws, blockID, agentID); return err }); err != nil {
			t.Fatal(err)
		}
		return out
	}
	if got := links(blk.ID, ""); len(got) != 2 {
		t.Fatalf("consumers = %+v", got)
	}
	if got := links("", "c2"); len(got) != 1 || got[0].BlockID != blk.ID {
		t.Fatalf("agent links = %+v", got)
	}
	var detached bool
	s.Update(ctx, func(tx loci.Tx) (err error) { detached, err = tx.DetachBlock(ctx, ws, blk.ID, "c2"); return err })
	if !detached || len(links(blk.ID, "")) != 1 {
		t.Fatalf("detach failed")
	}
	s.Update(ctx, func(tx loci.Tx) (err error) { detached, err = tx.DetachBlock(ctx, ws, blk.ID, "c2"); return err })
	if detached {
		t.Fatalf("second detach reported a link")
	}
	// Deleting the block deletes its links.
	s.Update(ctx, func(tx loci.Tx) error {
		_, err := tx.DeleteRecords(ctx, loci.RecordFilter{Workspace: ws, IDs: []string{blk.ID}})
		return err
	})
	if got := links("", "c1"); len(got) != 0 {
		t.Fatalf("links outlived their block: %+v", got)
	}
}

func testUsers(t *testing.T, open Opener) {
	ctx := context.Background()
	s := open(t)
	ws := loci.DefaultWorkspace
	s.Update(ctx, func(tx loci.Tx) error {
		u, created, err := tx.EnsureUser(ctx, ws, "u1", base)
		if err != nil || !created || u.ID != "u1" || string(u.Defaults) != "{}" {
			t.Fatalf("ensure new user: %+v %v %v", u, created, err)
		}
		_, created, err = tx.EnsureUser(ctx, ws, "u1", base.Add(time.Hour))
		if err != nil || created {
			t.Fatalf("ensure existing user: %v %v", created, err)
		}
		u.Defaults, u.UpdatedAt = json.RawMessage(`{"vertical":"Retail"}`), base.Add(time.Hour)
		if err := tx.UpdateUser(ctx, u); err != nil {
			t.Fatal(err)
		}
		return nil
	})
	s.View(ctx, func(tx loci.Tx) error {
		u, err := tx.GetUser(ctx, ws, "u1")
		var d map[string]string
		json.Unmarshal(u.Defaults, &d)
		if err != nil || d["vertical"] != "Retail" || !u.CreatedAt.Equal(base) {
			t.Fatalf("get user: %+v %v", u, err)
		}
		return nil
	})
	s.Update(ctx, func(tx loci.Tx) error {
		ok, err := tx.DeleteUser(ctx, ws, "u1")
		if err != nil || !ok {
			t.Fatalf("delete user: %v %v", ok, err)
		}
		_, err = tx.GetUser(ctx, ws, "u1")
		wantCode(t, err, loci.ENOTFOUND)
		return nil
	})
}
