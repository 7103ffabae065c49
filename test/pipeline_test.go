package test

import (
	"bytes"
	"strconv"
	"strings"
	"testing"

	"github.com/miniwatchd/miniwatchd/internal/resptest"
)

// TestPipelinedBatch sends thousands of commands (multibulk and inline
// mixed, with a few large values) in one write and compares every reply.
func TestPipelinedBatch(t *testing.T) {
	p := newDiffPair(t)
	var req bytes.Buffer
	n := 0
	for i := 0; i < 3000; i++ {
		k := "p:" + strconv.Itoa(i%50)
		switch i % 6 {
		case 0:
			req.Write(resptest.Command([]string{"SET", k, strconv.Itoa(i)}...))
		case 1:
			req.Write(resptest.Command([]string{"INCR", k}...))
		case 2:
			req.WriteString("GET " + k + "\r\n")
		case 3:
			req.Write(resptest.Command([]string{"APPEND", k, "x"}...))
		case 4:
			req.Write(resptest.Command([]string{"SET", "big:" + strconv.Itoa(i%3), strings.Repeat("v", 100000+i)}...))
		case 5:
			req.WriteString("STRLEN big:" + strconv.Itoa(i%3) + "\r\n")
		}
		n++
	}
	a := p.Conn("A")
	a.SendRaw(req.Bytes())
	for i := 0; i < n; i++ {
		a.Read(cmpExact)
	}
	a.Do("DBSIZE")
}
