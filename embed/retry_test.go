package embed

import (
	"errors"
	"fmt"
	"net/http"
	"testing"
	"time"
)

func TestRetryAfter(t *testing.T) {
	now := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	tests := []struct {
		name, header string
		want         time.Duration
	}{
		{"Absent", "", 0},
		{"Seconds", "7", 7 * time.Second},
		{"Date", now.Add(20 * time.Second).Format(http.TimeFormat), 20 * time.Second},
		{"DatePast", now.Add(-time.Hour).Format(http.TimeFormat), 0},
		{"Capped", "86400", maxRetryAfter},
		{"Negative", "-5", 0},
		{"Garbage", "soon", 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := retryAfter(tt.header, now); got != tt.want {
				t.Errorf("retryAfter(%q) = %v, want %v", tt.header, got, tt.want)
			}
		})
	}
}

func TestNextWait(t *testing.T) {
	plain := errors.New("status 503")
	tests := []struct {
		name    string
		backoff time.Duration
		err     error
		want    time.Duration
	}{
		{"Backoff", time.Second, plain, time.Second},
		{"ServerAsksLonger", time.Second, errRetryAfter{plain, 5 * time.Second}, 5 * time.Second},
		{"ServerAsksShorter", 4 * time.Second, errRetryAfter{plain, time.Second}, 4 * time.Second},
		{"Wrapped", time.Second, fmt.Errorf("embed: %w", errRetryAfter{plain, 3 * time.Second}), 3 * time.Second},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := nextWait(tt.backoff, tt.err); got != tt.want {
				t.Errorf("nextWait = %v, want %v", got, tt.want)
			}
		})
	}
}
