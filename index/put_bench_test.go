package index

import (
	"fmt"
	"testing"

	"github.com/loci-memory/loci"
	"github.com/loci-memory/loci/analysis"
	"github.com/loci-memory/loci/internal/textgen"
)

// BenchmarkLoadScope indexes a scope of 100 passages into a new entry, as
// a scope's first search loads it (the records already read).
//
//	go test ./index -run XXX -bench LoadScope
func BenchmarkLoadScope(b *testing.B) {
	gen := textgen.New(1)
	recs := make([]*loci.Record, 100)
	for i := range recs {
		c := gen.Passage()
		recs[i] = &loci.Record{ID: fmt.Sprint("r", i), Workspace: "w", Kind: loci.KindPassage, Content: c, SearchText: analysis.SearchText(c)}
	}
	for b.Loop() {
		e := newEntry(&config{}, "k", loci.RecordFilter{Workspace: "w"})
		e.reserve(len(recs))
		for _, r := range recs {
			e.put(r)
		}
		e.loaded()
	}
}
