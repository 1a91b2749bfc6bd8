package rules_test

import (
	"context"
	"encoding/json"
	"fmt"
	"sync/atomic"
	"testing"

	"github.com/loci-memory/loci/internal/testdb"
	"github.com/loci-memory/loci/rules"
)

// BenchmarkNotes measures note writes and reads through the service on every
// configured backend (PostgreSQL when LOCI_TEST_POSTGRES_DSN is set):
//
//	go test -run '^$' -bench Notes -benchtime 2000x ./rules/
func BenchmarkNotes(b *testing.B) {
	ctx := context.Background()
	value := json.RawMessage(`"Thursday 9am EST - 2x avg engagement"`)
	for _, be := range testdb.Backends() {
		b.Run(be.Name+"/Remember", func(b *testing.B) {
			svc := rules.New(be.Open(b))
			for i := 0; b.Loop(); i++ {
				if _, err := svc.Remember(ctx, "writer", fmt.Sprint("key-", i), value); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run(be.Name+"/RememberSameKey", func(b *testing.B) {
			svc := rules.New(be.Open(b))
			for b.Loop() {
				if _, err := svc.Remember(ctx, "writer", "tone", value); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run(be.Name+"/RememberParallel", func(b *testing.B) {
			svc := rules.New(be.Open(b))
			var n atomic.Int64
			b.RunParallel(func(pb *testing.PB) {
				for pb.Next() {
					if _, err := svc.Remember(ctx, "writer", fmt.Sprint("key-", n.Add(1)), value); err != nil {
						b.Error(err)
						return
					}
				}
			})
		})
		b.Run(be.Name+"/Recall", func(b *testing.B) {
			svc := rules.New(be.Open(b))
			for i := range 100 {
				if _, err := svc.Remember(ctx, "writer", fmt.Sprint("key-", i), value); err != nil {
					b.Fatal(err)
				}
			}
			for i := 0; b.Loop(); i++ {
				if _, err := svc.Recall(ctx, "writer", fmt.Sprint("key-", i%100)); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
