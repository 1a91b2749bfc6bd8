//go:build linux

package main

import (
	"bufio"
	"os"
	"strconv"
	"strings"
	"syscall"
)

// releaseStartupPages drops this process's mappings of its own
// executable's pages (code and read-only data) once it has started: the
// kernel maps a file's pages in blocks around each one touched (fault
// around), and startup touches code a server never runs again (flag
// parsing, migrations, schema checks, embedded assets), so a server kept
// about 20 MB of its binary resident. Pages are mapped again, from the
// page cache, as they are touched; nothing is lost. Errors are ignored:
// this only trims resident memory.
func releaseStartupPages() {
	exe, err := os.Executable()
	if err != nil {
		return
	}
	f, err := os.Open("/proc/self/maps")
	if err != nil {
		return
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		// start-end perms offset dev inode path
		fields := strings.Fields(sc.Text())
		if len(fields) < 6 || fields[5] != exe || strings.Contains(fields[1], "w") {
			continue
		}
		lo, hi, ok := strings.Cut(fields[0], "-")
		if !ok {
			continue
		}
		start, err1 := strconv.ParseUint(lo, 16, 64)
		end, err2 := strconv.ParseUint(hi, 16, 64)
		if err1 != nil || err2 != nil || end <= start {
			continue
		}
		// The range is not Go memory: madvise by address.
		syscall.Syscall(syscall.SYS_MADVISE, uintptr(start), uintptr(end-start), syscall.MADV_DONTNEED)
	}
}
