package aof

import (
	"os"
	"syscall"
)

// osFile is an *os.File whose Sync is fdatasync(2), as Redis's redis_fsync
// on Linux: the data and the size, without the other metadata.
type osFile struct{ *os.File }

func (f osFile) Sync() error {
	for {
		err := syscall.Fdatasync(int(f.Fd()))
		if err != syscall.EINTR {
			if err != nil {
				return &os.PathError{Op: "fdatasync", Path: f.Name(), Err: err}
			}
			return nil
		}
	}
}

// OSFile returns f as a File for the log, synced with fdatasync.
func OSFile(f *os.File) File { return osFile{f} }
