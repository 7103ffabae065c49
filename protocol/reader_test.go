package protocol

import (
	"bytes"
	"errors"
	"io"
	"net"
	"os"
	"os/exec"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"time"
)

// mb encodes args as a RESP multibulk request.
func mb(args ...string) string {
	var b strings.Builder
	b.WriteString("*" + strconv.Itoa(len(args)) + "\r\n")
	for _, a := range args {
		b.WriteString("$" + strconv.Itoa(len(a)) + "\r\n" + a + "\r\n")
	}
	return b.String()
}

// parsed is what a Parser made of a stream: the commands (an empty command
// is an empty slice) and the error text, "" for none.
type parsed struct {
	cmds [][]string
	err  string
}

// parseStream runs the Fill/Next loop a server runs until r is exhausted or
// a protocol error stops it.
func parseStream(p *Parser, r io.Reader) parsed {
	var res parsed
	for range 1 << 22 { // bounded: a Reader stuck at (0, nil) cannot hang a test
		_, rerr := p.Fill(r)
		for {
			args, ok, err := p.Next()
			if err != nil {
				res.err = err.Error()
				return res
			}
			if !ok {
				break
			}
			cmd := make([]string, len(args))
			for i, a := range args {
				cmd[i] = string(a)
			}
			res.cmds = append(res.cmds, cmd)
		}
		if rerr != nil {
			return res
		}
	}
	panic("parseStream: reader never ended")
}

// chunkReader hands out at most n bytes per Read.
type chunkReader struct {
	data []byte
	n    int
}

func (r *chunkReader) Read(b []byte) (int, error) {
	if len(r.data) == 0 {
		return 0, io.EOF
	}
	k := min(len(b), r.n, len(r.data))
	copy(b, r.data[:k])
	r.data = r.data[k:]
	return k, nil
}

// partsReader returns one part per Read (cut to the room offered).
type partsReader struct{ parts [][]byte }

func (r *partsReader) Read(b []byte) (int, error) {
	for len(r.parts) > 0 && len(r.parts[0]) == 0 {
		r.parts = r.parts[1:]
	}
	if len(r.parts) == 0 {
		return 0, io.EOF
	}
	k := copy(b, r.parts[0])
	r.parts[0] = r.parts[0][k:]
	return k, nil
}

func cmds(c ...[]string) [][]string { return c }
func cmd(args ...string) []string   { return append([]string{}, args...) }

type parserCase struct {
	name       string
	in         string
	unauth     bool
	maxBulk    int64
	want       [][]string
	err        string
	noBytewise bool // the outcome depends on how the bytes arrive
}

