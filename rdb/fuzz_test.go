package rdb

import (
	"bytes"
	"testing"
)

// Fuzz targets for the two decoders of outside bytes. The seed corpus is
// real redis-server 7.0.15 DUMP payloads (streams with groups included), each also truncated and with a
// bit flipped. FuzzRestore fuzzes the payload's body and appends a valid
// footer, so mutations reach the decoder instead of failing the checksum.
// CI runs them bounded: go test ./rdb -run '^$' -fuzz FuzzRestore -fuzztime 30s.

func seedPayloads() [][]byte {
	var out [][]byte
	dumps := redisStreamPayloads
	for _, tc := range redisPayloads {
		dumps = append(dumps, tc.dump)
	}
	for _, dump := range dumps {
		p := []byte(dump)
		body := p[:len(p)-10]
		out = append(out, body)
		for _, cut := range []int{1, len(body) / 2, len(body) - 1} {
			out = append(out, body[:cut])
		}
		for _, i := range []int{1, len(body) / 2, len(body) - 1} {
			flipped := append([]byte(nil), body...)
			flipped[i] ^= 0x10
			out = append(out, flipped)
		}
	}
	return out
}

func FuzzRestore(f *testing.F) {
	for _, p := range seedPayloads() {
		f.Add(p)
	}
	o := DefaultOptions()
	f.Fuzz(func(t *testing.T, body []byte) {
		_, _ = ParsePayload(body, false) // as sent, footer and all
		p := AppendFooter(append([]byte(nil), body...))
		for _, deep := range []bool{false, true} {
			v, err := ParsePayload(p, deep)
			if err != nil {
				continue
			}
			if v.Kind == KindZSet {
				sortZSet(v)
			}
			again, err := ParsePayload(DumpPayload(v, &o), deep)
			if err != nil {
				t.Fatalf("re-encoded value does not parse: %v", err)
			}
			if again.Kind != v.Kind {
				t.Fatalf("kind %d became %d", v.Kind, again.Kind)
			}
		}
	})
}

// seedFile is a small RDB file with every kind of value.
func seedFile() []byte {
	var buf bytes.Buffer
	w := NewWriter(&buf, DefaultOptions(), true)
	w.Aux("redis-ver", "7.0.15")
	w.Aux("redis-bits", "64")
	w.Function("#!lua name=l\nredis.register_function('f', function() return 1 end)")
	w.SelectDB(0, len(redisPayloads)+len(redisStreamPayloads), 1)
	for i, tc := range redisPayloads {
		m := NoMeta
		if i == 0 {
			m.ExpireAt = 1 << 45
		}
		w.Key(tc.name, tc.v, m)
	}
	for i, p := range redisStreamPayloads {
		v, err := ParsePayload([]byte(p), true)
		if err != nil {
			panic(err)
		}
		w.Key("stream"+string(rune('0'+i)), v, NoMeta)
	}
	w.Close()
	return buf.Bytes()
}

func FuzzLoad(f *testing.F) {
	file := seedFile()
	f.Add(file)
	for _, cut := range []int{9, len(file) / 3, len(file) / 2, len(file) - 1} {
		f.Add(file[:cut])
	}
	for _, i := range []int{10, len(file) / 3, len(file) / 2, len(file) - 9} {
		flipped := append([]byte(nil), file...)
		flipped[i] ^= 0x04
		f.Add(flipped)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		h := &Handler{Key: func(int, []byte, *Value, KeyMeta) error { return nil }}
		_, _ = Load(bytes.NewReader(data), int64(len(data)), h, LoadOptions{})
		_, _ = Load(bytes.NewReader(data), -1, h, LoadOptions{Deep: true})
	})
}

func TestSeedFileLoads(t *testing.T) {
	file := seedFile()
	n := 0
	h := &Handler{Key: func(db int, k []byte, v *Value, m KeyMeta) error { n++; return nil }}
	if _, err := Load(bytes.NewReader(file), int64(len(file)), h, LoadOptions{Deep: true}); err != nil || n != len(redisPayloads)+len(redisStreamPayloads) {
		t.Fatalf("%d keys, %v", n, err)
	}
}
