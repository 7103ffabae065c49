//go:build linux && !race

package poll

import (
	"syscall"
	"unsafe"
)

// Read and Write are read(2) and write(2) on a non-blocking socket
// without telling the Go scheduler a system call is under way: they never
// block, and entersyscall/exitsyscall around each would hand the event
// loop's processor to a spinning thread hundreds of thousands of times a
// second.
func Read(fd int, b []byte) (int, error) {
	if len(b) == 0 {
		return 0, nil
	}
	n, _, errno := syscall.RawSyscall(syscall.SYS_READ, uintptr(fd), uintptr(unsafe.Pointer(&b[0])), uintptr(len(b)))
	if errno != 0 {
		return 0, errno
	}
	return int(n), nil
}

func Write(fd int, b []byte) (int, error) {
	if len(b) == 0 {
		return 0, nil
	}
	n, _, errno := syscall.RawSyscall(syscall.SYS_WRITE, uintptr(fd), uintptr(unsafe.Pointer(&b[0])), uintptr(len(b)))
	if errno != 0 {
		return 0, errno
	}
	return int(n), nil
}
