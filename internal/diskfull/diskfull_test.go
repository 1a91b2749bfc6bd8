package diskfull

import (
	"testing"
	"time"
)

func TestFull(t *testing.T) {
	t0 := time.Now()
	at := func(d time.Duration) int64 { return t0.Add(d).UnixNano() }
	tests := []struct {
		name              string
		failed, succeeded int64
		now               time.Duration
		want              bool
	}{
		{"NeverFailed", 0, at(0), 0, false},
		{"FailedNoWriteSince", at(0), 0, 10 * time.Second, true},
		{"FailedAfterSuccess", at(0), at(-time.Second), 10 * time.Second, true},
		{"SmallWriteRightAfter", at(0), at(100 * time.Millisecond), time.Second, true},
		{"WriteSucceededSettled", at(0), at(100 * time.Millisecond), Settle, false},
		{"FailedLongAgo", at(0), 0, ReportFor + time.Second, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var s State
			s.failedAt.Store(tt.failed)
			s.succeedAt.Store(tt.succeeded)
			if got := s.full(t0.Add(tt.now)); got != tt.want {
				t.Errorf("full = %v, want %v", got, tt.want)
			}
		})
	}
}
