package multi

import (
	"strings"
	"testing"
)

func TestQueueCopiesArgs(t *testing.T) {
	var s State
	s.Begin()
	buf := []byte("set k v")
	args := [][]byte{buf[0:3], buf[4:5], buf[6:7]}
	s.Queue("SET", args, true, true, false)
	copy(buf, "xxxxxxx") // the read buffer is reused
	s.Queue("GET", [][]byte{[]byte("get"), []byte("k")}, false, false, false)
	var got []string
	s.Each(func(cmd any, a [][]byte) {
		parts := []string{cmd.(string)}
		for _, x := range a {
			parts = append(parts, string(x))
		}
		got = append(got, strings.Join(parts, " "))
	})
	want := []string{"SET set k v", "GET get k"}
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Fatalf("got %q want %q", got, want)
	}
	if !s.HasWrite() || !s.HasDenyOOM() || s.Len() != 2 {
		t.Fatalf("flags write=%v denyoom=%v len=%d", s.HasWrite(), s.HasDenyOOM(), s.Len())
	}
}

func TestArgsDoNotOverlap(t *testing.T) {
	var s State
	s.Begin()
	s.Queue("A", [][]byte{[]byte("a"), []byte("")}, false, false, false)
	s.Queue("B", [][]byte{[]byte("bb")}, false, false, false)
	s.Each(func(cmd any, a [][]byte) {
		if cmd == "A" {
			if len(a) != 2 || string(a[0]) != "a" || len(a[1]) != 0 {
				t.Fatalf("A args %q", a)
			}
			a[1] = append(a[1], 'Z') // must not clobber B's bytes
		}
	})
	s.Each(func(cmd any, a [][]byte) {
		if cmd == "B" && string(a[0]) != "bb" {
			t.Fatalf("B args %q", a)
		}
	})
}

func TestDecide(t *testing.T) {
	var s State
	s.Begin()
	if s.Decide(false) != Run || s.Decide(true) != AbortCAS {
		t.Fatal("clean transaction decisions wrong")
	}
	s.Poison()
	if s.Decide(true) != AbortExec {
		t.Fatal("poison must win over dirty (M-7b)")
	}
	s.Queue("X", [][]byte{[]byte("x")}, false, false, false)
	if s.Len() != 0 {
		t.Fatal("a poisoned transaction stores nothing (M-4)")
	}
	s.Reset()
	if s.Active() || s.Poisoned() || s.Len() != 0 {
		t.Fatal("Reset must leave MULTI")
	}
}

func TestDirtyClientStoresNothing(t *testing.T) {
	var s State
	s.Begin()
	s.Queue("X", [][]byte{[]byte("x")}, false, false, true)
	if s.Len() != 0 {
		t.Fatal("a dirty client's queue stays empty (W-13 multi=0)")
	}
}
