package aof

import (
	"bytes"
	"errors"
	"io"
	"strings"
	"testing"
)

func TestAppendCommand(t *testing.T) {
	tests := []struct {
		got, want string
	}{
		{string(AppendCommandStrings(nil, "SET", "k", "v")), "*3\r\n$3\r\nSET\r\n$1\r\nk\r\n$1\r\nv\r\n"},
		{string(AppendCommand(nil, []byte("DEL"), []byte(""))), "*2\r\n$3\r\nDEL\r\n$0\r\n\r\n"},
		{string(AppendSelect(nil, 0)), "*2\r\n$6\r\nSELECT\r\n$1\r\n0\r\n"},
		{string(AppendSelect(nil, 15)), "*2\r\n$6\r\nSELECT\r\n$2\r\n15\r\n"},
		{string(AppendMulti(nil)) + string(AppendExec(nil)), "*1\r\n$5\r\nMULTI\r\n*1\r\n$4\r\nEXEC\r\n"},
		{string(AppendBulkInt(AppendBulkString(AppendArray(nil, 2), "x"), -12)), "*2\r\n$1\r\nx\r\n$3\r\n-12\r\n"},
	}
	for i, tt := range tests {
		if tt.got != tt.want {
			t.Errorf("%d: got %q, want %q", i, tt.got, tt.want)
		}
	}
}

// readAll reads every command of s; it returns them joined by spaces, one
// string per command, and the final error (nil at a clean end).
func readAll(s string) ([]string, error) {
	r := NewReader(strings.NewReader(s), int64(len(s)))
	var out []string
	for {
		args, err := r.Next()
		if err == io.EOF {
			return out, nil
		}
		if err != nil {
			return out, err
		}
		var parts []string
		for _, a := range args {
			parts = append(parts, string(a))
		}
		out = append(out, strings.Join(parts, " "))
	}
}

func TestReaderCommands(t *testing.T) {
	in := "*2\r\n$6\r\nSELECT\r\n$1\r\n0\r\n" +
		"#TS:1700000000\r\n" +
		"*3\r\n$3\r\nset\r\n$1\r\nk\r\n$4\r\na\r\nb\r\n" +
		"*1\r\n$5\r\nMULTI\r\n"
	got, err := readAll(in)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"SELECT 0", "set k a\r\nb", "MULTI"}
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Fatalf("got %q, want %q", got, want)
	}
}

// TestReaderTruncatedEverywhere cuts a valid stream at every byte: a cut
// between commands reads cleanly; a cut inside one reports the offset
// where that command starts.
func TestReaderTruncatedEverywhere(t *testing.T) {
	cmds := [][]string{{"SET", "key", "value"}, {"INCR", "n"}, {"DEL", ""}}
	var full []byte
	var starts []int
	for _, c := range cmds {
		starts = append(starts, len(full))
		full = AppendCommandStrings(full, c...)
	}
	starts = append(starts, len(full))
	for cut := 0; cut <= len(full); cut++ {
		got, err := readAll(string(full[:cut]))
		complete := 0
		for complete < len(cmds) && starts[complete+1] <= cut {
			complete++
		}
		if len(got) != complete {
			t.Fatalf("cut %d: read %d commands, want %d", cut, len(got), complete)
		}
		if cut == starts[complete] {
			if err != nil {
				t.Fatalf("cut %d at a command boundary: %v", cut, err)
			}
			continue
		}
		var te *TruncatedError
		if !errors.As(err, &te) || te.Offset != int64(starts[complete]) {
			t.Fatalf("cut %d: err %v, want TruncatedError at %d", cut, err, starts[complete])
		}
	}
}

func TestReaderFormatErrors(t *testing.T) {
	tests := []struct {
		in     string
		offset int64
		reason string
	}{
		{"+OK\r\n", 0, "expected '*'"},
		{"*0\r\n", 0, "invalid argument count"},
		{"*x\r\n", 0, "invalid argument count"},
		{"*1\r\n$3\r\nGET\r\n*1\r\n:3\r\n", 17, "expected '$'"},
		{"*1\r\n$-1\r\n", 4, "invalid bulk length"},
		{"*1\r\n$3\r\nGETXX*1\r\n", 4, "not followed by CRLF"},
		{"*1\n$3\r\nGET\r\n", 0, "CRLF"},
		{"*1\r\n$" + strings.Repeat("1", 2000) + "\r\n", 4, "too long"},
		{"\r\n", 0, "CRLF or is empty"},
	}
	for _, tt := range tests {
		_, err := readAll(tt.in)
		var fe *FormatError
		if !errors.As(err, &fe) {
			t.Errorf("%q: err %v, want a FormatError", tt.in, err)
			continue
		}
		if tt.reason == "not followed by CRLF" {
			tt.offset = 4 + 4 + 3 // the two bytes after the argument
		}
		if fe.Offset != tt.offset || !strings.Contains(fe.Reason, tt.reason) {
			t.Errorf("%q: got offset %d reason %q, want %d %q", tt.in, fe.Offset, fe.Reason, tt.offset, tt.reason)
		}
	}
}

func TestReaderBulkBeyondFileIsTruncation(t *testing.T) {
	in := "*1\r\n$4\r\nPING\r\n*2\r\n$3\r\nSET\r\n$999999999\r\nab"
	got, err := readAll(in)
	var te *TruncatedError
	if len(got) != 1 || !errors.As(err, &te) || te.Offset != 14 {
		t.Fatalf("got %q, %v; want one command then truncation at 14", got, err)
	}
}

func TestScanOffsets(t *testing.T) {
	var in []byte
	in = AppendCommandStrings(in, "SET", "a", "1")
	mid := len(in)
	in = AppendCommandStrings(in, "MULTI")
	var spans [][2]int64
	err := Scan(bytes.NewReader(in), int64(len(in)), func(args [][]byte, start, end int64) error {
		spans = append(spans, [2]int64{start, end})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	want := [][2]int64{{0, int64(mid)}, {int64(mid), int64(len(in))}}
	if len(spans) != 2 || spans[0] != want[0] || spans[1] != want[1] {
		t.Fatalf("spans %v, want %v", spans, want)
	}
	stop := errors.New("stop")
	if err := Scan(bytes.NewReader(in), -1, func([][]byte, int64, int64) error { return stop }); err != stop {
		t.Fatalf("fn's error not returned: %v", err)
	}
}

func TestParseCount(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want int
		ok   bool
	}{
		{"0", 0, true}, {"3", 3, true}, {"007", 7, true}, {"2147483647", 1<<31 - 1, true},
		{"2147483648", 0, false}, {"00000000001", 0, false}, {"", 0, false}, {"-1", 0, false},
		{"+1", 0, false}, {" 1", 0, false}, {"1 ", 0, false}, {"1x", 0, false}, {"1\x002", 0, false},
	} {
		got, ok := parseCount([]byte(tc.in))
		if got != tc.want || ok != tc.ok {
			t.Errorf("parseCount(%q) = %d, %v; want %d, %v", tc.in, got, ok, tc.want, tc.ok)
		}
	}
}
