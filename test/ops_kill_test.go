package test

import (
	"fmt"
	"strings"
	"testing"
	"time"
)

// CLIENT KILL's filters against redis-server (ID, TYPE, USER, ADDR, LADDR,
// SKIPME): the number of clients killed and which connections close. A
// monitor is a normal client for TYPE. Addresses differ between the servers
// and are read from each side's CLIENT INFO.

// infoField reads field of CLIENT INFO on one server's connection.
func infoField(t *testing.T, c *respConn, field string) string {
	t.Helper()
	n, err := c.Do("CLIENT", "INFO")
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range strings.Fields(n.Str) {
		if k, v, ok := strings.Cut(f, "="); ok && k == field {
			return v
		}
	}
	t.Fatalf("no %s in %q", field, n.Str)
	return ""
}

// killBoth sends CLIENT KILL with per-server arguments and compares replies.
func killBoth(t *testing.T, k *diffConn, args func(side *respConn, redis bool) []string) {
	t.Helper()
	w, err := k.redis.Do(append([]string{"CLIENT", "KILL"}, args(k.redis, true)...)...)
	if err != nil {
		t.Fatal(err)
	}
	g, err := k.ours.Do(append([]string{"CLIENT", "KILL"}, args(k.ours, false)...)...)
	if err != nil {
		t.Fatal(err)
	}
	if string(w.Raw) != string(g.Raw) {
		t.Fatalf("CLIENT KILL: redis-server %q, miniwatchd %q", w.Raw, g.Raw)
	}
}

func TestOpsClientKillFilters(t *testing.T) {
	for _, proto := range []int{2, 3} {
		t.Run(fmt.Sprintf("RESP%d", proto), func(t *testing.T) {
			p := newDiffPairProto(t, proto)
			p.taint()
			k := p.Conn("K")
			a := p.Conn("A")
			m := p.Conn("M")
			m.Do("MONITOR")
			s := p.Conn("S")
			s.Do("SUBSCRIBE", "ch")
			b := p.Conn("B")
			b.Do("PING")
			// By address of B on each server.
			addrOf := map[*respConn]string{}
			for _, c := range []*respConn{b.redis, b.ours} {
				addrOf[c] = infoField(t, c, "addr")
			}
			killBoth(t, k, func(side *respConn, redis bool) []string {
				if redis {
					return []string{"ADDR", addrOf[b.redis]}
				}
				return []string{"ADDR", addrOf[b.ours]}
			})
			b.ExpectClosed(time.Second)
			// TYPE pubsub: the subscriber only.
			k.Do("CLIENT", "KILL", "TYPE", "pubsub")
			s.ExpectClosed(time.Second)
			k.Do("CLIENT", "KILL", "TYPE", "master")
			k.Do("CLIENT", "KILL", "TYPE", "replica")
			k.Do("CLIENT", "KILL", "TYPE", "slave")
			// LADDR of the killer itself with SKIPME no: everyone on
			// that local address, the killer too (its reply first).
			a.Do("PING")
			laddrOf := map[bool]string{true: infoField(t, k.redis, "laddr"), false: infoField(t, k.ours, "laddr")}
			killBoth(t, k, func(side *respConn, redis bool) []string {
				return []string{"LADDR", laddrOf[redis], "USER", "default", "SKIPME", "yes", "TYPE", "normal"}
			})
			a.ExpectClosed(time.Second)
			for _, c := range []*respConn{m.redis, m.ours} { // the monitor has its feed to read first
				if _, closed := c.ReadAllUntilClose(time.Second); !closed {
					t.Fatal("the monitor was not killed by TYPE normal")
				}
			}
			k.Do("CLIENT", "KILL", "USER", "default", "SKIPME", "no")
			k.ExpectClosed(time.Second)
		})
	}
}
