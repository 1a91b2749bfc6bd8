package rules_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/loci-memory/loci"
	"github.com/loci-memory/loci/internal/testdb"
	"github.com/loci-memory/loci/rules"
	"github.com/loci-memory/loci/storetest"
)

// kindData is data of each kind's shape, with nested JSON where the kind
// keeps any.
var kindData = map[loci.Kind]string{
	loci.KindNote:       `{"value":{"n":1,"nested":{"a":[1,2.5,"x"]}}}`,
	loci.KindBlock:      `{"limit":5000,"is_shared":true}`,
	loci.KindPassage:    `{"n":2,"nested":{"a":[1,2.5,"x"]}}`,
	loci.KindWorking:    `{"value":{"step":2,"of":5}}`,
	loci.KindEpisode:    `{"context":{"nested":{"a":[1,2.5,"x"]}},"confidence_score":0.5}`,
	loci.KindFact:       `{"evidence":{"a":[1,2.5,"x"]},"is_validated":true,"contradiction_count":1}`,
	loci.KindPreference: `{"type":"tone","value":["a",1],"learned_from":"explicit statement","first_observed":"2026-01-01","observation_count":2,"source":"explicit","peak":100,"is_persistent":true,"flagged_for_removal":false,"last_used_at":"2026-02-03T04:05:06Z"}`,
	loci.KindSession:    `{"context":{"vertical":"Retail"},"summary":"s","is_persistent":true,"message_count":0}`,
}

// seedEverything stores one of everything an export holds: agents, users,
// records of every kind with every field set, versions, a block link.
func seedEverything(t *testing.T, s loci.Store) {
	t.Helper()
	ctx := context.Background()
	at := time.Date(2026, 2, 3, 4, 5, 6, 789000, time.UTC)
	var recs []*loci.Record
	for i, k := range loci.Kinds {
		r := storetest.NewRecord(k, loci.Scope{AgentID: "a1", UserID: "u1", SessionID: "s1", TaskID: "t1"}, "key-"+string(k), "content of "+string(k)+" ünïcode")
		r.SearchText = "analyzed " + string(k)
		r.Data = json.RawMessage(kindData[k])
		r.Tags = []string{"t1", "t2"}
		r.Category, r.ActionType, r.Outcome = "general_fact", "post", "success"
		if k == loci.KindSession {
			r.Category, r.Key = "session", "s1" // a session's key is its id
		}
		r.Confidence, r.AccessCount = 0.1*float64(i+1), i
		r.LastAccessedAt, r.ExpiresAt = at.Add(time.Duration(i)*time.Hour), at.Add(48*time.Hour)
		if k == loci.KindBlock || k == loci.KindPreference {
			r.ExpiresAt = time.Time{} // they never expire
		}
		r.Embedding, r.EmbeddingModel = []float32{0.1, -0.2, 1.0 / 3, float32(i)}, "hash-v1"
		r.Version = 3
		r.ValidAt, r.InvalidAt, r.Review = at.Add(-time.Hour), at.Add(time.Hour), loci.ReviewDisputed
		r.Metadata = json.RawMessage(`{"n":1.5,"source":"chat","tags":["a",true]}`)
		recs = append(recs, r)
	}
	global := storetest.NewRecord(loci.KindFact, loci.Scope{}, "", "global knowledge")
	global.Category = "general_fact"
	other := storetest.NewRecord(loci.KindPreference, loci.Scope{UserID: "u2"}, "tone", "formal")
	// The current version of the fact's key (the one above is its history).
	current := storetest.NewRecord(loci.KindFact, loci.Scope{AgentID: "a1", UserID: "u1", SessionID: "s1", TaskID: "t1"}, "key-fact", "current version")
	current.ValidAt, current.Category = at.Add(time.Hour), "general_fact"
	recs = append(recs, global, other, current)
	storetest.MustInsert(t, s, recs...)
	storetest.MustUpdate(t, s, func(tx loci.Tx) error {
		for _, a := range []*loci.Agent{{Workspace: loci.DefaultWorkspace, ID: "a1", Name: "Writer", CreatedAt: at}, {Workspace: loci.DefaultWorkspace, ID: "a2", CreatedAt: at}} {
			if err := tx.InsertAgent(ctx, a); err != nil {
				return err
			}
		}
		for _, id := range []string{"u1", "u2"} {
			u, _, err := tx.EnsureUser(ctx, loci.DefaultWorkspace, id, at)
			if err != nil {
				return err
			}
			u.Defaults, u.UpdatedAt = json.RawMessage(`{"vertical":"Retail"}`), at.Add(time.Minute)
			if err := tx.UpdateUser(ctx, u); err != nil {
				return err
			}
		}
		for v := 1; v <= 2; v++ {
			if err := tx.InsertVersion(ctx, loci.RecordVersion{RecordID: recs[0].ID, Version: v, Content: "old", Data: json.RawMessage(`{"value":"old"}`),
				Metadata: json.RawMessage(fmt.Sprintf(`{"v":%d}`, v)), UpdatedAt: at.Add(time.Duration(v) * time.Second)}); err != nil {
				return err
			}
		}
		return tx.AttachBlock(ctx, loci.DefaultWorkspace, recs[1].ID, "a2", at)
	})
}

