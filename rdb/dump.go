package rdb

import (
	"bytes"
	"encoding/binary"
	"errors"
)

// DUMP / RESTORE payloads (cluster.c createDumpPayload, verifyDumpPayload):
// the object's type byte and body, the RDB version as 2 bytes little
// endian, and the CRC64 of everything before it, little endian.

// ErrPayloadFooter is a payload whose version is newer than Version or
// whose checksum does not match: RESTORE's "DUMP payload version or
// checksum are wrong".
var ErrPayloadFooter = errors.New("DUMP payload version or checksum are wrong")

// ErrBadFormat is a payload whose object does not parse: RESTORE's "Bad
// data format".
var ErrBadFormat = errors.New("Bad data format")

// AppendFooter appends the version and checksum that end a payload whose
// body is b.
func AppendFooter(b []byte) []byte {
	b = binary.LittleEndian.AppendUint16(b, Version)
	return binary.LittleEndian.AppendUint64(b, CRC64(0, b))
}

// DumpPayload returns DUMP's payload for v.
func DumpPayload(v *Value, o *Options) []byte {
	return AppendFooter(AppendObject(nil, v, o))
}

// VerifyFooter checks a payload's version and checksum and returns the
// body. Redis 7.0 checks the checksum even when it is zero (later versions
// skip a zero one).
func VerifyFooter(p []byte) ([]byte, error) {
	if len(p) < 10 {
		return nil, ErrPayloadFooter
	}
	footer := p[len(p)-10:]
	if binary.LittleEndian.Uint16(footer) > Version {
		return nil, ErrPayloadFooter
	}
	if binary.LittleEndian.Uint64(footer[2:]) != CRC64(0, p[:len(p)-8]) {
		return nil, ErrPayloadFooter
	}
	return p[:len(p)-10], nil
}

// ParsePayload checks a RESTORE payload and decodes its object. deep is
// sanitize-dump-payload's deep check (duplicates inside compact blobs).
// Errors are ErrPayloadFooter or ErrBadFormat. As in Redis, the object is
// read from the whole payload (a truncated object may read into the
// footer) and bytes after it are ignored.
func ParsePayload(p []byte, deep bool) (*Value, error) {
	if _, err := VerifyFooter(p); err != nil {
		return nil, err
	}
	d := newDecoder(bytes.NewReader(p), int64(len(p)))
	d.noCRC, d.deep = true, deep
	t, err := d.readByte()
	if err != nil || !isObjectType(t) {
		return nil, ErrBadFormat
	}
	v, err := d.readObject(t)
	if err != nil {
		return nil, ErrBadFormat
	}
	return v, nil
}

// isObjectType is rdbIsObjectType for the types Redis 7.0 loads (module
// types excluded).
func isObjectType(t byte) bool {
	return t <= TypeZSet2 || (t >= TypeHashZipmap && t <= TypeStreamListpack2)
}