var parserCases = []parserCase{
	// Inline requests.
	{name: "inline crlf", in: "PING\r\n", want: cmds(cmd("PING"))},
	{name: "inline lf", in: "PING\n", want: cmds(cmd("PING"))},
	{name: "inline empty crlf", in: "\r\n", want: cmds(cmd())},
	{name: "inline empty lf", in: "\n", want: cmds(cmd())},
	{name: "inline blanks only", in: " \t\v\f \r\n", want: cmds(cmd())},
	{name: "inline pipeline", in: "SET a b\r\nGET a\nPING\r\n", want: cmds(cmd("SET", "a", "b"), cmd("GET", "a"), cmd("PING"))},
	{name: "inline no newline", in: "PING"},
	{name: "inline cr only", in: "PING\r"},
	{name: "inline only one cr stripped", in: "PING\r\r\n", want: cmds(cmd("PING"))},
	{name: "inline cr separates", in: "a\rb\r\n", want: cmds(cmd("a", "b"))},
	{name: "inline vt inside token", in: "ECHO a\vb\r\n", want: cmds(cmd("ECHO", "a\vb"))},
	{name: "inline double quotes", in: "ECHO \"a b\"\r\n", want: cmds(cmd("ECHO", "a b"))},
	{name: "inline escapes", in: `ECHO "\x41\x4a\n\r\t\b\a\\\"\q"` + "\n", want: cmds(cmd("ECHO", "AJ\n\r\t\b\a\\\"q"))},
	{name: "inline single quotes", in: `ECHO 'it\'s' 'a\nb'` + "\n", want: cmds(cmd("ECHO", "it's", `a\nb`))},
	{name: "inline quote mid token", in: "SET k ab\"c d\"\n", want: cmds(cmd("SET", "k", "abc d"))},
	{name: "inline empty quoted arg", in: "ECHO \"\" ''\n", want: cmds(cmd("ECHO", "", ""))},
	{name: "inline unterminated double", in: "ECHO \"abc\r\n", err: ErrUnbalancedQuotes.Error()},
	{name: "inline unterminated single", in: "ECHO 'abc\n", err: ErrUnbalancedQuotes.Error()},
	{name: "inline closing double then text", in: "ECHO \"a\"b\n", err: ErrUnbalancedQuotes.Error()},
	{name: "inline closing single then text", in: "ECHO 'a'b\n", err: ErrUnbalancedQuotes.Error()},
	{name: "inline commands before bad quotes", in: "PING\r\n" + mb("PING") + "ECHO \"x\n", want: cmds(cmd("PING"), cmd("PING")), err: ErrUnbalancedQuotes.Error()},
	{name: "inline NUL hides newline", in: "PI\x00NG\r\nPING\r\n"},
	{name: "inline NUL first", in: "\x00\nPING\r\n"},
	{name: "inline at 64KB waits", in: strings.Repeat("a", inlineMaxSize)},
	{name: "inline over 64KB", in: strings.Repeat("a", inlineMaxSize+1), err: ErrTooBigInlineRequest.Error()},
	{name: "inline over 64KB after command", in: "PING\r\n" + strings.Repeat("a", inlineMaxSize+1), want: cmds(cmd("PING")), err: ErrTooBigInlineRequest.Error()},
	{name: "inline NUL then over 64KB", in: "a\x00\n" + strings.Repeat("a", inlineMaxSize), err: ErrTooBigInlineRequest.Error()},
	// Redis reads 16KB, then as much as the greedy buffer holds: the newline
	// arrives before the buffer passes 64KB.
	{name: "inline long line", in: "ECHO " + strings.Repeat("a", 70000) + "\n", want: cmds(cmd("ECHO", strings.Repeat("a", 70000))), noBytewise: true},

	// Multibulk requests.
	{name: "multibulk", in: mb("PING"), want: cmds(cmd("PING"))},
	{name: "multibulk pipeline", in: mb("SET", "k", "v") + mb("GET", "k"), want: cmds(cmd("SET", "k", "v"), cmd("GET", "k"))},
	{name: "multibulk binary payload", in: mb("SET", "k\x00", "a\r\nb\x00"), want: cmds(cmd("SET", "k\x00", "a\r\nb\x00"))},
	{name: "multibulk empty arg", in: mb("ECHO", ""), want: cmds(cmd("ECHO", ""))},
	{name: "multibulk zero", in: "*0\r\n", want: cmds(cmd())},
	{name: "multibulk minus one", in: "*-1\r\n", want: cmds(cmd())},
	{name: "multibulk negative", in: "*-5\r\n" + mb("PING"), want: cmds(cmd(), cmd("PING"))},
	{name: "multibulk then inline", in: mb("PING") + "PING\r\n", want: cmds(cmd("PING"), cmd("PING"))},
	{name: "multibulk int max waits", in: "*2147483647\r\n$4\r\nPING\r\n"},
	{name: "multibulk over int max", in: "*2147483648\r\n", err: ErrInvalidMultibulkLength.Error()},
	{name: "multibulk empty count", in: "*\r\n", err: ErrInvalidMultibulkLength.Error()},
	{name: "multibulk plus sign", in: "*+1\r\n", err: ErrInvalidMultibulkLength.Error()},
	{name: "multibulk leading zero", in: "*01\r\n", err: ErrInvalidMultibulkLength.Error()},
	{name: "multibulk minus zero", in: "*-0\r\n", err: ErrInvalidMultibulkLength.Error()},
	{name: "multibulk lone minus", in: "*-\r\n", err: ErrInvalidMultibulkLength.Error()},
	{name: "multibulk trailing junk", in: "*1a\r\n", err: ErrInvalidMultibulkLength.Error()},
	{name: "multibulk space", in: "* 1\r\n", err: ErrInvalidMultibulkLength.Error()},
	{name: "multibulk overflow", in: "*99999999999999999999\r\n", err: ErrInvalidMultibulkLength.Error()},
	{name: "multibulk 21 bytes", in: "*-00000000000000000001\r\n", err: ErrInvalidMultibulkLength.Error()},
	{name: "multibulk count waits for cr", in: "*1"},
	{name: "multibulk count waits after cr", in: "*1\r"},
	{name: "multibulk waits for bulk line", in: "*1\r\n$4"},
	{name: "multibulk waits after bulk cr", in: "*1\r\n$4\r"},
	{name: "multibulk waits for payload", in: "*1\r\n$4\r\nPIN"},
	{name: "multibulk waits for crlf", in: "*1\r\n$4\r\nPING\r"},
	{name: "multibulk second arg waits", in: "*2\r\n$4\r\nECHO\r\n"},
	{name: "multibulk byte after cr unchecked", in: "*1\rX$4\rYPINGZW", want: cmds(cmd("PING"))},
	{name: "multibulk crlf after payload unchecked", in: "*1\r\n$4\r\nPINGxx" + mb("PING"), want: cmds(cmd("PING"), cmd("PING"))},
	{name: "multibulk NUL in count", in: "*1\x00\r\n$4\r\nPING\r\n"},
	{name: "multibulk NUL in bulk length", in: "*1\r\n$4\x00\r\nPING\r\n"},
	{name: "multibulk no cr, no dollar check", in: "*1\r\nx"},
	{name: "expected dollar", in: "*1\r\nx\r\n", err: "Protocol error: expected '$', got 'x'"},
	{name: "expected dollar got cr", in: "*1\r\n\r\n", err: "Protocol error: expected '$', got ' '"},
	{name: "expected dollar got lf", in: "*1\r\n\n\r\n", err: "Protocol error: expected '$', got ' '"},
	{name: "expected dollar got star", in: "*2\r\n$1\r\na\r\n*1\r\n", err: "Protocol error: expected '$', got '*'"},
	{name: "expected dollar got high byte", in: "*1\r\n\xff1\r\n", err: "Protocol error: expected '$', got '\xff'"},
	{name: "bulk negative", in: "*1\r\n$-1\r\n", err: ErrInvalidBulkLength.Error()},
	{name: "bulk plus", in: "*1\r\n$+1\r\n", err: ErrInvalidBulkLength.Error()},
	{name: "bulk leading zero", in: "*1\r\n$01\r\n", err: ErrInvalidBulkLength.Error()},
	{name: "bulk minus zero", in: "*1\r\n$-0\r\n", err: ErrInvalidBulkLength.Error()},
	{name: "bulk empty", in: "*1\r\n$\r\n", err: ErrInvalidBulkLength.Error()},
	{name: "bulk junk", in: "*1\r\n$1x\r\n", err: ErrInvalidBulkLength.Error()},
	{name: "bulk over default max", in: "*1\r\n$536870913\r\n", err: ErrInvalidBulkLength.Error()},
	{name: "bulk at default max waits", in: "*1\r\n$536870912\r\n"},
	{name: "bulk over int64", in: "*1\r\n$9223372036854775808\r\n", err: ErrInvalidBulkLength.Error()},
	{name: "bulk over custom max", in: "*1\r\n$1048577\r\n", maxBulk: 1 << 20, err: ErrInvalidBulkLength.Error()},
	{name: "bulk at custom max waits", in: "*1\r\n$1048576\r\n", maxBulk: 1 << 20},
	{name: "error after good commands", in: mb("PING") + "PING\r\n*1\r\n$x\r\n" + mb("PING"), want: cmds(cmd("PING"), cmd("PING")), err: ErrInvalidBulkLength.Error()},
	{name: "error mid command", in: "*3\r\n$3\r\nSET\r\n$1\r\nk\r\n$-2\r\n", err: ErrInvalidBulkLength.Error()},
	{name: "count at 64KB waits", in: "*" + strings.Repeat("1", inlineMaxSize-1)},
	{name: "count over 64KB", in: "*" + strings.Repeat("1", inlineMaxSize), err: ErrTooBigMultibulkCount.Error()},
	{name: "count NUL then over 64KB", in: "*1\x00\r\n" + strings.Repeat("1", inlineMaxSize), err: ErrTooBigMultibulkCount.Error()},
	{name: "bulk length at 64KB waits", in: "*1\r\n$" + strings.Repeat("1", inlineMaxSize-1)},
	{name: "bulk length over 64KB", in: "*1\r\n$" + strings.Repeat("1", inlineMaxSize), err: ErrTooBigBulkCount.Error()},
	{name: "bulk length over 64KB mid command", in: "*2\r\n$1\r\na\r\n" + strings.Repeat("x", inlineMaxSize+1), err: ErrTooBigBulkCount.Error()},
	{name: "big bulk", in: mb("SET", "k", strings.Repeat("v", 100000)) + mb("PING"), want: cmds(cmd("SET", "k", strings.Repeat("v", 100000)), cmd("PING"))},

	// Limits for clients that have not authenticated.
	{name: "unauth 11 args", in: "*11\r\n", unauth: true, err: ErrUnauthMultibulkLength.Error()},
	{name: "unauth 10 args", in: "*10\r\n", unauth: true},
	{name: "authenticated 11 args", in: "*11\r\n"},
	{name: "unauth big bulk", in: "*1\r\n$16385\r\n", unauth: true, err: ErrUnauthBulkLength.Error()},
	{name: "unauth bulk at limit", in: "*1\r\n$16384\r\n", unauth: true},
	{name: "unauth invalid count first", in: "*2147483648\r\n", unauth: true, err: ErrInvalidMultibulkLength.Error()},
	{name: "unauth invalid bulk first", in: "*1\r\n$536870913\r\n", unauth: true, err: ErrInvalidBulkLength.Error()},
	{name: "unauth empty command", in: "*-1\r\n" + mb("AUTH", "pw"), unauth: true, want: cmds(cmd(), cmd("AUTH", "pw"))},
	{name: "unauth inline unlimited", in: "A B C D E F G H I J K L\r\n", unauth: true, want: cmds(cmd("A", "B", "C", "D", "E", "F", "G", "H", "I", "J", "K", "L"))},
}

