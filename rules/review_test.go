package rules_test

import (
	"context"
	"fmt"
	"sync"
	"testing"

	"github.com/loci-memory/loci"
	"github.com/loci-memory/loci/internal/testdb"
	"github.com/loci-memory/loci/rules"
)

// TestFirstWritesOfNewAgentConcurrently: the first writes for an agent
// that does not exist yet (blocks of different labels, a passage) create
// it on the fly; run at once (on PostgreSQL, in parallel transactions),
// none may fail because another created the agent first.
func TestFirstWritesOfNewAgentConcurrently(t *testing.T) {
	testdb.Each(t, func(t *testing.T, open func(testing.TB) loci.Store) {
		svc := rules.New(open(t))
		ctx := context.Background()
		for round := range 5 {
			agent := fmt.Sprintf("new-%d", round)
			var wg sync.WaitGroup
			errs := make(chan error, 8)
			for i := range 6 {
				wg.Add(1)
				go func() {
					defer wg.Done()
					var err error
					if i%3 == 2 {
						_, err = svc.AddPassage(ctx, agent, fmt.Sprintf("passage %d", i), nil)
					} else {
						_, _, err = svc.SetBlock(ctx, agent, fmt.Sprintf("label%d", i), loci.BlockWrite{Content: "c"})
					}
					if err != nil {
						errs <- fmt.Errorf("writer %d: %w", i, err)
					}
				}()
			}
			wg.Wait()
			close(errs)
			for err := range errs {
				t.Errorf("agent %s: %v", agent, err)
			}
		}
	})
}
