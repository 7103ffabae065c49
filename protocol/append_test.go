package protocol

import "testing"

func TestAppendEncoders(t *testing.T) {
	for _, tc := range []struct {
		got, want string
	}{
		{string(AppendArrayLen(nil, 3)), "*3\r\n"},
		{string(AppendArrayLen(nil, 12)), "*12\r\n"},
		{string(AppendBulk(nil, nil)), "$0\r\n\r\n"},
		{string(AppendBulk(nil, []byte("hello world"))), "$11\r\nhello world\r\n"},
		{string(AppendBulkString([]byte("x"), "ab")), "x$2\r\nab\r\n"},
		{string(AppendBulkInt(nil, -1234)), "$5\r\n-1234\r\n"},
		{string(AppendCommand(nil, "SET", "k", "v")), "*3\r\n$3\r\nSET\r\n$1\r\nk\r\n$1\r\nv\r\n"},
		{string(AppendCommand(nil, []byte("PING"))), "*1\r\n$4\r\nPING\r\n"},
	} {
		if tc.got != tc.want {
			t.Errorf("got %q, want %q", tc.got, tc.want)
		}
	}
}

func TestAppendEncodersAllocs(t *testing.T) {
	buf := make([]byte, 0, 256)
	args := [][]byte{[]byte("SET"), []byte("key"), []byte("value")}
	n := testing.AllocsPerRun(100, func() {
		b := AppendCommand(buf[:0], args...)
		b = AppendBulkInt(b, 1<<40)
		_ = AppendBulkString(b, "message")
	})
	if n != 0 {
		t.Fatalf("%v allocations, want 0", n)
	}
}