func TestParserRequests(t *testing.T) {
	for _, tc := range parserCases {
		t.Run(tc.name, func(t *testing.T) {
			check := func(how string, r io.Reader) {
				t.Helper()
				p := &Parser{Unauthenticated: tc.unauth, MaxBulkLen: tc.maxBulk}
				got := parseStream(p, r)
				if !reflect.DeepEqual(got.cmds, tc.want) || got.err != tc.err {
					t.Errorf("%s: got %s err %q\nwant %s err %q", how, short(got.cmds), got.err, short(tc.want), tc.err)
				}
				if tc.err != "" {
					// The error is sticky.
					if _, ok, err := p.Next(); ok || err == nil || err.Error() != tc.err {
						t.Errorf("%s: Next after the error = %v, %v", how, ok, err)
					}
				}
			}
			check("whole", bytes.NewReader([]byte(tc.in)))
			if !tc.noBytewise {
				check("byte by byte", &chunkReader{data: []byte(tc.in), n: 1})
			}
		})
	}
}

// short renders commands for failure messages without megabytes of payload.
func short(c [][]string) string {
	var b strings.Builder
	b.WriteString("[")
	for _, args := range c {
		b.WriteString("[")
		for i, a := range args {
			if i > 0 {
				b.WriteString(" ")
			}
			if len(a) > 40 {
				a = a[:40] + "...(" + strconv.Itoa(len(a)) + ")"
			}
			b.WriteString(strconv.Quote(a))
		}
		b.WriteString("]")
	}
	b.WriteString("]")
	return b.String()
}

