package rules

import (
	"time"

	"github.com/loci-memory/loci"
)

// retention holds how long working memory and episodes are kept and how
// much of them: the configurable numbers, a zero field meaning the
// default of the loci package.
type retention struct {
	workingTTL   time.Duration
	workingLimit int
	episodeTTL   time.Duration
	episodeCap   int
}

// WithWorkingTTL sets how long a working-memory entry lives after its last
// write (default loci.DefaultWorkingTTL).
func WithWorkingTTL(d time.Duration) Option { return func(s *Service) { s.keep.workingTTL = d } }

// WithWorkingTaskLimit sets the most bytes one task's working values may
// total (default loci.MaxWorkingTaskBytes).
func WithWorkingTaskLimit(n int) Option { return func(s *Service) { s.keep.workingLimit = n } }

// WithEpisodeTTL sets how long an episode lives after its creation
// (default loci.DefaultEpisodeTTL).
func WithEpisodeTTL(d time.Duration) Option { return func(s *Service) { s.keep.episodeTTL = d } }

// WithEpisodeCap sets how many episodes one user+agent keeps (default
// loci.DefaultEpisodeCap).
func WithEpisodeCap(n int) Option { return func(s *Service) { s.keep.episodeCap = n } }

func (l retention) workingTTLOr() time.Duration {
	if l.workingTTL > 0 {
		return l.workingTTL
	}
	return loci.DefaultWorkingTTL
}

func (l retention) workingLimitOr() int {
	if l.workingLimit > 0 {
		return l.workingLimit
	}
	return loci.MaxWorkingTaskBytes
}

func (l retention) episodeTTLOr() time.Duration {
	if l.episodeTTL > 0 {
		return l.episodeTTL
	}
	return loci.DefaultEpisodeTTL
}

func (l retention) episodeCapOr() int {
	if l.episodeCap > 0 {
		return l.episodeCap
	}
	return loci.DefaultEpisodeCap
}
