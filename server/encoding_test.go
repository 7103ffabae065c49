package server

import (
	"testing"

	"github.com/miniwatchd/miniwatchd/db"
)

// TestEncodingLimitsFollowConfig checks that the keyspace gets the
// configured thresholds at start-up and after CONFIG SET, aliases included,
// and keeps them when a CONFIG SET fails.
func TestEncodingLimitsFollowConfig(t *testing.T) {
	cfg := DefaultConfig()
	cfg.HashMaxListpackEntries = 7
	cfg.ZSetMaxListpackValue = 9
	s, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	want := db.DefaultEncodingLimits()
	want.HashMaxListpackEntries = 7
	want.ZSetMaxListpackValue = 9
	if got := s.ks.EncodingLimits(); got != want {
		t.Fatalf("at start-up: %+v, want %+v", got, want)
	}
	steps := []struct {
		args []string
		ok   bool
		edit func(l *db.EncodingLimits)
	}{
		{[]string{"hash-max-listpack-entries", "3"}, true, func(l *db.EncodingLimits) { l.HashMaxListpackEntries = 3 }},
		{[]string{"hash-max-ziplist-value", "10"}, true, func(l *db.EncodingLimits) { l.HashMaxListpackValue = 10 }},
		{[]string{"set-max-intset-entries", "0"}, true, func(l *db.EncodingLimits) { l.SetMaxIntsetEntries = 0 }},
		{[]string{"zset-max-ziplist-entries", "1", "zset-max-listpack-value", "2"}, true, func(l *db.EncodingLimits) {
			l.ZSetMaxListpackEntries = 1
			l.ZSetMaxListpackValue = 2
		}},
		{[]string{"zset-max-listpack-value", "-1"}, false, nil},
		{[]string{"set-max-intset-entries", "12", "hz", "abc"}, false, nil},
	}
	for _, st := range steps {
		args := make([][]byte, len(st.args))
		for i, a := range st.args {
			args[i] = []byte(a)
		}
		s.mu.Lock()
		err := s.params.set(args)
		s.mu.Unlock()
		if (err == nil) != st.ok {
			t.Fatalf("CONFIG SET %q: %v", st.args, err)
		}
		if st.edit != nil {
			st.edit(&want)
		}
		if got := s.ks.EncodingLimits(); got != want {
			t.Fatalf("after CONFIG SET %q: %+v, want %+v", st.args, got, want)
		}
	}
}
