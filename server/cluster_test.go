package server

import (
	"testing"

	"github.com/miniwatchd/miniwatchd/db"
)

// getNodeByQuery's walk of a plain command's keys allocates nothing.
func TestGetNodeByQueryNoAllocs(t *testing.T) {
	cfg := DefaultConfig()
	cfg.Port = 0
	cfg.Dir = t.TempDir()
	cfg.Params = map[string]string{"cluster-enabled": "yes"}
	s, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	s.mu.Lock()
	defer s.mu.Unlock()
	c := &client{srv: s, db: s.ks.DB(0)}
	get := s.table.lookupName("get")
	mget := s.table.lookupName("mget")
	args := [][]byte{[]byte("get"), []byte("{u}a")}
	margs := [][]byte{[]byte("mget"), []byte("{u}a"), []byte("{u}b"), []byte("{u}c")}
	s.getNodeByQueryLocked(c, mget, margs) // sizes the scratch buffer
	if n := testing.AllocsPerRun(100, func() {
		if node, _, _ := s.getNodeByQueryLocked(c, get, args); node != s.cluster.st.Myself {
			t.Fatal("GET not served here")
		}
		s.getNodeByQueryLocked(c, mget, margs)
	}); n != 0 {
		t.Fatalf("getNodeByQuery allocates %.1f times per GET+MGET", n)
	}
}

// Keys loaded at start into slots the node does not serve are taken or
// imported (verifyClusterConfigWithData); keys outside db 0 fail the start.
func TestClusterVerifyData(t *testing.T) {
	dir := t.TempDir()
	cfg := DefaultConfig()
	cfg.Port = 0
	cfg.Dir = dir
	cfg.Params = map[string]string{"cluster-enabled": "yes", "appendonly": "no"}
	s, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	s.mu.Lock()
	s.cluster.st.DelSlot(12182)
	s.ks.DB(0).SetString([]byte("foo"), []byte("v"), db.TTLClear, 0, db.EvSet)
	if err := s.clusterVerifyDataLocked(); err != nil {
		t.Fatal(err)
	}
	if s.cluster.st.Owner(12182) != s.cluster.st.Myself {
		t.Fatal("the unassigned slot of a loaded key was not taken")
	}
	s.ks.DB(1).SetString([]byte("k"), []byte("v"), db.TTLClear, 0, db.EvSet)
	if err := s.clusterVerifyDataLocked(); err == nil {
		t.Fatal("a key in db 1 passed")
	}
	s.mu.Unlock()
	s.Close()
}
