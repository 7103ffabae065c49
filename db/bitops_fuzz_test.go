package db

import (
	"bytes"
	"testing"
)

// FuzzBitfieldSetGet writes a field into random bytes and reads it back:
// the value comes back truncated to the field's width (sign-extended when
// signed), and no bit outside the field changes.
func FuzzBitfieldSetGet(f *testing.F) {
	f.Add([]byte{0xff, 0x00, 0xaa}, uint16(3), uint8(5), true, int64(-3))
	f.Add([]byte{}, uint16(0), uint8(64), false, int64(-1))
	f.Add(bytes.Repeat([]byte{0x55}, 20), uint16(100), uint8(63), false, int64(1)<<62)
	f.Fuzz(func(t *testing.T, data []byte, off uint16, width uint8, signed bool, v int64) {
		w := int(width)%64 + 1
		need := (int(off)+w-1)/8 + 1
		p := make([]byte, max(need, len(data)))
		copy(p, data)
		before := append([]byte(nil), p...)
		setUnsignedBits(p, uint64(off), w, uint64(v))
		want := uint64(v)
		if w < 64 {
			want &= 1<<w - 1
		}
		got := BitfieldGet(p, uint64(off), w, signed)
		if signed {
			if w < 64 && want&(1<<(w-1)) != 0 {
				want |= ^uint64(0) << w
			}
		}
		if uint64(got) != want {
			t.Fatalf("width %d at %d: got %#x, want %#x", w, off, uint64(got), want)
		}
		for i := 0; i < len(p)*8; i++ {
			if i >= int(off) && i < int(off)+w {
				continue
			}
			if p[i>>3]>>(7-i&7)&1 != before[i>>3]>>(7-i&7)&1 {
				t.Fatalf("bit %d outside the field changed", i)
			}
		}
	})
}

// FuzzBitCountRange checks BITCOUNT's bit ranges against a bit-by-bit count.
func FuzzBitCountRange(f *testing.F) {
	f.Add([]byte("foobar"), uint16(5), uint16(30))
	f.Add(bytes.Repeat([]byte{0xff}, 70), uint16(3), uint16(555))
	f.Fuzz(func(t *testing.T, p []byte, s, e uint16) {
		if len(p) == 0 {
			return
		}
		n := int64(len(p)) * 8
		start, end := int64(s)%n, int64(e)%n
		want := int64(0)
		for i := start; i <= end; i++ {
			want += int64(p[i>>3] >> (7 - i&7) & 1)
		}
		if got := BitCountRange(p, start, end, true); got != want {
			t.Fatalf("bits %d-%d: %d, want %d", start, end, got, want)
		}
	})
}
