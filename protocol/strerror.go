package protocol

import (
	"errors"
	"syscall"
)

// Strerror renders err as glibc's strerror does ("No such file or
// directory"), for the error texts Redis builds with strerror(errno): Go's
// errno texts are glibc's with a lower-case initial. An error that is not
// a syscall.Errno gives its own text.
func Strerror(err error) string {
	var errno syscall.Errno
	if !errors.As(err, &errno) {
		return err.Error()
	}
	s := errno.Error()
	if s != "" && s[0] >= 'a' && s[0] <= 'z' {
		s = string(s[0]-'a'+'A') + s[1:]
	}
	return s
}
