//go:build !(cgo && linux && amd64)

package libcref

// Available reports whether the functions below call glibc: they do not
// in this build, and panic if called.
const Available = false

// Strtod is not available without cgo on x86-64 Linux.
func Strtod(b []byte) (v float64, end int, erange bool) { panic("libcref: no cgo") }

// Strtold is not available without cgo on x86-64 Linux.
func Strtold(b []byte) (se uint16, mant uint64, end int, erange bool) { panic("libcref: no cgo") }