// TestParserEveryBoundary cuts a pipeline that mixes every request form in
// two at every byte and checks that the result never changes.
func TestParserEveryBoundary(t *testing.T) {
	stream := mb("SET", "key", "a\r\nb") + "PING\r\n" + "*0\r\n" + "\r\n" +
		"ECHO \"x y\" 'z\\'' \\x41\n" + mb("ECHO", "") + "*-1\r\n" +
		mb("MSET", "a", "1", "b", "2", "c", "3", "d", "4", "e", "5") + "*1\rX$4\r\nPINGzz" + "  GET  k \r\n"
	want := parseStream(&Parser{}, bytes.NewReader([]byte(stream)))
	if want.err != "" || len(want.cmds) != 10 {
		t.Fatalf("whole stream: %s err %q", short(want.cmds), want.err)
	}
	for k := 0; k <= len(stream); k++ {
		got := parseStream(&Parser{}, &partsReader{parts: [][]byte{[]byte(stream[:k]), []byte(stream[k:])}})
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("cut at %d: got %s err %q", k, short(got.cmds), got.err)
		}
	}
	got := parseStream(&Parser{}, &chunkReader{data: []byte(stream), n: 1})
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("byte by byte: got %s err %q", short(got.cmds), got.err)
	}
}

// TestParserBatchArgsStayValid keeps the arguments of every command of one
// batch, as a server that executes a pipeline at once does, and checks them
// all before the next Fill.
func TestParserBatchArgsStayValid(t *testing.T) {
	var in strings.Builder
	var want [][]string
	for i := range 300 {
		k, v := "key"+strconv.Itoa(i), strings.Repeat("v", i%50)
		if i%3 == 0 {
			in.WriteString("SET " + k + " \"" + v + "\"\r\n") // quoted: side buffer
		} else {
			in.WriteString(mb("SET", k, v))
		}
		want = append(want, cmd("SET", k, v))
	}
	p := &Parser{}
	r := bytes.NewReader([]byte(in.String()))
	var got [][]string
	for range 1000 {
		_, rerr := p.Fill(r)
		var batch [][][]byte
		for {
			args, ok, err := p.Next()
			if err != nil {
				t.Fatal(err)
			}
			if !ok {
				break
			}
			args[0][0] = 's' // callers may write into arguments
			batch = append(batch, args)
		}
		for _, args := range batch {
			c := make([]string, len(args))
			for i, a := range args {
				c[i] = string(a)
			}
			c[0] = "S" + c[0][1:]
			got = append(got, c)
		}
		if rerr != nil {
			break
		}
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("got %d commands, want %d; first difference in %s", len(got), len(want), short(got[:min(3, len(got))]))
	}
}

// readSizes records the room offered to each Read.
type readSizes struct {
	r     io.Reader
	sizes []int
}

func (s *readSizes) Read(b []byte) (int, error) {
	s.sizes = append(s.sizes, len(b))
	return s.r.Read(b)
}

// TestParserBigBulkExactBuffer checks Redis's treatment of bulks of 32KB and
// more: the buffer is sized to the bulk and the read asks for exactly the
// rest of it, so the next command does not land behind it.
func TestParserBigBulkExactBuffer(t *testing.T) {
	const size = 100000
	head := "*3\r\n$3\r\nSET\r\n$1\r\nk\r\n$" + strconv.Itoa(size) + "\r\n"
	stream := mb("SET", "k", strings.Repeat("v", size)) + mb("PING")
	rs := &readSizes{r: bytes.NewReader([]byte(stream))}
	p := &Parser{}

	if n, err := p.Fill(rs); n != ioBufLen || err != nil {
		t.Fatalf("first Fill = %d, %v; want %d bytes", n, err, ioBufLen)
	}
	if _, ok, err := p.Next(); ok || err != nil {
		t.Fatalf("Next before the bulk arrived = %v, %v", ok, err)
	}
	if _, err := p.Fill(rs); err != nil {
		t.Fatal(err)
	}
	if want := size + 2 - (ioBufLen - len(head)); rs.sizes[1] != want {
		t.Errorf("second read offered %d bytes, want exactly the rest of the bulk, %d", rs.sizes[1], want)
	}
	if want := len(head) + size + 2; p.Cap() != want {
		t.Errorf("Cap() = %d, want %d (command head plus bulk)", p.Cap(), want)
	}
	args, ok, err := p.Next()
	if !ok || err != nil || len(args) != 3 || len(args[2]) != size || p.Buffered() != 0 {
		t.Fatalf("Next = %d args, %v, %v; buffered %d", len(args), ok, err, p.Buffered())
	}
	if _, err := p.Fill(rs); err != nil {
		t.Fatal(err)
	}
	if args, ok, _ := p.Next(); !ok || string(args[0]) != "PING" {
		t.Fatalf("command after the big bulk: %q %v", args, ok)
	}
}

