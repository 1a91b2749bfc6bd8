package rules_test

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/loci-memory/loci"
	"github.com/loci-memory/loci/internal/testdb"
)

// TestForgetMatchesPastVersions: a forget matches every version a record
// keeps. Words said once and since edited away are forgotten from the
// record's history (and so from the user's export), whatever the current
// text says; the record stays, and the audit keeps that it happened.
func TestForgetMatchesPastVersions(t *testing.T) {
	testdb.Each(t, func(t *testing.T, open func(testing.TB) loci.Store) {
		e := lcOpen(t, open)
		const secret = "pelican 4471"
		// A fact of the user, edited: its first text is kept as version 1.
		pin := mustAdd(t, e.svc, loci.MemoryInput{Content: "my pin is " + secret, UserID: "u"}, loci.EventAdd)
		e.clock.Add(time.Minute)
		if _, err := e.svc.UpdateMemory(e.ctx, pin.ID, loci.MemoryPatch{Content: loci.Ptr("my pin is changed")}); err != nil {
			t.Fatal(err)
		}
		e.clock.Add(time.Minute)
		if _, err := e.svc.UpdateMemory(e.ctx, pin.ID, loci.MemoryPatch{Content: loci.Ptr("my pin is changed again")}); err != nil {
			t.Fatal(err)
		}
		// An agent's note that once held it (reached with include_agents).
		MustRemember(t, e.svc, "ops", "door", jsonString("the door code is "+secret))
		e.clock.Add(time.Minute)
		MustRemember(t, e.svc, "ops", "door", jsonString("the door code is new"))
		// Another memory of the user, untouched.
		other := mustAdd(t, e.svc, loci.MemoryInput{Content: "likes pelicans at the zoo", UserID: "u"}, loci.EventAdd)

		export := func() string {
			t.Helper()
			var buf bytes.Buffer
			if _, err := e.svc.Export(e.ctx, loci.ExportFilter{}, &buf); err != nil {
				t.Fatal(err)
			}
			return buf.String()
		}
		history := func(id string) []loci.MemoryVersion {
			t.Helper()
			h, err := e.svc.MemoryHistory(e.ctx, id)
			if err != nil {
				t.Fatal(err)
			}
			return h
		}

		// A dry run answers the past version and removes nothing.
		got, err := e.svc.ForgetUserMemories(e.ctx, "u", loci.ForgetRequest{Query: secret, DryRun: true, IncludeAgents: true})
		if err != nil {
			t.Fatal(err)
		}
		if len(got) != 2 {
			t.Fatalf("dry run answered %d memories, want the fact's and the note's past versions: %+v", len(got), got)
		}
		if len(history(pin.ID)) != 3 || !strings.Contains(export(), "4471") {
			t.Fatal("a dry run removed a version")
		}

		got, err = e.svc.ForgetUserMemories(e.ctx, "u", loci.ForgetRequest{Query: secret, IncludeAgents: true})
		if err != nil {
			t.Fatal(err)
		}
		if len(got) != 2 {
			t.Fatalf("forget answered %d memories, want 2: %+v", len(got), got)
		}
		for _, m := range got {
			if !m.History || m.Version != 1 || !strings.Contains(m.Content, secret) {
				t.Errorf("forget answered %+v, want a past version 1 that says %q, marked history", m, secret)
			}
		}
		// The records stay, as they are now; the version is gone.
		m, err := e.svc.GetMemory(e.ctx, pin.ID)
		if err != nil || m.Content != "my pin is changed again" || m.Version != 3 {
			t.Fatalf("GetMemory = %+v, %v; want the record as it is now", m, err)
		}
		h := history(pin.ID)
		if len(h) != 2 || h[0].Version != 3 || h[1].Version != 2 {
			t.Fatalf("history after the forget: %+v, want versions 3 and 2", h)
		}
		note, err := e.svc.History(e.ctx, "ops", "door")
		if err != nil || len(note) != 1 || string(note[0].Value) != `"the door code is new"` {
			t.Fatalf("note history = %+v, %v; want the current value alone", note, err)
		}
		if out := export(); strings.Contains(out, "4471") {
			t.Errorf("the export still holds the forgotten words:\n%s", out)
		}
		if _, err := e.svc.GetMemory(e.ctx, other.ID); err != nil {
			t.Errorf("the other memory: %v", err)
		}
		// The audit names the records whose history it changed.
		if err := e.svc.FlushAudit(e.ctx); err != nil {
			t.Fatal(err)
		}
		entries, _, err := e.svc.FindAudit(e.ctx, loci.AuditFilter{Operation: loci.OpUserForget.AuditName(), UserID: "u"})
		if err != nil || len(entries) == 0 {
			t.Fatalf("audit: %v, %v", entries, err)
		}
		if ids := entries[0].RecordIDs; len(ids) != 2 || ids[0] == ids[1] {
			t.Errorf("the forget's entry names %v, want the fact and the note", ids)
		}

		// Again: nothing left to forget.
		if got, err = e.svc.ForgetUserMemories(e.ctx, "u", loci.ForgetRequest{Query: secret, IncludeAgents: true}); err != nil || len(got) != 0 {
			t.Fatalf("forget again = %+v, %v; want nothing", got, err)
		}
		// A current text that holds the words takes the record, versions
		// and all, as before.
		e.clock.Add(time.Minute)
		if _, err := e.svc.UpdateMemory(e.ctx, pin.ID, loci.MemoryPatch{Content: loci.Ptr("my pin is " + secret)}); err != nil {
			t.Fatal(err)
		}
		if got, err = e.svc.ForgetUserMemories(e.ctx, "u", loci.ForgetRequest{Query: secret}); err != nil || len(got) != 1 || got[0].History || got[0].ID != pin.ID {
			t.Fatalf("forget of the current text = %+v, %v; want the record", got, err)
		}
		if _, err := e.svc.GetMemory(e.ctx, pin.ID); loci.ErrorCode(err) != loci.ENOTFOUND {
			t.Fatalf("GetMemory after the record was forgotten: %v, want not found", err)
		}
	})
}
