package miniwatchd

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
)

// The Check helpers compare the state of the database chosen by Select with
// what a test expects and report a mismatch through t.Errorf, naming the
// key, what was wanted and what is there, as the standard library's tests
// do ("key: got X, want Y"). They return whether the state matched.

// CheckGet checks that key holds the string want.
func (s *Server) CheckGet(t testing.TB, key, want string) bool {
	t.Helper()
	got, err := s.Get(key)
	if err != nil {
		t.Errorf("GET %q: %v, want %q", key, err, want)
		return false
	}
	if got != want {
		t.Errorf("GET %q = %q, want %q", key, got, want)
		return false
	}
	return true
}

// CheckList checks that key is a list of exactly want, head first.
func (s *Server) CheckList(t testing.TB, key string, want ...string) bool {
	t.Helper()
	got, err := s.List(key)
	if err != nil {
		t.Errorf("list %q: %v, want %q", key, err, want)
		return false
	}
	if !slices.Equal(got, want) {
		t.Errorf("list %q = %q, want %q", key, got, want)
		return false
	}
	return true
}

// CheckSet checks that key is a set of exactly the members want, in any
// order.
func (s *Server) CheckSet(t testing.TB, key string, want ...string) bool {
	t.Helper()
	got, err := s.Members(key)
	if err != nil {
		t.Errorf("set %q: %v, want %q", key, err, want)
		return false
	}
	w := slices.Sorted(slices.Values(want))
	if !slices.Equal(got, w) {
		t.Errorf("set %q = %q, want %q", key, got, w)
		return false
	}
	return true
}

// CheckTTL checks that key exists and has want left to live (want 0: no
// TTL): exactly, to the millisecond, while the clock is frozen; on a
// running clock up to a second less, the time the test took meanwhile.
func (s *Server) CheckTTL(t testing.TB, key string, want time.Duration) bool {
	t.Helper()
	got, err := s.TTL(key)
	if err != nil {
		t.Errorf("TTL %q: %v, want %v", key, err, want)
		return false
	}
	if d := want - got; d < -time.Millisecond || d >= time.Second || (want == 0) != (got == 0) {
		t.Errorf("TTL %q = %v, want %v", key, got, want)
		return false
	}
	return true
}

// CheckKeys checks that the database holds exactly the keys want.
func (s *Server) CheckKeys(t testing.TB, want ...string) bool {
	t.Helper()
	got := s.Keys()
	w := slices.Sorted(slices.Values(want))
	if !slices.Equal(got, w) {
		t.Errorf("keys = %q, want %q", got, w)
		return false
	}
	return true
}

// FastForward moves the server's clock forward by d (whole milliseconds;
// DEBUG CLOCK ADVANCE) and then deletes every key whose deadline has
// passed, through the expiry path with its keyspace events, as the active
// expiry cycle soon would (DEBUG ACTIVE-EXPIRE-CYCLE).
func (s *Server) FastForward(d time.Duration) {
	s.t.Helper()
	s.mustDo("DEBUG", "CLOCK", "ADVANCE", strconv.FormatInt(d.Milliseconds(), 10))
	s.mustDo("DEBUG", "ACTIVE-EXPIRE-CYCLE")
}

// SetTime moves the server's clock to tm (DEBUG CLOCK SET); it keeps
// running from there unless frozen (DEBUG CLOCK FREEZE). Keys past their
// deadline at tm expire as FastForward's do.
func (s *Server) SetTime(tm time.Time) {
	s.t.Helper()
	s.mustDo("DEBUG", "CLOCK", "SET", strconv.FormatInt(tm.UnixMilli(), 10))
	s.mustDo("DEBUG", "ACTIVE-EXPIRE-CYCLE")
}

// mustDo is Do for commands that cannot fail.
func (s *Server) mustDo(args ...string) any {
	s.t.Helper()
	v, err := s.Do(args...)
	if err != nil {
		s.t.Fatalf("miniwatchd: %s: %v", strings.Join(args, " "), err)
	}
	return v
}

// Dump returns a readable listing of every key of every database, one key
// a line with its type, TTL and value, for failure messages:
//
//	db0 "greeting" string "hello"
//	db0 "queue" list ["a" "b"] ttl=10s
func (s *Server) Dump() string {
	s.t.Helper()
	srv := s.Engine()
	c := srv.NewLocalClient("miniwatchd-dump")
	defer c.Close()
	d := &Server{t: s.t, local: c}
	var b strings.Builder
	dbs, _ := strs(d.Do("CONFIG", "GET", "databases"))
	n := 16
	if len(dbs) == 2 {
		n, _ = strconv.Atoi(dbs[1])
	}
	for db := 0; db < n; db++ {
		if d.Select(db) != nil {
			break
		}
		for _, k := range d.Keys() {
			fmt.Fprintf(&b, "db%d %q %s %s", db, k, d.Type(k), d.dumpValue(k))
			if ttl, _ := d.TTL(k); ttl > 0 {
				fmt.Fprintf(&b, " ttl=%v", ttl)
			}
			b.WriteByte('\n')
		}
	}
	return b.String()
}

// dumpValue renders one key's value for Dump.
func (s *Server) dumpValue(key string) string {
	var v any
	switch s.Type(key) {
	case "string":
		v, _ = s.Get(key)
		return strconv.Quote(v.(string))
	case "list":
		v, _ = s.List(key)
	case "set":
		v, _ = s.Members(key)
	case "hash":
		m, _ := s.HGetAll(key)
		keys := make([]string, 0, len(m))
		for k := range m {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		parts := make([]string, len(keys))
		for i, k := range keys {
			parts[i] = fmt.Sprintf("%q:%q", k, m[k])
		}
		return "{" + strings.Join(parts, " ") + "}"
	case "zset":
		kv, _ := strs(s.Do("ZRANGE", key, "0", "-1", "WITHSCORES"))
		parts := make([]string, 0, len(kv)/2)
		for i := 0; i+1 < len(kv); i += 2 {
			parts = append(parts, fmt.Sprintf("%q:%s", kv[i], kv[i+1]))
		}
		return "[" + strings.Join(parts, " ") + "]"
	case "stream":
		es, _ := s.XRange(key, "-", "+")
		parts := make([]string, len(es))
		for i, e := range es {
			parts[i] = fmt.Sprintf("%s%q", e.ID, e.Fields)
		}
		return "[" + strings.Join(parts, " ") + "]"
	default:
		return "?"
	}
	return fmt.Sprintf("%q", v)
}

// LoadFixture runs a fixture file, redis-cli-style command lines (DEBUG
// LOAD-FIXTURE; the binary's --load FILE), and returns how many commands
// ran. The first error reply stops it and is returned with its line.
func (s *Server) LoadFixture(file string) (int, error) {
	s.t.Helper()
	return integer(s.Do("DEBUG", "LOAD-FIXTURE", file))
}