// TestParserReleasesBigBuffer checks that a buffer grown for a big bulk is
// given back once the bulk has been consumed.
func TestParserReleasesBigBuffer(t *testing.T) {
	r := &partsReader{parts: [][]byte{[]byte(mb("SET", "k", strings.Repeat("v", 3<<20))), []byte(mb("PING"))}}
	p := &Parser{}
	var args [][]byte
	for range 100 {
		p.Fill(r)
		var ok bool
		if args, ok, _ = p.Next(); ok {
			break
		}
	}
	if len(args) != 3 || len(args[2]) != 3<<20 {
		t.Fatalf("big command: %d args", len(args))
	}
	if p.Cap() < 3<<20 {
		t.Fatalf("Cap() = %d after a 3MB bulk", p.Cap())
	}
	p.Fill(r)
	if args, ok, _ := p.Next(); !ok || string(args[0]) != "PING" {
		t.Fatalf("next command: %q %v", args, ok)
	}
	if p.Cap() > 4*ioBufLen {
		t.Errorf("Cap() = %d after the big bulk was consumed; want the buffer released", p.Cap())
	}
}

// TestParserHugeDeclaredBulk checks that a declared length over the limit is
// refused at once, before anything is allocated for it, and that one within
// the limit gets a buffer of exactly its size.
func TestParserHugeDeclaredBulk(t *testing.T) {
	for _, tc := range []struct {
		decl    string
		max     int64
		wantErr error
		wantCap int
	}{
		{"$536870913", 0, ErrInvalidBulkLength, ioBufLen},
		{"$9223372036854775807", 0, ErrInvalidBulkLength, ioBufLen},
		{"$2097153", 2 << 20, ErrInvalidBulkLength, ioBufLen},
		{"$2097152", 2 << 20, nil, len("*1\r\n$2097152\r\n") + 2<<20 + 2},
	} {
		p := &Parser{MaxBulkLen: tc.max}
		r := strings.NewReader("*1\r\n" + tc.decl + "\r\n")
		p.Fill(r)
		_, ok, err := p.Next()
		if ok || err != tc.wantErr {
			t.Errorf("%s: Next = %v, %v; want %v", tc.decl, ok, err, tc.wantErr)
		}
		// At EOF Fill must return, having sized the buffer for a pending
		// bulk; after an error it returns the error without reading.
		if _, ferr := p.Fill(r); tc.wantErr != nil && ferr != tc.wantErr {
			t.Errorf("%s: Fill after the error returned %v", tc.decl, ferr)
		}
		if p.Cap() != tc.wantCap {
			t.Errorf("%s: Cap() = %d, want %d", tc.decl, p.Cap(), tc.wantCap)
		}
	}
}

// TestParserBuffered checks the qbuf figures CLIENT LIST reports.
func TestParserBuffered(t *testing.T) {
	p := &Parser{}
	p.Fill(strings.NewReader(mb("PING") + "*2\r\n$4\r\nECHO\r\n$3\r\nab"))
	if p.Buffered() != 34 || p.Free() != p.Cap()-34 {
		t.Fatalf("before parsing: Buffered %d Free %d Cap %d", p.Buffered(), p.Free(), p.Cap())
	}
	p.Next()
	p.Next()
	if p.Buffered() != 2 {
		t.Errorf("Buffered() = %d mid-command, want the 2 unparsed bytes", p.Buffered())
	}
}

func TestParserZeroAllocs(t *testing.T) {
	stream := []byte(strings.Repeat(mb("SET", "key:1234", "value-1234"), 1000))
	p := &Parser{}
	r := &loopReader{data: stream}
	run := func() {
		for n := 0; n < 1000; {
			args, ok, err := p.Next()
			if err != nil {
				t.Fatal(err)
			}
			if !ok {
				p.Fill(r)
				continue
			}
			if len(args) != 3 {
				t.Fatalf("%q", args)
			}
			n++
		}
	}
	run() // warm up: buffers reach their steady size
	if a := testing.AllocsPerRun(20, run); a != 0 {
		t.Errorf("%v allocations per 1000 pipelined commands, want 0", a)
	}
}

func TestProtocolErrorReply(t *testing.T) {
	if got := ErrInvalidBulkLength.Reply(); got != "ERR Protocol error: invalid bulk length" {
		t.Errorf("Reply() = %q", got)
	}
	var pe *ProtocolError
	_, _, err := parseStreamErr("*1\r\n?\r\n")
	if !errors.As(err, &pe) || pe.Error() != "Protocol error: expected '$', got '?'" {
		t.Errorf("err = %v", err)
	}
}

