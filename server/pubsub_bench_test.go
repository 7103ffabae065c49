package server

import (
	"bufio"
	"io"
	"net"
	"strings"
	"sync"
	"testing"
)

// BenchmarkPublishFanout100 measures PUBLISH to 100 subscribers that read
// everything, pipelined 100 commands per round trip: the cost of one
// message (encoding once, appending to 100 output buffers, waking their
// writers) with delivery included.
func BenchmarkPublishFanout100(b *testing.B) {
	s := startPSServer(b, nil)
	var wg sync.WaitGroup
	for i := 0; i < 100; i++ {
		c, err := net.Dial("tcp", s.Addr().String())
		if err != nil {
			b.Fatal(err)
		}
		defer c.Close()
		c.Write([]byte("*2\r\n$9\r\nSUBSCRIBE\r\n$2\r\nch\r\n"))
		r := bufio.NewReader(c)
		if _, err := r.ReadString('\n'); err != nil {
			b.Fatal(err)
		}
		wg.Add(1)
		go func() { defer wg.Done(); io.Copy(io.Discard, r) }()
	}
	pub, err := net.Dial("tcp", s.Addr().String())
	if err != nil {
		b.Fatal(err)
	}
	defer pub.Close()
	cmd := "*3\r\n$7\r\nPUBLISH\r\n$2\r\nch\r\n$64\r\n" + strings.Repeat("x", 64) + "\r\n"
	batch := []byte(strings.Repeat(cmd, 100))
	r := bufio.NewReader(pub)
	b.ResetTimer()
	for i := 0; i < b.N; i += 100 {
		pub.Write(batch)
		for j := 0; j < 100; j++ {
			if _, err := r.ReadString('\n'); err != nil {
				b.Fatal(err)
			}
		}
	}
	b.StopTimer()
}
