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

// VerifyFooter checks a payload's version and checksum (a zero checksum
// is not checked, as Redis does) and returns the body.
func VerifyFooter(p []byte) ([]byte, error) {
	if len(p) < 10 {
		return nil, ErrPayloadFooter
	}
	footer := p[len(p)-10:]
	if binary.LittleEndian.Uint16(footer) > Version {
		return nil, ErrPayloadFooter
	}
	if sum := binary.LittleEndian.Uint64(footer[2:]); sum != 0 && sum != CRC64(0, p[:len(p)-8]) {
		return nil, ErrPayloadFooter
	}
	return p[:len(p)-10], nil
}

// ParsePayload checks a RESTORE payload and decodes its object. deep is
// sanitize-dump-payload's deep check (duplicates inside compact blobs).
// Errors are ErrPayloadFooter or ErrBadFormat. Bytes after the object are
// ignored, as Redis ignores them.
func ParsePayload(p []byte, deep bool) (*Value, error) {
	body, err := VerifyFooter(p)
	if err != nil {
		return nil, err
	}
	d := newDecoder(bytes.NewReader(body), int64(len(body)))
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