func parseStreamErr(in string) ([][]byte, bool, error) {
	p := &Parser{}
	p.Fill(strings.NewReader(in))
	return p.Next()
}

// loopReader replays data forever.
type loopReader struct {
	data []byte
	off  int
}

func (r *loopReader) Read(b []byte) (int, error) {
	n := copy(b, r.data[r.off:])
	r.off = (r.off + n) % len(r.data)
	return n, nil
}

// BenchmarkParser parses pipelined SET commands; one op is one command.
func BenchmarkParser(b *testing.B) {
	one := mb("SET", "key:1234", "value-1234")
	r := &loopReader{data: []byte(strings.Repeat(one, 1000))}
	p := &Parser{}
	b.SetBytes(int64(len(one)))
	b.ReportAllocs()
	b.ResetTimer()
	for n := 0; n < b.N; {
		args, ok, err := p.Next()
		if err != nil {
			b.Fatal(err)
		}
		if !ok {
			p.Fill(r)
			continue
		}
		if len(args) != 3 {
			b.Fatal(args)
		}
		n++
	}
}

// BenchmarkParserInline parses pipelined inline SET commands.
func BenchmarkParserInline(b *testing.B) {
	one := "SET key:1234 \"value 1234\"\r\n"
	r := &loopReader{data: []byte(strings.Repeat(one, 1000))}
	p := &Parser{}
	b.SetBytes(int64(len(one)))
	b.ReportAllocs()
	b.ResetTimer()
	for n := 0; n < b.N; {
		args, ok, err := p.Next()
		if err != nil {
			b.Fatal(err)
		}
		if !ok {
			p.Fill(r)
			continue
		}
		if len(args) != 3 {
			b.Fatal(args)
		}
		n++
	}
}

// ---- Differential test against a real redis-server ----

