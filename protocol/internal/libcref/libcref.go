//go:build cgo && linux && amd64

// Package libcref calls glibc's strtod and strtold, for the protocol
// package's fuzz targets to compare Redis's number parsing with the C
// library Redis itself calls (util.c string2d, string2ld). It is imported
// only by tests; without cgo (or off x86-64 Linux, where long double is
// not the x87 format) Available is false and the targets compare with
// their Go models only.
package libcref

/*
#include <errno.h>
#include <stdlib.h>
#include <string.h>

static double ref_strtod(const char *s, size_t *end, int *erange) {
	char *e;
	errno = 0;
	double v = strtod(s, &e);
	*erange = errno == ERANGE;
	*end = (size_t)(e - s);
	return v;
}

static void ref_strtold(const char *s, size_t *end, int *erange, unsigned short *se, unsigned long long *mant) {
	char *e;
	errno = 0;
	long double v = strtold(s, &e);
	*erange = errno == ERANGE;
	*end = (size_t)(e - s);
	memcpy(mant, &v, 8);
	memcpy(se, (char *)&v + 8, 2);
}
*/
import "C"

import "unsafe"

// Available reports whether the functions below call glibc.
const Available = true

// Strtod is strtod(b, &end) over b as a C string (b is copied and a NUL
// appended, so b ends at its first NUL byte as C sees it). end is the
// offset of the end pointer; erange is errno == ERANGE.
func Strtod(b []byte) (v float64, end int, erange bool) {
	cs := C.CString(string(b))
	defer C.free(unsafe.Pointer(cs))
	var e C.size_t
	var r C.int
	v = float64(C.ref_strtod(cs, &e, &r))
	return v, int(e), r != 0
}

// Strtold is strtold over b as a C string; the result is returned as the
// x87 extended format's sign-and-exponent word and 64-bit mantissa.
func Strtold(b []byte) (se uint16, mant uint64, end int, erange bool) {
	cs := C.CString(string(b))
	defer C.free(unsafe.Pointer(cs))
	var e C.size_t
	var r C.int
	var cse C.ushort
	var cm C.ulonglong
	C.ref_strtold(cs, &e, &r, &cse, &cm)
	return uint16(cse), uint64(cm), int(e), r != 0
}
