//go:build !linux

package aof

import "os"

// OSFile returns f as a File for the log (synced with fsync: fdatasync is
// Linux-only).
func OSFile(f *os.File) File { return f }
