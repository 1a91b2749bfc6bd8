package storetest

import (
	"context"
	"encoding/json"
	"fmt"
	"reflect"
	"testing"
	"time"

	"github.com/loci-memory/loci"
)

// viewState is what a read transaction sees of everything an export
// writes: agents, users, records, each record's kept versions, block links.
type viewState struct {
	Agents   []string
	Users    []string
	Records  map[string]int // id → version
	Versions map[string][]int
	Links    []string
}

func readViewState(ctx context.Context, tx loci.Tx) (viewState, error) {
	ws := loci.DefaultWorkspace
	st := viewState{Records: map[string]int{}, Versions: map[string][]int{}}
	agents, _, err := tx.ListAgents(ctx, ws, 0, 0)
	if err != nil {
		return st, err
	}
	for _, a := range agents {
		st.Agents = append(st.Agents, a.ID)
	}
	users, _, err := tx.ListUsers(ctx, ws, 0, 0)
	if err != nil {
		return st, err
	}
	for _, u := range users {
		st.Users = append(st.Users, u.ID)
	}
	recs, err := tx.FindRecords(ctx, loci.RecordFilter{Workspace: ws, Order: loci.OrderCreatedAsc})
	if err != nil {
		return st, err
	}
	for _, r := range recs {
		st.Records[r.ID] = r.Version
		vs, err := tx.ListVersions(ctx, r.ID)
		if err != nil {
			return st, err
		}
		for _, v := range vs {
			st.Versions[r.ID] = append(st.Versions[r.ID], v.Version)
		}
	}
	links, err := tx.ListBlockLinks(ctx, ws, "", "")
	if err != nil {
		return st, err
	}
	for _, l := range links {
		st.Links = append(st.Links, l.BlockID+"→"+l.AgentID)
	}
	return st, nil
}

// testSnapshot: Snapshot sees one state, from its first read to its end,
// of agents, users, records, versions and block links alike (an export
// reads them in separate statements): a write committed meanwhile is
// invisible to it, and visible to the next transaction. A backend whose
// writes wait for the reader (SQLite in memory: one connection) passes
// too: the write lands after the snapshot.
func testSnapshot(t *testing.T, open Opener) {
	ctx := context.Background()
	s := open(t)
	ws := loci.DefaultWorkspace
	blk := NewRecord(loci.KindBlock, loci.Scope{AgentID: "a1"}, "persona", "v1")
	MustInsert(t, s, blk)
	if err := s.Update(ctx, func(tx loci.Tx) error {
		if err := tx.InsertAgent(ctx, &loci.Agent{Workspace: ws, ID: "a1", CreatedAt: base}); err != nil {
			return err
		}
		_, _, err := tx.EnsureUser(ctx, ws, "u1", base)
		return err
	}); err != nil {
		t.Fatal(err)
	}
	// write changes every part of the state: a new agent, user, record and
	// link, and the block's next version with its previous one kept.
	write := func(ctx context.Context) error {
		return s.Update(ctx, func(tx loci.Tx) error {
			if err := tx.InsertAgent(ctx, &loci.Agent{Workspace: ws, ID: "a2", CreatedAt: base}); err != nil {
				return err
			}
			if _, _, err := tx.EnsureUser(ctx, ws, "u2", base); err != nil {
				return err
			}
			p := NewRecord(loci.KindPassage, loci.Scope{AgentID: "a2"}, "", "new passage")
			if err := tx.InsertRecord(ctx, p); err != nil {
				return err
			}
			cur, err := tx.GetRecord(ctx, ws, blk.ID)
			if err != nil {
				return err
			}
			if err := tx.InsertVersion(ctx, loci.RecordVersion{RecordID: cur.ID, Version: cur.Version, Content: cur.Content,
				Data: json.RawMessage(`{}`), UpdatedAt: cur.UpdatedAt}); err != nil {
				return err
			}
			next := *cur
			next.Version, next.Content, next.UpdatedAt = cur.Version+1, "v2", cur.UpdatedAt.Add(time.Second)
			if err := tx.UpdateRecord(ctx, &next, cur.Version); err != nil {
				return err
			}
			return tx.AttachBlock(ctx, ws, blk.ID, "a2", base)
		})
	}
	var before, during viewState
	wrote := make(chan error, 1)
	err := s.Snapshot(ctx, func(tx loci.Tx) error {
		var err error
		if before, err = readViewState(ctx, tx); err != nil {
			return err
		}
		go func() { wrote <- write(ctx) }()
		select {
		case err := <-wrote:
			wrote <- err // committed while the view is open
		case <-time.After(time.Second):
			// The write waits for the view to end.
		}
		during, err = readViewState(ctx, tx)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	if err := <-wrote; err != nil {
		t.Fatalf("write: %v", err)
	}
	if !reflect.DeepEqual(before, during) {
		t.Errorf("one read transaction saw two states:\nfirst  %+v\nthen   %+v", before, during)
	}
	var after viewState
	if err := s.View(ctx, func(tx loci.Tx) (err error) { after, err = readViewState(ctx, tx); return err }); err != nil {
		t.Fatal(err)
	}
	if got, want := fmt.Sprint(after.Agents, after.Users, len(after.Records), after.Versions[blk.ID], after.Links),
		fmt.Sprint([]string{"a1", "a2"}, []string{"u1", "u2"}, 2, []int{1}, []string{blk.ID + "→a2"}); got != want {
		t.Errorf("the next read transaction sees %s, want %s", got, want)
	}
}
