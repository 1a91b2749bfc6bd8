// Package diskfull tells a backend's Ping whether writes fail for a full
// disk, from what its writes met: the one rule both backends follow.
package diskfull

import (
	"sync/atomic"
	"time"
)

// ReportFor is the longest a full disk is reported after a write failed
// for one, when no write tells otherwise.
const ReportFor = time.Minute

// Settle is how long after a write failed for a full disk a write that
// succeeds is not yet taken as the disk having room: small writes (an
// audit batch) may fit where the next record will not.
const Settle = 2 * time.Second

// State records the outcomes of writes. The zero State reports no full
// disk.
type State struct {
	failedAt  atomic.Int64 // Unix nanoseconds of the last write that failed for a full disk
	succeedAt atomic.Int64 // of the last write that succeeded
}

// Failed records that a write failed for a full disk.
func (s *State) Failed() { s.failedAt.Store(time.Now().UnixNano()) }

// Succeeded records that a write committed.
func (s *State) Succeeded() { s.succeedAt.Store(time.Now().UnixNano()) }

// Full reports whether writes are taken to fail for a full disk: a write
// failed for one within ReportFor, and no write has succeeded since that
// is at least Settle after the failure.
func (s *State) Full() bool { return s.full(time.Now()) }

func (s *State) full(now time.Time) bool {
	failed := s.failedAt.Load()
	if failed == 0 || now.Sub(time.Unix(0, failed)) > ReportFor {
		return false
	}
	succeeded := s.succeedAt.Load()
	return succeeded <= failed || now.Sub(time.Unix(0, failed)) < Settle
}
