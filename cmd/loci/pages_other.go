//go:build !linux

package main

// releaseStartupPages does nothing outside Linux (see pages_linux.go).
func releaseStartupPages() {}
