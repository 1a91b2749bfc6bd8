package storetest

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/loci-memory/loci"
)

// testMetadata: a record's metadata is stored as written (canonical JSON),
// updated with the record, kept by its versions, and absent reads back
// as nil.
func testMetadata(t *testing.T, open Opener) {
	s := open(t)
	ctx := context.Background()
	with := NewRecord(loci.KindFact, loci.Scope{UserID: "u"}, "", "likes tea")
	with.Metadata = json.RawMessage(`{"n":1.50,"source":"chat","tags":["a","b"]}`)
	without := NewRecord(loci.KindFact, loci.Scope{UserID: "u"}, "", "likes coffee")
	MustInsert(t, s, with, without)

	got := mustGet(t, s, with.ID)
	if string(got.Metadata) != string(with.Metadata) {
		t.Fatalf("metadata = %s, want %s", got.Metadata, with.Metadata)
	}
	if got := mustGet(t, s, without.ID); got.Metadata != nil {
		t.Fatalf("metadata of a record without = %s, want nil", got.Metadata)
	}

	err := s.Update(ctx, func(tx loci.Tx) error {
		if err := tx.InsertVersion(ctx, loci.RecordVersion{RecordID: with.ID, Version: 1, Content: with.Content,
			Data: with.Data, Metadata: with.Metadata, UpdatedAt: with.UpdatedAt}); err != nil {
			return err
		}
		up := *got
		up.Metadata, up.Version = json.RawMessage(`{"source":"email"}`), 2
		if err := tx.UpdateRecord(ctx, &up, 1); err != nil {
			return err
		}
		cleared := *mustGetTx(t, tx, without.ID)
		cleared.Version = 2
		return tx.UpdateRecord(ctx, &cleared, 1)
	})
	if err != nil {
		t.Fatal(err)
	}
	if got := mustGet(t, s, with.ID); string(got.Metadata) != `{"source":"email"}` {
		t.Fatalf("metadata after update = %s", got.Metadata)
	}
	var vs []loci.RecordVersion
	if err := s.View(ctx, func(tx loci.Tx) (err error) { vs, err = tx.ListVersions(ctx, with.ID); return err }); err != nil {
		t.Fatal(err)
	}
	if len(vs) != 1 || string(vs[0].Metadata) != string(with.Metadata) {
		t.Fatalf("versions = %+v, want one with the first metadata", vs)
	}
	// Found by a filter, in the backend's order; Where is applied above
	// the store, and Match agrees with it.
	where, err := loci.ParseMemoryFilter([]byte(`{"metadata.source": "email"}`))
	if err != nil {
		t.Fatal(err)
	}
	f := loci.RecordFilter{Workspace: loci.DefaultWorkspace, Where: where}
	n := 0
	for _, r := range MustFind(t, s, loci.RecordFilter{Workspace: loci.DefaultWorkspace}) {
		if f.Match(r) {
			n++
		}
	}
	if n != 1 {
		t.Fatalf("records matching metadata.source=email: %d, want 1", n)
	}
	// A repeat's candidates: the records whose content hashes alike,
	// case and spacing aside.
	h := loci.ContentHash("LIKES   tea")
	byHash := MustFind(t, s, loci.RecordFilter{Workspace: loci.DefaultWorkspace, ContentHash: &h})
	if len(byHash) != 1 || byHash[0].ID != with.ID {
		t.Fatalf("records with the hash of %q: %v, want %s", "LIKES   tea", byHash, with.ID)
	}
	hf := loci.RecordFilter{Workspace: loci.DefaultWorkspace, ContentHash: &h}
	if !hf.Match(byHash[0]) || hf.Match(mustGet(t, s, without.ID)) {
		t.Fatal("RecordFilter.Match disagrees with the backend on ContentHash")
	}
}

func mustGet(t *testing.T, s loci.Store, id string) *loci.Record {
	t.Helper()
	var r *loci.Record
	if err := s.View(context.Background(), func(tx loci.Tx) (err error) {
		r, err = tx.GetRecord(context.Background(), loci.DefaultWorkspace, id)
		return err
	}); err != nil {
		t.Fatal(err)
	}
	return r
}

func mustGetTx(t *testing.T, tx loci.Tx, id string) *loci.Record {
	t.Helper()
	r, err := tx.GetRecord(context.Background(), loci.DefaultWorkspace, id)
	if err != nil {
		t.Fatal(err)
	}
	return r
}