// seedClock is a clock at the time seedEverything's records were written,
// before they expire: an expired record is in no export.
func seedClock() rules.Option {
	return rules.WithClock(loci.NewFakeClock(time.Date(2026, 2, 3, 4, 5, 6, 789000, time.UTC)))
}

func export(t *testing.T, svc *rules.Service, f loci.ExportFilter) (string, int) {
	t.Helper()
	var buf bytes.Buffer
	n, err := svc.Export(context.Background(), f, &buf)
	if err != nil {
		t.Fatalf("export: %v", err)
	}
	return buf.String(), n
}

func TestExportImportRoundTrip(t *testing.T) {
	testdb.Each(t, func(t *testing.T, open func(testing.TB) loci.Store) {
		src := rules.New(open(t), seedClock())
		seedEverything(t, src.Store())
		first, n := export(t, src, loci.ExportFilter{})
		if n != len(loci.Kinds)+3 {
			t.Errorf("exported %d records, want %d", n, len(loci.Kinds)+3)
		}
		lines := strings.Split(strings.TrimSpace(first), "\n")
		if want := 2 + 2 + len(loci.Kinds) + 3 + 1; len(lines) != want {
			t.Errorf("export has %d lines, want %d:\n%s", len(lines), want, first)
		}
		for _, want := range []string{`"type":"agent"`, `"type":"user"`, `"type":"block_link"`, `"search_text":"analyzed note"`, `"embedding":[0.1,-0.2,0.33333334,0]`, `"versions":[`, `"access_count":2`, `"metadata":{"n":1.5,"source":"chat","tags":["a",true]}`, `"metadata":{"v":2}`,
			`"valid_at":"2026-02-03T03:05:06.000789Z","invalid_at":"2026-02-03T05:05:06.000789Z","review":"disputed"`} {
			if !strings.Contains(first, want) {
				t.Errorf("export lacks %s", want)
			}
		}
		dst := rules.New(open(t), seedClock())
		res, err := dst.Import(context.Background(), strings.NewReader(first))
		if err != nil {
			t.Fatalf("import: %v", err)
		}
		if *res != (loci.ImportResult{Agents: 2, Users: 2, Records: len(loci.Kinds) + 3, Versions: 2, BlockLinks: 1}) {
			t.Errorf("import result = %+v", res)
		}
		second, _ := export(t, dst, loci.ExportFilter{})
		if second != first {
			t.Errorf("export after import differs:\nfirst:\n%s\nsecond:\n%s", first, second)
		}
		// The lexical index was rebuilt from the exported search text.
		hits := storetest.SearchLexical(t, dst.Store(), loci.RecordFilter{Workspace: loci.DefaultWorkspace}, []string{"analyzed"}, 100)
		if len(hits) != len(loci.Kinds) {
			t.Errorf("lexical hits after import = %d, want %d", len(hits), len(loci.Kinds))
		}
		// Run again (as after a failure in the middle of the writes), the
		// same import skips what is there and changes nothing.
		t.Run("ImportTwiceSkips", func(t *testing.T) {
			res, err := dst.Import(context.Background(), strings.NewReader(first))
			if err != nil {
				t.Fatal(err)
			}
			if *res != (loci.ImportResult{Skipped: len(loci.Kinds) + 3, BlockLinks: 1}) {
				t.Errorf("second import result = %+v", res)
			}
			if again, _ := export(t, dst, loci.ExportFilter{}); again != first {
				t.Error("importing again changed the store")
			}
		})
		t.Run("ErrPresentWithOtherContent", func(t *testing.T) {
			changed := strings.Replace(first, `"version":3`, `"version":4`, 1)
			_, err := dst.Import(context.Background(), strings.NewReader(changed))
			if loci.ErrorCode(err) != loci.ECONFLICT || !strings.Contains(loci.ErrorMessage(err), "line 5:") {
				t.Errorf("err = %v, want conflict on line 5", err)
			}
			if again, _ := export(t, dst, loci.ExportFilter{}); again != first {
				t.Error("a refused import changed the store")
			}
		})
		t.Run("IntoOtherWorkspace", func(t *testing.T) {
			ctx := loci.WithWorkspace(context.Background(), "copy")
			dst := rules.New(open(t), seedClock())
			if _, err := dst.Import(ctx, strings.NewReader(first)); err != nil {
				t.Fatal(err)
			}
			var buf bytes.Buffer
			if _, err := dst.Export(ctx, loci.ExportFilter{}, &buf); err != nil {
				t.Fatal(err)
			}
			if want := strings.ReplaceAll(first, `"workspace":"default"`, `"workspace":"copy"`); buf.String() != want {
				t.Errorf("copy differs:\n%s", buf.String())
			}
		})
	})
}

