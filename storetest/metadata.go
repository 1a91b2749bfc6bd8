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
	testMetadataAnyJSON(t, s)
}

// testMetadataAnyJSON: metadata of any JSON, in canonical form, is stored
// and read back byte for byte, by the record and by its versions: keys of
// any characters, nested objects, null, & < > unescaped, and integers
// past 2^53 exact.
func testMetadataAnyJSON(t *testing.T, s loci.Store) {
	ctx := context.Background()
	meta, err := loci.NormalizeMetadata(json.RawMessage(`{"Ünïcode": "é", "topicName": "food", "food": {"kind": "veg", "level": {"n": {"m": 1}}},
		"none": null, "big": 9007199254740993, "neg": -9223372036854775809, "ratio": 1.50, "list": [1, {"a": null}, []], "html": "a & b <c>"}`))
	if err != nil {
		t.Fatal(err)
	}
	const want = `{"big":9007199254740993,"food":{"kind":"veg","level":{"n":{"m":1}}},"html":"a & b <c>","list":[1,{"a":null},[]],` +
		`"neg":-9223372036854775809,"none":null,"ratio":1.50,"topicName":"food","Ünïcode":"é"}`
	if string(meta) != want {
		t.Fatalf("canonical metadata = %s, want %s", meta, want)
	}
	r := NewRecord(loci.KindFact, loci.Scope{UserID: "u"}, "", "eats no meat")
	r.Metadata = meta
	MustInsert(t, s, r)
	if got := mustGet(t, s, r.ID); string(got.Metadata) != want {
		t.Fatalf("metadata = %s, want %s", got.Metadata, want)
	}
	err = s.Update(ctx, func(tx loci.Tx) error {
		if err := tx.InsertVersion(ctx, loci.RecordVersion{RecordID: r.ID, Version: 1, Content: r.Content,
			Metadata: r.Metadata, UpdatedAt: r.UpdatedAt}); err != nil {
			return err
		}
		up := *mustGetTx(t, tx, r.ID)
		up.Metadata, up.Version = json.RawMessage(`{"food":{"kind":"fish"}}`), 2
		return tx.UpdateRecord(ctx, &up, 1)
	})
	if err != nil {
		t.Fatal(err)
	}
	var vs []loci.RecordVersion
	if err := s.View(ctx, func(tx loci.Tx) (err error) { vs, err = tx.ListVersions(ctx, r.ID); return err }); err != nil {
		t.Fatal(err)
	}
	if len(vs) != 1 || string(vs[0].Metadata) != want {
		t.Fatalf("versions = %+v, want one with %s", vs, want)
	}
	// A nested path reads what the backend returns.
	where, err := loci.ParseMemoryFilter([]byte(`{"metadata.food.kind": {"icontains": "FISH"}}`))
	if err != nil {
		t.Fatal(err)
	}
	f := loci.RecordFilter{Workspace: loci.DefaultWorkspace, Where: where}
	if got := mustGet(t, s, r.ID); !f.Match(got) {
		t.Fatalf("metadata.food.kind icontains FISH does not match %s", got.Metadata)
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
