//go:build linux && race

package poll

import "syscall"

// Under the race detector the event loop uses syscall.Read and
// syscall.Write, which tell the detector that I/O orders memory accesses
// (a test that sets a variable and then sends a command to the server is
// ordered before the command runs); the raw system calls of rawio_linux.go
// would hide that.
func Read(fd int, b []byte) (int, error) { return syscall.Read(fd, b) }

func Write(fd int, b []byte) (int, error) { return syscall.Write(fd, b) }
