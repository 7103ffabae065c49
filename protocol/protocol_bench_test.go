package protocol

import (
	"bytes"
	"strconv"
	"testing"
)

// Hot-path benchmarks of request parsing and reply writing. Each reports
// allocations; run with
//
//	go test ./protocol -run '^$' -bench . -benchmem
//
// The parse benchmarks time Fill (one read of a whole batch, as a socket
// read returns it) plus Next for every command of the batch; ns/op is per
// command.

// repeatReader returns the same batch on every Read.
type repeatReader struct{ batch []byte }

func (r *repeatReader) Read(p []byte) (int, error) { return copy(p, r.batch), nil }

// requestBatch encodes n copies of the command args as a client sends them.
func requestBatch(n int, args ...string) []byte {
	var w Writer
	for range n {
		w.Array(len(args))
		for _, a := range args {
			w.BulkString(a)
		}
	}
	return w.Buf
}

func benchParse(b *testing.B, perBatch int, args ...string) {
	r := &repeatReader{batch: requestBatch(perBatch, args...)}
	var p Parser
	b.ReportAllocs()
	b.SetBytes(int64(len(r.batch) / perBatch))
	b.ResetTimer()
	for i := 0; i < b.N; i += perBatch {
		if _, err := p.Fill(r); err != nil {
			b.Fatal(err)
		}
		for range perBatch {
			got, ok, err := p.Next()
			if !ok || err != nil || len(got) != len(args) {
				b.Fatalf("Next = %d args, %v, %v", len(got), ok, err)
			}
		}
	}
}

// BenchmarkParseGet is one GET per read: redis-benchmark -P 1.
func BenchmarkParseGet(b *testing.B) { benchParse(b, 1, "GET", "key:000000012345") }

// BenchmarkParseSet is one SET per read.
func BenchmarkParseSet(b *testing.B) { benchParse(b, 1, "SET", "key:000000012345", "xxx") }

// BenchmarkParseSetPipelined16 is sixteen SETs per read: -P 16.
func BenchmarkParseSetPipelined16(b *testing.B) {
	benchParse(b, 16, "SET", "key:000000012345", "xxx")
}

// BenchmarkParseMSet10 is redis-benchmark's MSET of ten keys.
func BenchmarkParseMSet10(b *testing.B) {
	args := []string{"MSET"}
	for i := range 10 {
		args = append(args, "key:00000001234"+strconv.Itoa(i), "xxx")
	}
	benchParse(b, 1, args...)
}

// BenchmarkParseSetLargeValue is a SET of a 4KB value.
func BenchmarkParseSetLargeValue(b *testing.B) {
	benchParse(b, 1, "SET", "key:000000012345", string(bytes.Repeat([]byte("v"), 4096)))
}

// BenchmarkParseInline is the inline form redis-benchmark uses for PING_INLINE.
func BenchmarkParseInline(b *testing.B) {
	r := &repeatReader{batch: []byte("PING\r\n")}
	var p Parser
	b.ReportAllocs()
	for b.Loop() {
		if _, err := p.Fill(r); err != nil {
			b.Fatal(err)
		}
		if got, ok, err := p.Next(); !ok || err != nil || len(got) != 1 {
			b.Fatalf("Next = %q, %v, %v", got, ok, err)
		}
	}
}

// The writer benchmarks append one reply to a buffer that is reset every
// 1024 replies, as a connection's reply buffer is reused batch after batch.
func benchWrite(b *testing.B, proto int, write func(w *Writer)) {
	w := Writer{Proto: proto}
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		write(&w)
		if i++; i&1023 == 0 {
			w.Reset()
		}
	}
}

var (
	benchValue   = []byte("xxx")
	benchValue1K = bytes.Repeat([]byte("v"), 1024)
)

func BenchmarkWriteOK(b *testing.B)   { benchWrite(b, 2, func(w *Writer) { w.OK() }) }
func BenchmarkWriteInt(b *testing.B)  { benchWrite(b, 2, func(w *Writer) { w.Int(1234567) }) }
func BenchmarkWriteNull(b *testing.B) { benchWrite(b, 2, func(w *Writer) { w.Null() }) }
func BenchmarkWriteBulk(b *testing.B) { benchWrite(b, 2, func(w *Writer) { w.Bulk(benchValue) }) }

func BenchmarkWriteBulk1K(b *testing.B) {
	benchWrite(b, 2, func(w *Writer) { w.Bulk(benchValue1K) })
}

func BenchmarkWriteError(b *testing.B) {
	benchWrite(b, 2, func(w *Writer) { w.Error(string(ErrWrongType)) })
}

func BenchmarkWriteDouble(b *testing.B) {
	benchWrite(b, 3, func(w *Writer) { w.Double(3.14159) })
}

// BenchmarkWriteExecReply is the reply of a committed EXEC of one SET.
func BenchmarkWriteExecReply(b *testing.B) {
	benchWrite(b, 2, func(w *Writer) { w.Array(1); w.OK() })
}

// BenchmarkWriteArray10 is an MGET of ten keys.
func BenchmarkWriteArray10(b *testing.B) {
	benchWrite(b, 2, func(w *Writer) {
		w.Array(10)
		for range 10 {
			w.Bulk(benchValue)
		}
	})
}

// BenchmarkWriteMapDeferred is a RESP3 map whose length is set afterwards.
func BenchmarkWriteMapDeferred(b *testing.B) {
	benchWrite(b, 3, func(w *Writer) {
		d := w.DeferLen()
		for range 4 {
			w.BulkString("field")
			w.Bulk(benchValue)
		}
		w.SetMapLen(d, 4)
	})
}
