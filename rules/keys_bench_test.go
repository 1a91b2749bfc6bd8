package rules_test

import (
	"context"
	"testing"

	"github.com/loci-memory/loci"
	"github.com/loci-memory/loci/internal/testdb"
	"github.com/loci-memory/loci/rules"
)

// BenchmarkAuthenticate measures the key lookup every authenticated
// request makes, among 100 keys, on each backend configured:
//
//	go test -run '^$' -bench Authenticate ./rules/
func BenchmarkAuthenticate(b *testing.B) {
	for _, be := range testdb.Backends() {
		b.Run(be.Name, func(b *testing.B) {
			svc := rules.New(be.Open(b))
			ctx := context.Background()
			var secret string
			for range 100 {
				_, s, err := svc.CreateKey(ctx, loci.KeySpec{Role: loci.RoleViewer})
				if err != nil {
					b.Fatal(err)
				}
				secret = s
			}
			for b.Loop() {
				if _, err := svc.Authenticate(ctx, secret); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
