package server

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/miniwatchd/miniwatchd/aof"
)

// aofFillData writes a mix of keys over several databases.
func aofFillData(tc *aofConn) {
	tc.must("SET", "plain", "v")
	tc.must("SET", "bin", "a\x00b\r\n")
	tc.must("SET", "ttl", "v", "EX", "1000")
	tc.must("INCR", "counter")
	tc.must("INCRBYFLOAT", "float", "2.5")
	tc.must("APPEND", "app", "x")
	tc.must("APPEND", "app", "y")
	tc.must("MULTI")
	tc.must("SET", "tx1", "1")
	tc.must("SET", "tx2", "2")
	tc.must("EXEC")
	tc.must("SELECT", "5")
	tc.must("SET", "five", "5")
	tc.must("PEXPIREAT", "five", strconv.FormatInt(time.Now().UnixMilli()+10_000_000, 10))
	tc.must("SELECT", "0")
	tc.must("DEL", "plain")
	tc.must("SET", "plain", "again")
}

func TestAOFReloadRoundTrip(t *testing.T) {
	for _, fsync := range []string{"always", "everysec", "no"} {
		t.Run(fsync, func(t *testing.T) {
			dir := t.TempDir()
			s := startAOFServer(t, aofTestConfig(dir, fsync))
			tc := dialAOF(t, s)
			aofFillData(tc)
			want := aofDataset(t, tc)
			s.Close()
			s2 := startAOFServer(t, aofTestConfig(dir, fsync))
			if got := aofDataset(t, dialAOF(t, s2)); got != want {
				t.Fatalf("after reload:\n%s\nwant:\n%s", got, want)
			}
		})
	}
}

// aofLastIncr returns the path of the last incremental file of dir.
func aofLastIncr(t *testing.T, dir string) string {
	t.Helper()
	m, err := aof.LoadManifest(filepath.Join(dir, "appendonlydir"), "appendonly.aof")
	if err != nil || m == nil {
		t.Fatalf("manifest %v %v", m, err)
	}
	return filepath.Join(dir, "appendonlydir", m.Incr[len(m.Incr)-1].Name)
}

