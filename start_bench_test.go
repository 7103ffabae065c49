package miniwatchd_test

import (
	"bufio"
	"net"
	"testing"

	"github.com/miniwatchd/miniwatchd"
)

// BenchmarkRunStart is the start of an embedded server as a test sees it:
// Run, then a PING over TCP answered (issue #25's target: under 5 ms);
// Close is not timed. cmd/startbench -mode embed reports the median of
// single starts for bench/targets.sh.
func BenchmarkRunStart(b *testing.B) {
	for b.Loop() {
		s := miniwatchd.Run(b)
		conn, err := net.Dial("tcp", s.Addr())
		if err != nil {
			b.Fatal(err)
		}
		conn.Write([]byte("*1\r\n$4\r\nPING\r\n"))
		line, err := bufio.NewReader(conn).ReadString('\n')
		if err != nil || line != "+PONG\r\n" {
			b.Fatalf("PING: %q, %v", line, err)
		}
		conn.Close()
		b.StopTimer()
		s.Close()
		b.StartTimer()
	}
}
