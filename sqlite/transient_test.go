package sqlite

import (
	"testing"

	sqlite3 "modernc.org/sqlite/lib"
)

func TestIsBusy(t *testing.T) {
	tests := []struct {
		code int
		want bool
	}{
		{sqlite3.SQLITE_BUSY, true},
		{sqlite3.SQLITE_BUSY_SNAPSHOT, true},
		{sqlite3.SQLITE_LOCKED, true},
		{sqlite3.SQLITE_LOCKED_SHAREDCACHE, true},
		{sqlite3.SQLITE_CONSTRAINT_UNIQUE, false},
		{sqlite3.SQLITE_IOERR, false},
	}
	for _, tt := range tests {
		if got := isBusy(tt.code); got != tt.want {
			t.Errorf("isBusy(%d) = %v, want %v", tt.code, got, tt.want)
		}
	}
}