// aofCopyDir copies the AOF directory of src into a new temporary directory.
func aofCopyDir(t *testing.T, src string) string {
	t.Helper()
	dst := t.TempDir()
	os.MkdirAll(filepath.Join(dst, "appendonlydir"), 0o755)
	ents, _ := os.ReadDir(filepath.Join(src, "appendonlydir"))
	for _, e := range ents {
		b, err := os.ReadFile(filepath.Join(src, "appendonlydir", e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		os.WriteFile(filepath.Join(dst, "appendonlydir", e.Name()), b, 0o644)
	}
	return dst
}

// TestAOFTruncatedTail cuts the incremental file at every byte of its last
// two units (a SET and a MULTI/EXEC block): with aof-load-truncated yes
// the server starts with everything before the cut unit, never half a
// transaction, and truncates the file; with no it refuses, naming the
// offset.
func TestAOFTruncatedTail(t *testing.T) {
	dir := t.TempDir()
	s := startAOFServer(t, aofTestConfig(dir, "always"))
	tc := dialAOF(t, s)
	tc.must("SET", "first", "1")
	path := aofLastIncr(t, dir)
	st, _ := os.Stat(path)
	setStart := st.Size()
	tc.must("SET", "second", "2")
	st, _ = os.Stat(path)
	multiStart := st.Size()
	tc.must("MULTI")
	tc.must("SET", "a", "1")
	tc.must("SET", "b", "2")
	tc.must("EXEC")
	s.Close()
	full, _ := os.ReadFile(path)

	for cut := setStart + 1; cut < int64(len(full)); cut++ {
		if cut == multiStart {
			continue // a clean cut between two commands
		}
		d := aofCopyDir(t, dir)
		p := aofLastIncr(t, d)
		os.Truncate(p, cut)
		wantKeys, validUpTo := "first", setStart
		if cut >= multiStart {
			wantKeys, validUpTo = "first second", multiStart
		}
		cfg := aofTestConfig(d, "always")
		cfg.AOFLoadTruncated = false
		if _, err := New(cfg); err == nil || !strings.Contains(err.Error(), "byte offset "+strconv.FormatInt(validUpTo, 10)) {
			t.Fatalf("cut %d with aof-load-truncated no: %v", cut, err)
		}
		s := startAOFServer(t, aofTestConfig(d, "always"))
		tc := dialAOF(t, s)
		keys := tc.must("KEYS", "*").([]any)
		var names []string
		for _, k := range keys {
			names = append(names, k.(string))
		}
		if got := strings.Join(aofSorted(names), " "); got != wantKeys {
			t.Fatalf("cut %d: keys %q, want %q", cut, got, wantKeys)
		}
		s.Close()
		if st, _ := os.Stat(p); st.Size() != validUpTo {
			t.Fatalf("cut %d: file is %d bytes, want truncated to %d", cut, st.Size(), validUpTo)
		}
	}
}

func aofSorted(s []string) []string {
	for i := 1; i < len(s); i++ {
		for j := i; j > 0 && s[j] < s[j-1]; j-- {
			s[j], s[j-1] = s[j-1], s[j]
		}
	}
	return s
}

// TestAOFRefusesCorruptFiles: a damaged file, an unknown command, a bad
// argument count or a truncated file that is not the last one refuse to
// start with a message naming the file and the byte offset.
func TestAOFRefusesCorruptFiles(t *testing.T) {
	dir := t.TempDir()
	s := startAOFServer(t, aofTestConfig(dir, "everysec"))
	tc := dialAOF(t, s)
	tc.must("SET", "k1", "v1")
	tc.must("SET", "k2", "v2")
	s.Close()
	full, _ := os.ReadFile(aofLastIncr(t, dir))
	second := strings.Index(string(full), "*3\r\n$3\r\nSET\r\n$2\r\nk2")

	tests := []struct {
		name   string
		edit   func(b []byte) []byte
		expect string
	}{
		{"bad byte", func(b []byte) []byte { b[second+4] = '?'; return b },
			"Bad file format reading the append only file appendonly.aof.1.incr.aof at byte offset " + strconv.Itoa(second+4)},
		{"unknown command", func(b []byte) []byte {
			return append(b, aof.AppendCommandStrings(nil, "NOSUCH", "x")...)
		}, "Unknown command 'NOSUCH' reading the append only file appendonly.aof.1.incr.aof at byte offset " + strconv.Itoa(len(full))},
		{"wrong arity", func(b []byte) []byte {
			return append(b, aof.AppendCommandStrings(nil, "GET")...)
		}, "wrong number of arguments for 'get' at byte offset " + strconv.Itoa(len(full))},
	}
	for _, tt := range tests {
		d := aofCopyDir(t, dir)
		p := aofLastIncr(t, d)
		os.WriteFile(p, tt.edit(append([]byte(nil), full...)), 0o644)
		_, err := New(aofTestConfig(d, "everysec"))
		if err == nil || !strings.Contains(err.Error(), tt.expect) {
			t.Errorf("%s: got %v, want %q", tt.name, err, tt.expect)
		}
	}

	// A truncated file followed by another one.
	d := aofCopyDir(t, dir)
	m, _ := aof.LoadManifest(filepath.Join(d, "appendonlydir"), "appendonly.aof")
	os.Truncate(aofLastIncr(t, d), int64(len(full)-3))
	m.NewIncr("appendonly.aof")
	os.WriteFile(filepath.Join(d, "appendonlydir", "appendonly.aof.2.incr.aof"), nil, 0o644)
	aof.WriteManifest(filepath.Join(d, "appendonlydir"), "appendonly.aof", m)
	if _, err := New(aofTestConfig(d, "everysec")); err == nil || !strings.Contains(err.Error(), "the truncated file is not the last file") {
		t.Errorf("truncated middle file: %v", err)
	}

	// A manifest naming a missing file.
	d = aofCopyDir(t, dir)
	os.Remove(aofLastIncr(t, d))
	if _, err := New(aofTestConfig(d, "everysec")); err == nil || !strings.Contains(err.Error(), "Unable to obtain the AOF file appendonly.aof.1.incr.aof length") {
		t.Errorf("missing file: %v", err)
	}
}

// TestAOFKeysExpiredWhileDown: a key whose deadline passed while the server
// was down is loaded without expiring in the middle of the replay (so later
// commands on it replay as they ran), then expired and its DEL logged.
func TestAOFKeysExpiredWhileDown(t *testing.T) {
	dir := t.TempDir()
	s := startAOFServer(t, aofTestConfig(dir, "always"))
	tc := dialAOF(t, s)
	tc.must("SET", "short", "v", "PX", "200")
	tc.must("APPEND", "short", "+more")
	tc.must("SET", "long", "v", "EX", "1000")
	s.Close()
	time.Sleep(300 * time.Millisecond)
	s2 := startAOFServer(t, aofTestConfig(dir, "always"))
	tc = dialAOF(t, s2)
	if v := tc.must("GET", "short"); v != "<nil>" {
		t.Fatalf("short = %v, want expired", v)
	}
	if v := tc.must("GET", "long"); v != "v" {
		t.Fatalf("long = %v", v)
	}
	s2.Close()
	if got := aofIncrText(t, dir); !strings.HasSuffix(got, "\nSELECT 0\nDEL short") {
		t.Fatalf("expiry after load not logged:\n%s", got)
	}
}

// TestAOFUpgradesOldStyleFile: an appendonly.aof in dir (Redis 6) becomes
// the base of a new AOF directory.
func TestAOFUpgradesOldStyleFile(t *testing.T) {
	dir := t.TempDir()
	old := aof.AppendCommandStrings(nil, "SELECT", "0")
	old = aof.AppendCommandStrings(old, "SET", "legacy", "yes")
	os.WriteFile(filepath.Join(dir, "appendonly.aof"), old, 0o644)
	s := startAOFServer(t, aofTestConfig(dir, "everysec"))
	tc := dialAOF(t, s)
	if v := tc.must("GET", "legacy"); v != "yes" {
		t.Fatalf("legacy = %v", v)
	}
	manifest, files := aofDirFiles(t, dir)
	if !strings.HasPrefix(manifest, "file appendonly.aof seq 1 type b\n") {
		t.Fatalf("manifest %q files %v", manifest, files)
	}
	if _, err := os.Stat(filepath.Join(dir, "appendonly.aof")); !os.IsNotExist(err) {
		t.Fatal("old file not moved")
	}
}

// TestAOFRemovesStaleTempFiles: files a rewrite left when its process died
// are removed at start-up; the files the manifest names are kept.
func TestAOFRemovesStaleTempFiles(t *testing.T) {
	dir := t.TempDir()
	s := startAOFServer(t, aofTestConfig(dir, "everysec"))
	dialAOF(t, s).must("SET", "k", "v")
	s.Close()
	ad := filepath.Join(dir, "appendonlydir")
	for _, n := range []string{"temp-rewriteaof-bg-12345.aof", "temp-rewriteaof-99.aof", "temp-appendonly.aof.incr"} {
		os.WriteFile(filepath.Join(ad, n), []byte("junk"), 0o644)
	}
	s2 := startAOFServer(t, aofTestConfig(dir, "everysec"))
	if v := dialAOF(t, s2).must("GET", "k"); v != "v" {
		t.Fatalf("k = %v", v)
	}
	_, files := aofDirFiles(t, dir)
	if strings.Join(files, " ") != "appendonly.aof.1.base.aof appendonly.aof.1.incr.aof appendonly.aof.manifest" {
		t.Fatalf("files %v", files)
	}
}
