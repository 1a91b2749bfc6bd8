package rules

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/loci-memory/loci"
)

// fill sets every field of the struct v points to, embedded ones included,
// to a value that differs from its zero value and from the other fields',
// so that a field the spooled form forgets (a field added to the struct
// later) reads back different.
func fill(t *testing.T, v reflect.Value, seed *int) {
	t.Helper()
	for i := range v.NumField() {
		f := v.Field(i)
		*seed++
		n := *seed
		switch {
		case f.Type() == reflect.TypeFor[time.Time]():
			zone := time.FixedZone("", (n%5-5)*3600) // not UTC, which reads back as Local where that is UTC
			f.Set(reflect.ValueOf(time.Date(2000+n, time.Month(n%12+1), n%28+1, n%24, n, n, n*1001, zone)))
		case f.Type() == reflect.TypeFor[json.RawMessage]():
			f.Set(reflect.ValueOf(json.RawMessage(fmt.Sprintf(`{"f%d":"é\"x"}`, n))))
		case f.Kind() == reflect.String:
			f.SetString(fmt.Sprintf("s%d \"q\" \\ é\t\n", n))
		case f.Kind() == reflect.Int:
			f.SetInt(int64(n) * 1000003)
		case f.Kind() == reflect.Float64:
			f.SetFloat(float64(n) + 0.125)
		case f.Kind() == reflect.Bool:
			f.SetBool(true)
		case f.Type() == reflect.TypeFor[[]string]():
			f.Set(reflect.ValueOf([]string{fmt.Sprint("t", n), "", "é"}))
		case f.Type() == reflect.TypeFor[[]float32]():
			f.Set(reflect.ValueOf([]float32{float32(n), -0.5, 1e-7}))
		case f.Kind() == reflect.Struct && v.Type().Field(i).Anonymous:
			fill(t, f, seed)
		default:
			t.Fatalf("fill: no value for field %s of type %s", v.Type().Field(i).Name, f.Type())
		}
	}
}

// roundTrip spools entries and reads them back.
func roundTrip(t *testing.T, limit int, entries ...importEntry) []importEntry {
	t.Helper()
	sp := &spool{limit: limit}
	defer sp.close()
	for i := range entries {
		if err := sp.writeFrame(&entries[i]); err != nil {
			t.Fatal(err)
		}
	}
	rd, err := sp.reader()
	if err != nil {
		t.Fatal(err)
	}
	var out []importEntry
	for {
		e, err := readFrame(rd)
		if err == io.EOF {
			return out
		} else if err != nil {
			t.Fatal(err)
		}
		out = append(out, e)
	}
}

// TestImportFrame: an entry spooled between an import's phases reads back
// as it was checked: every field of a record (a field added to
// loci.Record and not spooled fails here), its versions, an agent, a
// user; nil kept apart from empty; in memory and in the temporary file.
func TestImportFrame(t *testing.T) {
	seed := 0
	var full loci.Record
	fill(t, reflect.ValueOf(&full).Elem(), &seed)
	versions := make([]loci.RecordVersion, 2)
	for i := range versions {
		fill(t, reflect.ValueOf(&versions[i]).Elem(), &seed)
	}
	var agent loci.Agent
	fill(t, reflect.ValueOf(&agent).Elem(), &seed)
	agent.Workspace = "" // not imported: the import's workspace
	var user loci.User
	fill(t, reflect.ValueOf(&user).Elem(), &seed)
	user.Workspace = ""
	empty := loci.Record{Kind: loci.KindNote, Tags: []string{}, Data: json.RawMessage{}, Embedding: []float32{}}
	entries := []importEntry{
		{line: 1, rec: &full, versions: versions, present: true},
		{line: 2, rec: &loci.Record{ID: "zero"}},
		{line: 3, rec: &empty, versions: []loci.RecordVersion{}},
		{line: 4, agent: &agent},
		{line: 50000000000, user: &user},
		{line: 6, user: &loci.User{ID: "u"}},
	}
	for _, limit := range []int{1 << 20, 10} { // in memory; in a file
		got := roundTrip(t, limit, entries...)
		if len(got) != len(entries) {
			t.Fatalf("read back %d entries, want %d", len(got), len(entries))
		}
		for i, want := range entries {
			g := got[i]
			if g.line != want.line || g.present != want.present || g.noSearchText != want.noSearchText {
				t.Errorf("entry %d: line %d present %v, want %d %v", i, g.line, g.present, want.line, want.present)
			}
			if !reflect.DeepEqual(g.rec, want.rec) || !reflect.DeepEqual(g.versions, want.versions) ||
				!reflect.DeepEqual(g.agent, want.agent) || !reflect.DeepEqual(g.user, want.user) {
				t.Errorf("entry %d read back as\n%+v %+v %+v %+v\nwant\n%+v %+v %+v %+v", i,
					g.rec, g.versions, g.agent, g.user, want.rec, want.versions, want.agent, want.user)
			}
		}
	}
}

// TestImportFrameSearchText: a record whose line had no search text reads
// back with its text analyzed, as a write analyzes it; one whose line had
// one (even empty) keeps it.
func TestImportFrameSearchText(t *testing.T) {
	got := roundTrip(t, 1<<20,
		importEntry{line: 1, rec: &loci.Record{Key: "Running", Content: "Dogs barked", Tags: []string{"Cats"}}, noSearchText: true},
		importEntry{line: 2, rec: &loci.Record{Content: "Dogs barked"}})
	if want := searchText("Running Dogs barked Cats"); got[0].rec.SearchText != want || want == "" {
		t.Errorf("analyzed search text %q, want %q", got[0].rec.SearchText, want)
	}
	if got[1].rec.SearchText != "" {
		t.Errorf("an empty search text read back as %q", got[1].rec.SearchText)
	}
}

// TestImportFrameMalformed: a spooled frame cut short or with bytes to
// spare is an error, not a record read half.
func TestImportFrameMalformed(t *testing.T) {
	p, err := encodeFrame(nil, &importEntry{line: 7, rec: &loci.Record{ID: "r", Content: "some content", Tags: []string{"t"}}})
	if err != nil {
		t.Fatal(err)
	}
	for n := range len(p) {
		if _, err := decodeFrame(p[:n]); err == nil {
			t.Fatalf("a frame cut to %d of %d bytes decoded", n, len(p))
		}
	}
	if _, err := decodeFrame(append(p[:len(p):len(p)], 0)); err == nil {
		t.Fatal("a frame with a byte to spare decoded")
	}
	if _, err := readFrame(bufio.NewReader(strings.NewReader("\xff\xff\xff\xff\x0f"))); err == nil || err == io.EOF {
		t.Fatalf("a frame of 4 GB: %v", err)
	}
	if _, err := readFrame(bufio.NewReader(bytes.NewReader([]byte{10, 1, 2}))); err == nil || err == io.EOF {
		t.Fatalf("a frame shorter than its length: %v", err)
	}
}
