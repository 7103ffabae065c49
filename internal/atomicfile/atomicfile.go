// Package atomicfile finishes the write-to-a-temporary-file-then-rename
// pattern every file the server replaces uses (dump.rdb, the AOF base,
// redis.conf on CONFIG REWRITE, a replica's snapshot): the file at path is
// either the old one or the complete new one, never a part.
package atomicfile

import "os"

// Commit finishes the temporary file f (named tmp) that a caller has
// written, with writeErr the error of that writing: unless writeErr is set
// it syncs f to disk, then closes f in every case, and renames tmp to path.
// On any error tmp is removed and the first error is returned; f is closed
// either way.
func Commit(f *os.File, tmp, path string, writeErr error) error {
	err := writeErr
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp, path)
	}
	if err != nil {
		os.Remove(tmp)
	}
	return err
}

// Write replaces path by a file holding data, written to tmp first.
func Write(tmp, path string, data []byte, perm os.FileMode) error {
	f, err := os.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, perm)
	if err != nil {
		return err
	}
	_, err = f.Write(data)
	return Commit(f, tmp, path, err)
}
