package aof

import (
	"bufio"
	"io"
	"os"
)

// ScanFile reads the AOF file at path (a base or an incremental file) and
// calls fn for each command, in order, with the byte offsets where the
// command starts and ends. A file in RDB format (a base written by
// redis-server with aof-use-rdb-preamble yes) is decoded into commands
// first (those commands are reported with offsets 0, 0); any commands after
// it are read as well, as Redis reads an old-style preamble AOF.
//
// It returns the file's size. Problems in the file are *TruncatedError
// (the last command is incomplete), *FormatError or *RDBError; an error
// returned by fn stops the scan and is returned as is.
func ScanFile(path string, fn func(args [][]byte, start, end int64) error) (int64, error) {
	return ScanFileRDB(path, nil, fn)
}

// RDBLoader reads an RDB stream of size bytes (-1 if unknown) from br up to
// and including its checksum, and returns the bytes it consumed.
type RDBLoader func(br *bufio.Reader, size int64) (int64, error)

// ScanFileRDB is ScanFile with the RDB part of the file (an RDB base, or
// the preamble of an old-style AOF) given to load instead of being turned
// into commands; nil load turns it into commands.
func ScanFileRDB(path string, load RDBLoader, fn func(args [][]byte, start, end int64) error) (int64, error) {
	f, err := os.Open(path)
	if err != nil {
		return 0, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return 0, err
	}
	size := fi.Size()
	return size, scan(f, size, load, fn)
}

// Scan is ScanFile over r, which holds size bytes (-1 if unknown).
func Scan(r io.Reader, size int64, fn func(args [][]byte, start, end int64) error) error {
	return scan(r, size, nil, fn)
}

func scan(r io.Reader, size int64, load RDBLoader, fn func(args [][]byte, start, end int64) error) error {
	br := bufio.NewReaderSize(r, 64<<10)
	var off int64
	if head, _ := br.Peek(5); IsRDB(head) {
		if load == nil {
			load = func(br *bufio.Reader, size int64) (int64, error) {
				return decodeRDB(br, size, func(args [][]byte) error { return fn(args, 0, 0) })
			}
		}
		n, err := load(br, size)
		if err != nil {
			return err
		}
		off = n
	}
	rd := newReaderAt(br, off, size)
	for {
		start := rd.Offset()
		args, err := rd.Next()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
		if err := fn(args, start, rd.Offset()); err != nil {
			return err
		}
	}
}