// startRedis runs a redis-server on a free loopback port for the test and
// returns its address. The server is killed by PID when the test ends.
func startRedis(t *testing.T, path string, extra ...string) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	_, port, _ := net.SplitHostPort(addr)
	l.Close()
	args := append([]string{"--port", port, "--bind", "127.0.0.1", "--save", "", "--appendonly", "no",
		"--daemonize", "no", "--dir", t.TempDir(), "--logfile", ""}, extra...)
	srv := exec.Command(path, args...)
	if err := srv.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		srv.Process.Kill()
		srv.Wait()
	})
	deadline := time.Now().Add(10 * time.Second)
	for {
		c, err := net.DialTimeout("tcp", addr, time.Second)
		if err == nil {
			c.Close()
			return addr
		}
		if time.Now().After(deadline) {
			t.Fatalf("redis-server did not start on %s: %v", addr, err)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// modelReply is what Redis 7.0.15 answers to the few commands the
// differential inputs use. ok is false for a command outside the model.
func modelReply(args []string, unauth bool) (reply string, ok bool) {
	const noauth = "-NOAUTH Authentication required.\r\n"
	bulk := func(s string) string { return "$" + strconv.Itoa(len(s)) + "\r\n" + s + "\r\n" }
	if len(args) == 0 {
		return "", true
	}
	switch strings.ToLower(args[0]) {
	case "echo": // the arity check comes before authentication
		switch {
		case len(args) != 2:
			return "-ERR wrong number of arguments for 'echo' command\r\n", true
		case unauth:
			return noauth, true
		}
		return bulk(args[1]), true
	case "ping":
		switch {
		case unauth:
			return noauth, true
		case len(args) == 1:
			return "+PONG\r\n", true
		case len(args) == 2:
			return bulk(args[1]), true
		}
		return "-ERR wrong number of arguments for 'ping' command\r\n", true
	}
	return "", false
}

type diffCase struct {
	in     string
	unauth bool
}

func diffCases() []diffCase {
	cases := []diffCase{
		{in: "PING\r\nPING\nECHO hello\r\n\r\n   \r\n"},
		{in: "PING\r\r\n"},
		{in: "ECHO a\rb\r\n"},
		{in: "ECHO a\vb\r\n"},
		{in: "\v\fECHO b\v\f\r\n"},
		{in: "PI\x00NG\r\nPING\r\n"},
		{in: "ECHO \"a\"\vb\r\n"},
		{in: "PING" + strings.Repeat(" ", 20) + "x\r\n"},
		{in: mb("PING") + mb("ECHO", "a\r\nb\x00c") + "*0\r\n*-1\r\n*-7\r\n" + mb("PING")},
		{in: "*1\rX$4\rYPINGZW" + mb("PING")},
		{in: "*1\r\n$4\r\nPINGxx" + mb("ECHO", "x")},
		{in: "*1\x00\r\n$4\r\nPING\r\n"},
		{in: "*1\r\n$4\x00\r\nPING\r\n"},
		{in: "*1\r\nx"},
		{in: "*2147483647\r\n"},
		{in: "*1048577\r\n"},
		{in: "*1\r\n$536870912\r\n"},
		{in: mb("PING") + "*2147483648\r\n" + mb("PING")},
		{in: "*\r\n"}, {in: "*+1\r\n"}, {in: "*01\r\n"}, {in: "*-0\r\n"}, {in: "*1a\r\n"},
		{in: "*99999999999999999999\r\n"},
		{in: "*1\r\nx\r\n"}, {in: "*1\r\n\r\n"}, {in: "*1\r\n\n\r\n"}, {in: "*2\r\n$4\r\nECHO\r\n:1\r\n"},
		{in: "*1\r\n\xfe1\r\n"},
		{in: "*1\r\n$-1\r\n"}, {in: "*1\r\n$+4\r\n"}, {in: "*1\r\n$04\r\n"}, {in: "*1\r\n$-0\r\n"},
		{in: "*1\r\n$\r\n"}, {in: "*1\r\n$536870913\r\n"},
		{in: mb("PING") + "PING\r\n*3\r\n$4\r\nECHO\r\n$1\r\na\r\n$z\r\n" + mb("PING")},
		{in: strings.Repeat("a", 70000)},
		{in: "*" + strings.Repeat("1", 70000)},
		{in: "*1\r\n$" + strings.Repeat("1", 70000)},
		{in: "*11\r\n", unauth: true},
		{in: "*10\r\n", unauth: true},
		{in: "*1\r\n$16385\r\n", unauth: true},
		{in: "*1\r\n$16384\r\n", unauth: true},
		{in: "*-1\r\nPING\r\nECHO a b\r\n" + mb("ECHO", "x"), unauth: true},
		{in: "ECHO b c d e f g h i j k l m\r\n*11\r\n", unauth: true},
	}
	for _, line := range splitArgsCases {
		if !strings.ContainsAny(line.in, "\x00\r\n") {
			cases = append(cases, diffCase{in: "ECHO " + line.in + "\r\n"})
		}
	}
	return cases
}

// TestParserMatchesRedis sends each input to a real redis-server 7.0 over a
// raw socket and compares its answer with the Parser's reading of the same
// bytes: the replies to the commands parsed, then "-ERR <protocol error>" and
// the connection closed, or silence while the server waits for more.
func TestParserMatchesRedis(t *testing.T) {
	path, err := exec.LookPath("redis-server")
	if err != nil {
		if os.Getenv("CI") == "" {
			t.Skip("redis-server not on PATH")
		}
		t.Fatal("CI is set but redis-server is not on PATH")
	}
	if testing.Short() {
		t.Skip("differential test against redis-server skipped in -short mode")
	}
	open := startRedis(t, path)
	locked := startRedis(t, path, "--requirepass", "pw")

	for i, tc := range diffCases() {
		name := strconv.Quote(tc.in[:min(len(tc.in), 24)])
		t.Run(strconv.Itoa(i)+"_"+name[1:len(name)-1], func(t *testing.T) {
			t.Parallel()
			p := &Parser{Unauthenticated: tc.unauth}
			res := parseStream(p, bytes.NewReader([]byte(tc.in)))
			var want strings.Builder
			for _, c := range res.cmds {
				r, ok := modelReply(c, tc.unauth)
				if !ok {
					t.Fatalf("input %q: command %q is outside the reply model", tc.in, c)
				}
				want.WriteString(r)
			}
			closed := res.err != ""
			if closed {
				want.WriteString("-ERR " + res.err + "\r\n")
			}

			addr := open
			if tc.unauth {
				addr = locked
			}
			got, gotClosed := exchange(t, addr, tc.in, want.Len(), closed)
			if got != want.String() || gotClosed != closed {
				t.Errorf("input %s\nredis:  %q closed=%v\nparser: %q closed=%v",
					shortQuote(tc.in), got, gotClosed, want.String(), closed)
			}
		})
	}
}

func shortQuote(s string) string {
	if len(s) > 200 {
		return strconv.Quote(s[:200]) + "...(" + strconv.Itoa(len(s)) + " bytes)"
	}
	return strconv.Quote(s)
}

// exchange writes in to a fresh connection and reads the answer: at least
// wantLen bytes, then until the server closes (when a close is expected) or
// until a short quiet period shows it is waiting for more input.
func exchange(t *testing.T, addr, in string, wantLen int, wantClose bool) (string, bool) {
	conn, err := net.DialTimeout("tcp", addr, 5*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	if _, err := conn.Write([]byte(in)); err != nil && !wantClose {
		t.Fatal(err)
	}
	var got []byte
	buf := make([]byte, 4096)
	deadline := time.Now().Add(5 * time.Second)
	quiet := false
	for {
		if !wantClose && !quiet && len(got) >= wantLen {
			// Everything expected arrived: anything more must come soon.
			deadline = time.Now().Add(150 * time.Millisecond)
			quiet = true
		}
		conn.SetReadDeadline(deadline)
		n, err := conn.Read(buf)
		got = append(got, buf[:n]...)
		if err != nil {
			var ne net.Error
			if errors.As(err, &ne) && ne.Timeout() {
				return string(got), false
			}
			return string(got), true // EOF or reset: the server closed
		}
	}
}

// TestParserRelease: an idle parser drops its buffer only when nothing is
// buffered and no command is in progress, and parses as before afterwards.
func TestParserRelease(t *testing.T) {
	p := &Parser{}
	if p.Release() {
		t.Error("Release of a new parser reported a dropped buffer")
	}
	r := &partsReader{parts: [][]byte{[]byte(mb("PING")), []byte("*2\r\n$3\r\nGET\r\n"), []byte("$1\r\nk\r\n"), []byte("PI"), []byte("NG\r\n")}}
	next := func() []string {
		t.Helper()
		p.Fill(r)
		args, ok, err := p.Next()
		if err != nil || !ok && len(r.parts) == 0 {
			t.Fatalf("Next: %q %v %v", args, ok, err)
		}
		var out []string
		for _, a := range args {
			out = append(out, string(a))
		}
		return out
	}
	if got := next(); len(got) != 1 || got[0] != "PING" {
		t.Fatalf("first command %q", got)
	}
	if p.Cap() != ioBufLen {
		t.Fatalf("Cap() = %d after one read, want %d", p.Cap(), ioBufLen)
	}
	if !p.Release() || p.Cap() != 0 || p.Free() != 0 || p.Buffered() != 0 {
		t.Fatalf("Release of an empty buffer: Cap %d Free %d Buffered %d", p.Cap(), p.Free(), p.Buffered())
	}
	if got := next(); got != nil {
		t.Fatalf("half a GET parsed as %q", got)
	}
	if p.Release() {
		t.Error("Release dropped a command in progress")
	}
	if got := next(); len(got) != 2 || got[0] != "GET" || got[1] != "k" {
		t.Fatalf("GET after a refused Release: %q", got)
	}
	if got := next(); got != nil {
		t.Fatalf("half an inline PING parsed as %q", got)
	}
	if p.Release() {
		t.Error("Release dropped unparsed bytes")
	}
	if got := next(); len(got) != 1 || got[0] != "PING" {
		t.Fatalf("inline PING after a refused Release: %q", got)
	}
	small := &Parser{}
	small.reserve(64, true)
	if small.Release() {
		t.Error("Release dropped a buffer of 64 bytes (Redis keeps up to 4KB of free space)")
	}
}

// TestParserTakeGiveBuffer passes a first Fill's buffer from one Parser
// to another: the second reads into the same memory, the first is left
// empty and usable, and a buffer of another size is neither taken nor
// given.
func TestParserTakeGiveBuffer(t *testing.T) {
	a := &Parser{}
	a.Fill(strings.NewReader(mb("SET", "k", "v") + "*2\r\n$3\r\nGET")) // a command in progress
	if args, ok, _ := a.Next(); !ok || string(args[0]) != "SET" {
		t.Fatalf("first parser: %q %v", args, ok)
	}
	b := a.TakeBuffer()
	if cap(b) != ioBufLen || len(b) != 0 || a.Cap() != 0 || a.Buffered() != 0 {
		t.Fatalf("TakeBuffer: len %d cap %d, parser Cap %d Buffered %d", len(b), cap(b), a.Cap(), a.Buffered())
	}
	if args, ok, err := a.Next(); ok || err != nil {
		t.Fatalf("emptied parser parsed %q %v", args, err)
	}
	a.Fill(strings.NewReader(mb("PING")))
	if args, ok, _ := a.Next(); !ok || string(args[0]) != "PING" {
		t.Fatalf("emptied parser after a Fill: %q %v", args, ok)
	}

	c := &Parser{}
	c.GiveBuffer(b)
	if c.Cap() != ioBufLen {
		t.Fatalf("Cap after GiveBuffer = %d", c.Cap())
	}
	c.Fill(strings.NewReader(mb("ECHO", "hello")))
	args, ok, _ := c.Next()
	if !ok || string(args[1]) != "hello" {
		t.Fatalf("given buffer: %q %v", args, ok)
	}
	if &args[1][0] != &b[:cap(b)][len(mb("ECHO", "hello"))-len("hello\r\n")] {
		t.Fatal("the Fill did not read into the given buffer")
	}
	before := &c.Unparsed()[:1][0]
	c.GiveBuffer(make([]byte, 0, ioBufLen)) // c has a buffer: dropped
	if &c.Unparsed()[:1][0] != before {
		t.Fatal("GiveBuffer replaced a buffer in use")
	}

	d := &Parser{}
	d.GiveBuffer(make([]byte, 0, 100))
	if d.Cap() != 0 {
		t.Fatalf("GiveBuffer took a buffer of capacity 100: Cap %d", d.Cap())
	}
	e := &Parser{}
	big := strings.NewReader(mb("SET", "k", strings.Repeat("v", 40000)))
	for range 10 {
		e.Fill(big)
	}
	if e.Cap() == ioBufLen || e.TakeBuffer() != nil || e.Cap() == 0 {
		t.Fatalf("TakeBuffer took a grown buffer (Cap %d)", e.Cap())
	}
}
