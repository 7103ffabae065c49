package server

import (
	"bufio"
	"testing"
)

func TestDialPipe(t *testing.T) {
	cfg := DefaultConfig()
	cfg.Port = 0
	s, err := Start(cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	c, err := s.DialPipe()
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	c.Write([]byte("SET k v\r\nGET k\r\n"))
	r := bufio.NewReader(c)
	for _, want := range []string{"+OK\r\n", "$1\r\n", "v\r\n"} {
		got, err := r.ReadString('\n')
		if err != nil || got != want {
			t.Fatalf("got %q (%v), want %q", got, err, want)
		}
	}
}