func TestExportUser(t *testing.T) {
	svc := rules.New(testdb.OpenSQLite(t), seedClock())
	seedEverything(t, svc.Store())
	out, n := export(t, svc, loci.ExportFilter{UserID: "u2"})
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if n != 1 || len(lines) != 2 || !strings.Contains(lines[0], `"type":"user"`) || !strings.Contains(lines[1], `"content":"formal"`) {
		t.Errorf("user export (%d records):\n%s", n, out)
	}
	dst := rules.New(testdb.OpenSQLite(t))
	if _, err := dst.Import(context.Background(), strings.NewReader(out)); err != nil {
		t.Fatal(err)
	}
	if again, _ := export(t, dst, loci.ExportFilter{UserID: "u2"}); again != out {
		t.Errorf("user round trip differs:\n%s\n%s", out, again)
	}
}

func TestImportBadInput(t *testing.T) {
	good := `{"type":"record","id":"r1","workspace":"default","kind":"note","agent_id":"a","key":"k","content":"c","data":{"value":"c"},"confidence":0,"access_count":0,"created_at":"2026-01-01T00:00:00Z","updated_at":"2026-01-01T00:00:00Z","version":1,"search_text":"c"}`
	tests := []struct {
		name, body, code string
	}{
		{"ErrMalformed", good + "\n{not json", loci.EINVALID},
		{"ErrUnknownType", good + "\n" + `{"type":"secret"}`, loci.EINVALID},
		{"ErrUnknownField", strings.Replace(good, `"id"`, `"evil":1,"id"`, 1), loci.EINVALID},
		{"ErrUnknownKind", strings.Replace(good, `"note"`, `"memo"`, 1), loci.EINVALID},
		{"ErrDuplicateKey", good + "\n" + strings.Replace(good, `"r1"`, `"r2"`, 1), loci.ECONFLICT},
		{"ErrNoID", strings.Replace(good, `"r1"`, `""`, 1), loci.EINVALID},
		{"ErrNoVersion", strings.Replace(good, `"version":1`, `"version":0`, 1), loci.EINVALID},
		{"ErrDuplicate", good + "\n" + good, loci.ECONFLICT},
		{"ErrDanglingLink", `{"type":"block_link","block_id":"nope","agent_id":"a","created_at":"2026-01-01T00:00:00Z"}`, loci.EINVALID},
		{"ErrNotObject", `[1,2]`, loci.EINVALID},
		{"ErrInvalidUTF8", strings.Replace(good, `"c"`, "\"\xff\"", 1), loci.EINVALID},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			svc := rules.New(testdb.OpenSQLite(t))
			_, err := svc.Import(context.Background(), strings.NewReader(tt.body))
			if loci.ErrorCode(err) != tt.code {
				t.Errorf("err = %v, want %s", err, tt.code)
			}
			if out, n := export(t, svc, loci.ExportFilter{}); n != 0 || out != "" {
				t.Errorf("a failed import stored:\n%s", out)
			}
		})
	}
}

