package rules_test

import (
	"context"
	"fmt"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/loci-memory/loci"
	"github.com/loci-memory/loci/internal/testdb"
	"github.com/loci-memory/loci/rules"
)

// failingStore fails its failAt-th write transaction as storage would
// (unavailable), or with err when set, passing every other through to the
// real store.
type failingStore struct {
	loci.Store
	updates atomic.Int32
	failAt  int32
	err     error
}

func (s *failingStore) Update(ctx context.Context, fn func(loci.Tx) error) error {
	if s.updates.Add(1) == s.failAt {
		if s.err != nil {
			return s.err
		}
		return loci.Errorf(loci.EUNAVAILABLE, "the database does not answer")
	}
	return s.Store.Update(ctx, fn)
}

// passages returns an import of n passages of agent a.
func passages(n int) string {
	var b strings.Builder
	for i := range n {
		fmt.Fprintf(&b, `{"type":"record","id":"p%06d","workspace":"default","kind":"passage","agent_id":"a","content":"passage number %d",`+
			`"confidence":0,"access_count":0,"created_at":"2026-01-01T00:00:00Z","updated_at":"2026-01-01T00:00:00Z","version":1}`+"\n", i, i)
	}
	return b.String()
}

// TestImportBatches: an import is written in batches (of 25,000 lines),
// each its own transaction; a storage failure in the middle keeps the
// batches before it and says so; the same import run again completes it,
// skipping what is there, and stores each record once. A hand-written
// file without search text is analyzed as a write would be (found by a
// stemmed query).
func TestImportBatches(t *testing.T) {
	const batch, total = 25000, 27000
	testdb.Each(t, func(t *testing.T, open func(testing.TB) loci.Store) {
		ctx := context.Background()
		store := open(t)
		body := passages(total)
		_, err := rules.New(&failingStore{Store: store, failAt: 2}).Import(ctx, strings.NewReader(body))
		if loci.ErrorCode(err) != loci.EUNAVAILABLE || !strings.Contains(loci.ErrorMessage(err), fmt.Sprintf("the lines before line %d were imported: %d records", batch+1, batch)) {
			t.Fatalf("import failing in its second batch: %v", err)
		}
		svc := rules.New(store)
		if _, n, err := svc.ListPassages(ctx, "a", loci.PassageFilter{Limit: 1}); err != nil || n != batch {
			t.Fatalf("after the failure: %d passages (%v), want the first batch's %d", n, err, batch)
		}
		res, err := svc.Import(ctx, strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		if res.Records != total-batch || res.Skipped != batch {
			t.Errorf("import run again: %+v, want %d stored and %d skipped", res, total-batch, batch)
		}
		if _, n, err := svc.ListPassages(ctx, "a", loci.PassageFilter{Limit: 1}); err != nil || n != total {
			t.Errorf("after the second run: %d passages (%v), want %d", n, err, total)
		}
		found, err := svc.SearchPassages(ctx, "a", "passages numbered 25321", loci.PassageFilter{Limit: 1})
		if err != nil || len(found.Results) == 0 || found.Results[0].Content != "passage number 25321" {
			t.Errorf("search of an imported passage: %+v %v", found, err)
		}
	})
}

// TestImportRefusedWhileWriting: a line refused as its batch is written
// (a write that took its key or its limit after the check) keeps the
// batches before it and says so, but not that the same import run again
// imports the rest: it is refused again (the error said so of any
// failure). A storage failure says it (TestImportBatches).
func TestImportRefusedWhileWriting(t *testing.T) {
	const batch, total = 25000, 25010
	testdb.Each(t, func(t *testing.T, open func(testing.TB) loci.Store) {
		ctx := context.Background()
		refused := loci.Errorf(loci.ECONFLICT, "line %d: record p025002 (or its key) already exists", batch+3)
		_, err := rules.New(&failingStore{Store: open(t), failAt: 2, err: refused}).Import(ctx, strings.NewReader(passages(total)))
		msg := loci.ErrorMessage(err)
		if loci.ErrorCode(err) != loci.ECONFLICT || !strings.Contains(msg, fmt.Sprintf("the lines before line %d were imported: %d records", batch+1, batch)) {
			t.Errorf("import refused in its second batch: %v", err)
		}
		if strings.Contains(msg, "run the same import again") {
			t.Errorf("a refused line says to run the same import again: %s", msg)
		}
	})
}

// Lines of an import written by hand, as export writes them.
const importTimes = `"confidence":0,"access_count":0,"created_at":"2026-01-01T00:00:00Z","updated_at":"2026-01-01T00:00:00Z","version":1`

// importExpiry is the expiry of a working entry or an episode, which
// every one has.
const importExpiry = `"expires_at":"2099-01-01T00:00:00Z",`

func sessionLine(id, user, sid, key string, count int) string {
	return fmt.Sprintf(`{"type":"record","id":%q,"workspace":"default","kind":"session","user_id":%q,"session_id":%q,"key":%q,"content":"","data":{"message_count":%d},"category":"session",%s}`,
		id, user, sid, key, count, importTimes)
}

func messageLine(id, user, sid string, index int) string {
	return fmt.Sprintf(`{"type":"record","id":%q,"workspace":"default","kind":"session","user_id":%q,"session_id":%q,"content":"hello","data":{"role":"user","index":%d},"category":"message",%s}`,
		id, user, sid, index, importTimes)
}

func workingLine(id, task, key string, bytes int) string {
	value := `"` + strings.Repeat("x", bytes-2) + `"`
	return fmt.Sprintf(`{"type":"record","id":%q,"workspace":"default","kind":"working","agent_id":"a","task_id":%q,"key":%q,"content":%q,"data":{"value":%s},%s%s}`,
		id, task, key, value, value, importExpiry, importTimes)
}

func episodeLines(first, n int, user, agent string) string {
	var b strings.Builder
	for i := first; i < first+n; i++ {
		fmt.Fprintf(&b, `{"type":"record","id":"e%06d","workspace":"default","kind":"episode","user_id":%q,"agent_id":%q,"content":"did %d","data":{},"outcome":"success",%s%s}`+"\n",
			i, user, agent, i, importExpiry, importTimes)
	}
	return b.String()
}

func noteLine(id, key, value string) string {
	return fmt.Sprintf(`{"type":"record","id":%q,"workspace":"default","kind":"note","agent_id":"a","key":%q,"content":"v","data":{"value":%s},%s}`,
		id, key, value, importTimes)
}

func blockLine(id, agent, label string) string {
	return fmt.Sprintf(`{"type":"record","id":%q,"workspace":"default","kind":"block","agent_id":%q,"key":%q,"content":"c","data":{"limit":100},%s}`,
		id, agent, label, importTimes)
}

func preferenceLine(id, user, key string) string {
	return fmt.Sprintf(`{"type":"record","id":%q,"workspace":"default","kind":"preference","user_id":%q,"key":%q,"content":"formal","data":{"type":"tone"},%s}`,
		id, user, key, importTimes)
}

// factLine is a fact of user and agent in slot key (none: ""); extra
// fields, such as an invalid_at, go before the times.
func factLine(id, user, agent, key, extra string) string {
	return fmt.Sprintf(`{"type":"record","id":%q,"workspace":"default","kind":"fact","user_id":%q,"agent_id":%q,"key":%q,"content":"lives in Paris","category":"general_fact",%s%s}`,
		id, user, agent, key, extra, importTimes)
}

// exportIn exports the workspace of ctx.
func exportIn(ctx context.Context, t *testing.T, svc *rules.Service) string {
	t.Helper()
	var buf strings.Builder
	if _, err := svc.Export(ctx, loci.ExportFilter{}, &buf); err != nil {
		t.Fatalf("export: %v", err)
	}
	return buf.String()
}

func lines(ls ...string) string { return strings.Join(ls, "\n") + "\n" }

// TestImportRules: an import refuses, naming the line and storing nothing,
// what later reads would disagree with (a session whose message_count is
// not its messages', a message index given twice or beyond the session's
// next, a message without its session, a session whose key is not its
// id, a session id another user's or agent's session holds, in the file
// or stored, a key a stored record of another id holds, a tag given
// twice, an expiry a kind's lifecycle does not give: a block's or a
// preference's, none on a working entry or an episode) and what the API refuses across records or in a
// value (a task's working values over the limit in all, more than the
// episode cap for one user and agent, a note with an empty value, a
// working entry without one), counting what the workspace holds already.
// What keeps the rules is imported.
func TestImportRules(t *testing.T) {
	tests := []struct {
		name  string
		held  string // imported first, into the same workspace
		body  string
		code  string
		line  int
		words string
	}{
		{name: "OK", body: lines(sessionLine("s1", "u", "sess", "sess", 2), messageLine("m1", "u", "sess", 1), messageLine("m0", "u", "sess", 0),
			workingLine("w1", "t", "k1", 25000), workingLine("w2", "t", "k2", 25000), workingLine("w3", "t2", "k1", 50000),
			noteLine("n1", "k", `"value"`), noteLine("n2", "k2", `{}`)) + episodeLines(0, 1000, "u", "a") + episodeLines(1000, 5, "u", "b")},
		{name: "OKMessageBeforeSession", body: lines(messageLine("m0", "u", "sess", 0), sessionLine("s1", "u", "sess", "sess", 1))},
		{name: "ErrMessageCountHigh", body: lines(sessionLine("s1", "u", "sess", "sess", 1), messageLine("m0", "u", "sess", 0), messageLine("m1", "u", "sess", 1)),
			code: loci.EINVALID, line: 1, words: "message_count 1"},
		{name: "ErrMessageCountZero", body: lines(messageLine("m0", "u", "sess", 0), sessionLine("s1", "u", "sess", "sess", 0)),
			code: loci.EINVALID, line: 2, words: "message_count 0"},
		{name: "ErrDuplicateIndex", body: lines(sessionLine("s1", "u", "sess", "sess", 2), messageLine("m0", "u", "sess", 0), messageLine("m1", "u", "sess", 0)),
			code: loci.EINVALID, line: 3, words: "index 0"},
		{name: "ErrIndexBeyondNext", body: lines(sessionLine("s1", "u", "sess", "sess", 2), messageLine("m0", "u", "sess", 0), messageLine("m1", "u", "sess", 5)),
			code: loci.EINVALID, line: 3, words: "index 5"},
		{name: "ErrMessageWithoutSession", body: lines(sessionLine("s1", "u", "sess", "sess", 0), messageLine("m0", "u", "other", 0)),
			code: loci.EINVALID, line: 2, words: "other"},
		{name: "ErrMessageOfAnotherUser", body: lines(sessionLine("s1", "u", "sess", "sess", 0), messageLine("m0", "v", "sess", 0)),
			code: loci.EINVALID, line: 2, words: "sess"},
		{name: "ErrSessionKey", body: lines(sessionLine("s1", "u", "sess", "other", 0)),
			code: loci.EINVALID, line: 1, words: "key"},
		{name: "ErrDuplicateTags", body: strings.Replace(noteLine("n1", "k", `"v"`), `"data"`, `"tags":["a","b","a"],"data"`, 1),
			code: loci.EINVALID, line: 1, words: "tag"},
		{name: "ErrWorkingTotal", body: lines(workingLine("w1", "t", "k1", 30000), workingLine("w0", "t2", "k1", 30000), workingLine("w2", "t", "k2", 30000)),
			code: loci.EINVALID, line: 3, words: "51200"},
		{name: "ErrWorkingTotalHeld", held: lines(workingLine("w1", "t", "k1", 30000)), body: lines(workingLine("w2", "t", "k2", 30000)),
			code: loci.EINVALID, line: 1, words: "51200"},
		{name: "ErrEpisodeCap", body: episodeLines(0, 1001, "u", "a"),
			code: loci.EINVALID, line: 1001, words: "1000"},
		{name: "ErrEpisodeCapHeld", held: episodeLines(0, 1000, "u", "a"), body: episodeLines(0, 1000, "u", "a") + episodeLines(1000, 1, "u", "a"),
			code: loci.EINVALID, line: 1001, words: "1000"},
		{name: "ErrNoteEmptyValue", body: lines(noteLine("n1", "k", `"value"`), noteLine("n2", "k2", `""`)),
			code: loci.EINVALID, line: 2, words: "empty"},
		{name: "ErrNoteBlankValue", body: lines(noteLine("n1", "k", `" \t"`)),
			code: loci.EINVALID, line: 1, words: "empty"},
		{name: "OKKeyOfAnotherScope", held: lines(noteLine("n-old", "k", `"v"`), factLine("f-old", "u", "a", "k", "")),
			body: lines(strings.Replace(noteLine("n-new", "k", `"v"`), `"agent_id":"a"`, `"agent_id":"b"`, 1), factLine("f-new", "v", "a", "k", ""),
				factLine("f-past", "u", "a", "k", `"invalid_at":"2026-01-01T00:00:00Z",`))},
		{name: "ErrNoteKeyHeld", held: lines(noteLine("n-old", "k", `"v"`)), body: lines(noteLine("n-other", "k2", `"v"`), noteLine("n-new", "k", `"w"`)),
			code: loci.ECONFLICT, line: 2, words: "held by record ErrNoteKeyHeld-n-old"},
		{name: "ErrExpiredNoteKeyHeld", held: lines(strings.Replace(noteLine("n-old", "k", `"v"`), `"version"`, `"expires_at":"2026-01-01T00:00:01Z","version"`, 1)),
			body: lines(noteLine("n-new", "k", `"w"`)), code: loci.ECONFLICT, line: 1, words: "n-old"},
		{name: "ErrBlockKeyHeld", held: lines(blockLine("b-old", "a", "persona")), body: lines(blockLine("b-new", "a", "persona")),
			code: loci.ECONFLICT, line: 1, words: "b-old"},
		{name: "ErrPreferenceKeyHeld", held: lines(preferenceLine("p-old", "u", "tone")), body: lines(preferenceLine("p-new", "u", "tone")),
			code: loci.ECONFLICT, line: 1, words: "p-old"},
		{name: "ErrFactSlotHeld", held: lines(factLine("f-old", "u", "a1", "home_city", "")), body: lines(factLine("f-new", "u", "a2", "home_city", "")),
			code: loci.ECONFLICT, line: 1, words: "f-old"},
		{name: "ErrSessionKeyHeld", held: lines(sessionLine("s-old", "u", "sess", "sess", 0)), body: lines(sessionLine("s-new", "u", "sess", "sess", 0)),
			code: loci.ECONFLICT, line: 1, words: "s-old"},
		{name: "ErrSessionOfAnotherUser", body: lines(sessionLine("s1", "u", "sess", "sess", 0), sessionLine("s2", "v", "sess", "sess", 0)),
			code: loci.ECONFLICT, line: 2, words: `session "sess" (a session id is unique in the workspace, whichever its user) is also on line 1`},
		{name: "ErrSessionOfAnotherAgent", body: lines(sessionLine("s1", "u", "sess", "sess", 0), strings.Replace(sessionLine("s2", "u", "sess", "sess", 0), `"user_id"`, `"agent_id":"a","user_id"`, 1)),
			code: loci.ECONFLICT, line: 2, words: "line 1"},
		{name: "ErrSessionOfAnotherUserHeld", held: lines(sessionLine("s-old", "u", "sess", "sess", 0)), body: lines(sessionLine("s-new", "v", "sess", "sess", 0)),
			code: loci.ECONFLICT, line: 1, words: "held by record ErrSessionOfAnotherUserHeld-s-old"},
		{name: "ErrWorkingKeyHeld", held: lines(workingLine("w-old", "t", "k", 10)), body: lines(workingLine("w-new", "t", "k", 10)),
			code: loci.ECONFLICT, line: 1, words: "w-old"},
		{name: "OKExpiries", body: lines(strings.Replace(sessionLine("s1", "u", "sess", "sess", 0), `"version"`, `"expires_at":"2099-01-01T00:00:00Z","version"`, 1),
			strings.Replace(noteLine("n1", "k", `"v"`), `"version"`, `"expires_at":"2099-01-01T00:00:00Z","version"`, 1),
			strings.Replace(factLine("f1", "u", "a", "", ""), `"version"`, `"expires_at":"2099-01-01T00:00:00Z","version"`, 1),
			blockLine("b1", "a", "persona"), preferenceLine("p1", "u", "tone"))},
		{name: "ErrBlockExpires", body: lines(strings.Replace(blockLine("b1", "a", "persona"), `"version"`, `"expires_at":"2099-01-01T00:00:00Z","version"`, 1)),
			code: loci.EINVALID, line: 1, words: "a block takes no expires_at"},
		{name: "ErrPreferenceExpires", body: lines(strings.Replace(preferenceLine("p1", "u", "tone"), `"version"`, `"expires_at":"2099-01-01T00:00:00Z","version"`, 1)),
			code: loci.EINVALID, line: 1, words: "a preference takes no expires_at"},
		{name: "ErrWorkingNoExpiry", body: lines(workingLine("w1", "t", "k1", 10), strings.Replace(workingLine("w2", "t", "k2", 10), importExpiry, "", 1)),
			code: loci.EINVALID, line: 2, words: "expires_at is required: every working record expires"},
		{name: "ErrEpisodeNoExpiry", body: strings.Replace(episodeLines(0, 1, "u", "a"), importExpiry, "", 1),
			code: loci.EINVALID, line: 1, words: "expires_at is required: every episode record expires"},
		{name: "ErrWorkingNullValue", body: lines(strings.Replace(workingLine("w1", "t", "k1", 10), `"data":{"value":"xxxxxxxx"}`, `"data":{"value":null}`, 1)),
			code: loci.EINVALID, line: 1, words: "value"},
	}
	testdb.Each(t, func(t *testing.T, open func(testing.TB) loci.Store) {
		// One database, a workspace per case (an import reads and writes
		// only its own), ids prefixed by the case (they are unique in the
		// database).
		svc := rules.New(open(t))
		for _, tt := range tests {
			t.Run(tt.name, func(t *testing.T) {
				ctx := loci.WithWorkspace(context.Background(), tt.name)
				ids := strings.NewReplacer(`"id":"`, `"id":"`+tt.name+"-")
				tt.held, tt.body = ids.Replace(tt.held), ids.Replace(tt.body)
				if tt.held != "" {
					if _, err := svc.Import(ctx, strings.NewReader(tt.held)); err != nil {
						t.Fatalf("import what is held: %v", err)
					}
				}
				before := exportIn(ctx, t, svc)
				res, err := svc.Import(ctx, strings.NewReader(tt.body))
				if tt.code == "" {
					if err != nil {
						t.Fatalf("import: %v", err)
					}
					if want := strings.Count(tt.body, "\n"); res.Records != want {
						t.Errorf("imported %d records, want %d", res.Records, want)
					}
					return
				}
				msg := loci.ErrorMessage(err)
				if loci.ErrorCode(err) != tt.code || !strings.HasPrefix(msg, fmt.Sprintf("line %d: ", tt.line)) || !strings.Contains(msg, tt.words) {
					t.Errorf("err = %v, want %s on line %d naming %q", err, tt.code, tt.line, tt.words)
				}
				if after := exportIn(ctx, t, svc); after != before {
					t.Errorf("a refused import changed the workspace")
				}
			})
		}
	})
}

// TestImportKeyHeldAfterABatch: a keyed line whose key a stored record
// with another id holds is refused before anything is written, however
// many batches come before it (it was refused by the key's index as its
// batch was written, the batches before it stored, and the error said to
// run the same import again, which failed there again).
func TestImportKeyHeldAfterABatch(t *testing.T) {
	testdb.Each(t, func(t *testing.T, open func(testing.TB) loci.Store) {
		ctx := context.Background()
		svc := rules.New(open(t))
		if _, err := svc.Import(ctx, strings.NewReader(lines(noteLine("n-old", "k", `"v"`)))); err != nil {
			t.Fatal(err)
		}
		const batch = 25000
		_, err := svc.Import(ctx, strings.NewReader(passages(batch)+lines(noteLine("n-new", "k", `"w"`))))
		msg := loci.ErrorMessage(err)
		if loci.ErrorCode(err) != loci.ECONFLICT || !strings.HasPrefix(msg, fmt.Sprintf("line %d: ", batch+1)) || !strings.Contains(msg, "n-old") {
			t.Errorf("err = %v, want a conflict on line %d naming n-old", err, batch+1)
		}
		if strings.Contains(msg, "run the same import again") {
			t.Errorf("the error says to run the import again: %s", msg)
		}
		if _, n, err := svc.ListPassages(ctx, "a", loci.PassageFilter{Limit: 1}); err != nil || n != 0 {
			t.Errorf("the refused import stored %d passages (%v)", n, err)
		}
	})
}

// TestImportMetadataCanonical: an imported record's metadata, and its kept
// versions', is stored in the canonical form a write stores (keys sorted,
// compact, & not escaped), however the file wrote it.
func TestImportMetadataCanonical(t *testing.T) {
	testdb.Each(t, func(t *testing.T, open func(testing.TB) loci.Store) {
		ctx := context.Background()
		svc := rules.New(open(t))
		line := `{"type":"record","id":"n1","workspace":"default","kind":"note","agent_id":"a","key":"k","content":"v","data":{"value":"v"},` +
			`"metadata":{ "z" : 1, "a.b" : "x \u0026 y" },` +
			`"versions":[{"record_id":"n1","version":1,"content":"old","data":{"value":"old"},"metadata":{"y":[1, 2],"b":true},"updated_at":"2026-01-01T00:00:00Z"}],` +
			`"confidence":0,"access_count":0,"created_at":"2026-01-01T00:00:00Z","updated_at":"2026-01-01T00:00:00Z","version":2}`
		if _, err := svc.Import(ctx, strings.NewReader(line+"\n")); err != nil {
			t.Fatal(err)
		}
		exp := exportIn(ctx, t, svc)
		for _, want := range []string{`"metadata":{"a.b":"x & y","z":1}`, `"metadata":{"b":true,"y":[1,2]}`} {
			if !strings.Contains(exp, want) {
				t.Errorf("the export does not hold %s:\n%s", want, exp)
			}
		}
	})
}

// TestImportPresent: a second import of a file skips the records stored
// the same; one stored with other content refuses the file at its line,
// and of a refused line and such a record, the earlier line is reported,
// whichever chunk of lines is checked first; nothing is written.
func TestImportPresent(t *testing.T) {
	testdb.Each(t, func(t *testing.T, open func(testing.TB) loci.Store) {
		ctx := context.Background()
		svc := rules.New(open(t))
		body := passages(2000)
		if _, err := svc.Import(ctx, strings.NewReader(body)); err != nil {
			t.Fatal(err)
		}
		ls := strings.Split(strings.TrimSuffix(body, "\n"), "\n")
		edit := func(edits map[int]string) string {
			out := append([]string(nil), ls...)
			for line, l := range edits {
				out[line-1] = l
			}
			out = append(out, strings.ReplaceAll(ls[0], "p000000", "p999999"))
			return strings.Join(out, "\n") + "\n"
		}
		other := func(line int) string { return strings.Replace(ls[line-1], `"version":1`, `"version":2`, 1) }
		for name, c := range map[string]struct {
			body string
			want string
		}{
			"OtherContent":                {edit(map[int]string{1500: other(1500)}), "line 1500: record p001499 already exists with other content"},
			"OtherContentFirst":           {edit(map[int]string{700: other(700), 1600: "{"}), "line 700: record p000699 already exists"},
			"RefusedLineFirst":            {edit(map[int]string{300: "{", 1500: other(1500)}), "line 300: malformed JSON"},
			"BothInOneChunkFirst":         {edit(map[int]string{1030: "{", 1040: other(1040)}), "line 1030: malformed JSON"},
			"OtherContentInOneChunkFirst": {edit(map[int]string{1030: other(1030), 1040: "{"}), "line 1030: record p001029 already exists"},
		} {
			_, err := svc.Import(ctx, strings.NewReader(c.body))
			if !strings.Contains(loci.ErrorMessage(err), c.want) {
				t.Errorf("%s: %v, want %q", name, err, c.want)
			}
		}
		if _, n, err := svc.ListPassages(ctx, "a", loci.PassageFilter{Limit: 1}); err != nil || n != 2000 {
			t.Errorf("after the refused imports: %d passages (%v), want 2000", n, err)
		}
		res, err := svc.Import(ctx, strings.NewReader(body))
		if err != nil || res.Records != 0 || res.Skipped != 2000 {
			t.Errorf("the same file again: %+v, %v; want 2000 skipped", res, err)
		}
	})
}