// TestImportKeepsSearchText: the search text an export holds is what the
// import stores, an empty one included (a session without a summary is
// not searchable by its id after a round trip); a line without one (a
// file written by hand) is analyzed as a write would be.
func TestImportKeepsSearchText(t *testing.T) {
	testdb.Each(t, func(t *testing.T, open func(testing.TB) loci.Store) {
		ctx := context.Background()
		src := rules.New(open(t))
		sess := storetest.NewRecord(loci.KindSession, loci.Scope{UserID: "u1", SessionID: "s-findme"}, "s-findme", "")
		sess.Category, sess.Data = "session", json.RawMessage(`{"message_count":0}`)
		storetest.MustInsert(t, src.Store(), sess)
		first, _ := export(t, src, loci.ExportFilter{})
		if !strings.Contains(first, `"search_text":""`) {
			t.Fatalf("export lacks the empty search text:\n%s", first)
		}
		dst := rules.New(open(t))
		if _, err := dst.Import(ctx, strings.NewReader(first)); err != nil {
			t.Fatal(err)
		}
		if second, _ := export(t, dst, loci.ExportFilter{}); second != first {
			t.Errorf("export after import differs:\nfirst:  %s\nsecond: %s", first, second)
		}
		if hits := storetest.SearchLexical(t, dst.Store(), loci.RecordFilter{Workspace: loci.DefaultWorkspace}, []string{"findme"}, 10); len(hits) != 0 {
			t.Errorf("the imported session is found by its id: %v", hits)
		}

		t.Run("AbsentIsAnalyzed", func(t *testing.T) {
			line := strings.Replace(strings.TrimSpace(first), `,"search_text":""`, "", 1)
			if line == strings.TrimSpace(first) {
				t.Fatalf("no search_text to remove in %s", first)
			}
			dst := rules.New(open(t))
			if _, err := dst.Import(ctx, strings.NewReader(line)); err != nil {
				t.Fatal(err)
			}
			if hits := storetest.SearchLexical(t, dst.Store(), loci.RecordFilter{Workspace: loci.DefaultWorkspace}, []string{"findm"}, 10); len(hits) != 1 {
				t.Errorf("a line without search text: %d hits for its analyzed key, want 1", len(hits))
			}
		})
	})
}

// TestExportUnlinksExpiredFacts: an export taken after a keyed fact's
// version expired, and before maintenance deleted it, leaves it out and
// writes its neighbours in its key's timeline as maintenance leaves them,
// naming it no more: the copy's timeline is the source's once expire has
// run (the copy's neighbours named the missing fact for ever).
func TestExportUnlinksExpiredFacts(t *testing.T) {
	testdb.Each(t, func(t *testing.T, open func(testing.TB) loci.Store) {
		ctx := context.Background()
		clock := loci.NewFakeClock(time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC))
		src := rules.New(open(t), rules.WithClock(clock))
		var ids []string
		for _, city := range []string{"Berlin", "Paris", "Rome"} {
			clock.Add(time.Minute)
			f, err := src.StoreFact(ctx, loci.FactInput{UserID: "u", Category: "general_fact", Fact: "lives in " + city, Key: "home_city"})
			if err != nil {
				t.Fatal(err)
			}
			ids = append(ids, f.ID)
		}
		// The middle version expires: the first names it as its successor,
		// the last as the version it superseded.
		at := clock.Now().Add(time.Hour)
		if _, err := src.UpdateMemory(ctx, ids[1], loci.MemoryPatch{ExpiresAt: &at}); err != nil {
			t.Fatal(err)
		}
		clock.Add(2 * time.Hour)
		first, _ := export(t, src, loci.ExportFilter{})
		if strings.Contains(first, ids[1]) {
			t.Errorf("the export names the expired fact %s:\n%s", ids[1], first)
		}
		if user, _ := export(t, src, loci.ExportFilter{UserID: "u"}); strings.Contains(user, ids[1]) {
			t.Errorf("the user's export names the expired fact %s:\n%s", ids[1], user)
		}
		dst := rules.New(open(t), rules.WithClock(clock))
		if _, err := dst.Import(ctx, strings.NewReader(first)); err != nil {
			t.Fatal(err)
		}
		if second, _ := export(t, dst, loci.ExportFilter{}); second != first {
			t.Errorf("export after import differs:\nfirst:\n%s\nsecond:\n%s", first, second)
		}
		if _, err := src.Maintain(ctx, loci.MaintenanceRequest{Tasks: []string{loci.MaintainExpire}}); err != nil {
			t.Fatal(err)
		}
		for _, id := range []string{ids[0], ids[2]} {
			want, err := src.GetFact(ctx, id)
			if err != nil {
				t.Fatal(err)
			}
			got, err := dst.GetFact(ctx, id)
			if err != nil {
				t.Fatal(err)
			}
			if got.SupersededBy != want.SupersededBy || got.Supersedes != want.Supersedes || !got.InvalidAt.Equal(want.InvalidAt) || got.Status != want.Status {
				t.Errorf("fact %s in the copy: superseded_by %q, supersedes %q, invalid_at %v, %s; in the source after expire: %q, %q, %v, %s",
					id, got.SupersededBy, got.Supersedes, got.InvalidAt, got.Status, want.SupersededBy, want.Supersedes, want.InvalidAt, want.Status)
			}
		}
	})
}
