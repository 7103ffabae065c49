package test

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// ACL users from the config file and from the aclfile (issue 21 item 1):
// ACL LOAD / ACL SAVE, user directives, CONFIG REWRITE of user lines and
// the start-up errors, each compared with redis-server 7.0.15.

// aclFilePair starts one redis-server and one miniwatchd, each with its own
// directory (--dir) holding redis.conf (conf, given as the config file)
// and files; relative aclfile paths therefore read the same in both
// servers' messages. dirs[0] is redis-server's.
func aclFilePair(t *testing.T, proto int, conf string, files map[string]string) (*diffPair, [2]string) {
	t.Helper()
	requireRedis(t)
	var dirs [2]string
	var procs [2]*serverProc
	for i := range dirs {
		dirs[i] = t.TempDir()
		writeFile(t, filepath.Join(dirs[i], "redis.conf"), conf)
		for name, text := range files {
			writeFile(t, filepath.Join(dirs[i], name), text)
		}
		name, bin := redis, redisServerPath()
		if i == 1 && !selfCheck() {
			var err error
			name = ours
			if bin, err = ourBinary(); err != nil {
				t.Fatal(err)
			}
		}
		p, err := startProcConf(name, bin, filepath.Join(dirs[i], "redis.conf"), []string{"--dir", dirs[i]})
		if err != nil {
			t.Fatalf("starting %s: %v", name, err)
		}
		t.Cleanup(p.stop)
		procs[i] = p
	}
	p := &diffPair{t: t, proto: proto, conns: map[string]*diffConn{},
		redis: &leasedServer{serverProc: procs[0], tainted: true},
		ours:  &leasedServer{serverProc: procs[1], tainted: true}}
	return p, dirs
}

func writeFile(t *testing.T, path, text string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}

// writeBoth writes name in both servers' directories.
func writeBoth(t *testing.T, dirs [2]string, name, text string) {
	t.Helper()
	for _, d := range dirs {
		writeFile(t, filepath.Join(d, name), text)
	}
}

// sameFileLines requires the lines of name that keep (nil: all) to be
// equal in both directories.
func sameFileLines(t *testing.T, dirs [2]string, name string, keep func(string) bool) {
	t.Helper()
	var got [2][]string
	for i, d := range dirs {
		b, err := os.ReadFile(filepath.Join(d, name))
		if err != nil {
			t.Fatal(err)
		}
		for _, l := range strings.Split(string(b), "\n") {
			if keep == nil || keep(l) {
				got[i] = append(got[i], l)
			}
		}
	}
	if strings.Join(got[0], "\n") != strings.Join(got[1], "\n") {
		t.Fatalf("%s differs:\n--- redis-server:\n%s\n--- miniwatchd:\n%s", name, strings.Join(got[0], "\n"), strings.Join(got[1], "\n"))
	}
}

func bothProtocols(t *testing.T, fn func(t *testing.T, proto int)) {
	for _, proto := range []int{2, 3} {
		t.Run(fmt.Sprintf("RESP%d", proto), func(t *testing.T) { fn(t, proto) })
	}
}

// TestDiffACLFile: ACL LIST of the users an aclfile holds, ACL SAVE (the
// file written compared byte for byte), ACL LOAD's error report for bad
// files (nothing changes), a good file replacing the users and closing the
// clients of the replaced ones, a missing file, CONFIG REWRITE writing no
// user lines.
func TestDiffACLFile(t *testing.T) {
	bothProtocols(t, func(t *testing.T, proto int) {
		p, dirs := aclFilePair(t, proto, "aclfile users.acl\n", map[string]string{
			"users.acl": "user bob on >p ~k* +get\n\nuser alice off\n",
		})
		a, b := p.Conn("A"), p.Conn("B")
		a.Do("ACL", "LIST")
		a.Do("ACL", "SETUSER", "carol", "on", "nopass", "(+get ~x)", "&ch")
		a.Do("ACL", "SAVE")
		sameFileLines(t, dirs, "users.acl", nil)
		b.Do("AUTH", "bob", "p")
		b.Do("GET", "k1")
		writeBoth(t, dirs, "users.acl", "user a on bad1 bad2 +nosuch +nosuch2 ~* ~x\n# comment\nfoo bar\nuser a on\n"+
			"user a\tb on\nuser c on +get\tbad\nuser\nuser \"x y\" on\nuser 'unb\nuser d ~* ~x\nUSER e on\nuser   z\n")
		a.Do("ACL", "LOAD")
		a.Do("ACL", "LIST")
		b.Do("GET", "k1")
		writeBoth(t, dirs, "users.acl", "user default on nopass ~* &* +@all\n  user z   on   \t \r\n"+
			"user bob on >p ~* +@all\nuser y on (~x +get) ( ~y   +set )  &c\nuser w on %R~r* resetchannels &a &b -@all +@hash\n")
		a.Do("ACL", "LOAD")
		b.ExpectClosed(2 * time.Second)
		a.DoMode(cmpACLRules, "ACL", "LIST")
		a.Do("ACL", "LOAD", "extra")
		writeBoth(t, dirs, "users.acl", "")
		a.Do("ACL", "LOAD")
		a.Do("ACL", "LIST")
		for _, d := range dirs {
			os.Remove(filepath.Join(d, "users.acl"))
		}
		a.Do("ACL", "LOAD")
		a.Do("ACL", "SAVE")
		sameFileLines(t, dirs, "users.acl", nil)
		writeBoth(t, dirs, "users.acl", "user default off\n")
		a.Do("ACL", "LOAD")
		a.Do("PING")
		c := p.Conn("C")
		c.Do("PING")
		c.Do("AUTH", "x")
		a.Do("CONFIG", "REWRITE")
		sameFileLines(t, dirs, "redis.conf", func(l string) bool {
			return strings.HasPrefix(l, "user ") || strings.HasPrefix(l, "aclfile")
		})
	})
}

// TestDiffACLConfigUsers: user directives in the config file (a "user
// default" line starting from reset, selectors over several words,
// acl-pubsub-default), then CONFIG REWRITE writing every user.
func TestDiffACLConfigUsers(t *testing.T) {
	bothProtocols(t, func(t *testing.T, proto int) {
		conf := "user bob on >p ~k* +get (~y +set) resetchannels &c\nuser default on nopass ~* +@all\n" +
			"acl-pubsub-default allchannels\nuser carol on (%R~a" + " +@read)\n"
		p, dirs := aclFilePair(t, proto, conf, nil)
		a := p.Conn("A")
		a.Do("PING")
		a.Do("ACL", "LIST")
		a.Do("ACL", "SETUSER", "dave", "on", ">x", "(~d* +set)")
		a.Do("ACL", "DELUSER", "bob")
		a.Do("ACL", "LOAD")
		a.Do("ACL", "SAVE")
		a.Do("CONFIG", "REWRITE")
		sameFileLines(t, dirs, "redis.conf", func(l string) bool { return strings.HasPrefix(l, "user ") })
	})
}

// TestDiffACLStartErrors: configurations whose users stop the server, with
// Redis's report (the FATAL CONFIG FILE ERROR block, or the log lines
// logged before exiting) and exit status 1 from both servers.
func TestDiffACLStartErrors(t *testing.T) {
	requireRedis(t)
	ourBin, err := ourBinary()
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		conf  string
		files map[string]string
		want  []string // lines both servers must print
	}{
		{conf: "user bob on badrule\n", want: []string{">>> 'user bob on badrule'", "Error in user declaration 'bob': Syntax error"}},
		{conf: "user bob on ~a (~x foo)\n", want: []string{"Error in user declaration 'on': Syntax error"}},
		{conf: "user bob on (~x +get\n", want: []string{"Error in user declaration 'bob': Unknown command or category name in ACL"}},
		{conf: "user bob on (~x \"a\" +bad)\n", want: []string{"Error in user declaration 'bob': Syntax error"}},
		{conf: "user\n", want: []string{">>> 'user'", "Bad directive or wrong number of arguments"}},
		{conf: "user bob on >p\nuser bob off\n", want: []string{"Reading the configuration file, at line 2",
			"Error in user declaration 'bob': Duplicate user found. A user can only be defined once in config files"}},
		{conf: "acl-pubsub-default allchannels\nuser bob &x\n", want: []string{"Error in user declaration 'user': Adding a pattern after the * pattern (or the 'allchannels' flag) is not valid and does not have any effect. Try 'resetchannels' to start with an empty list of channels"}},
		{conf: "user bob on &c\nacl-pubsub-default allchannels\n", want: []string{
			"Error loading ACL rule '&c' for the user named 'bob': Adding a pattern after the * pattern (or the 'allchannels' flag) is not valid and does not have any effect. Try 'resetchannels' to start with an empty list of channels",
			"Critical error while loading ACLs. Exiting."}},
		{conf: "user bob on +nosuch\n", want: []string{
			"Error loading ACL rule '+nosuch' for the user named 'bob': Unknown command or category name in ACL",
			"Critical error while loading ACLs. Exiting."}},
		{conf: "aclfile users.acl\nuser bob on\n", files: map[string]string{"users.acl": "user x on\n"}, want: []string{
			"Configuring Redis with users defined in redis.conf and at the same setting an ACL file path is invalid. This setup is very likely to lead to configuration errors and security holes, please define either an ACL file or declare users directly in your redis.conf, but not both."}},
		{conf: "aclfile nonexist.acl\n", want: []string{
			"Aborting Redis startup because of ACL errors: Error loading ACLs, opening file 'nonexist.acl': No such file or directory"}},
		{conf: "aclfile users.acl\n", files: map[string]string{"users.acl": "user a on bad1\nuser b +nosuch\n"}, want: []string{
			"Aborting Redis startup because of ACL errors: users.acl:1: Syntax error. users.acl:2: Error in applying operation '+nosuch': Unknown command or category name in ACL. WARNING: ACL errors detected, no change to the previously active ACL rules was performed"}},
	}
	for i, tc := range cases {
		t.Run(strconv.Itoa(i), func(t *testing.T) {
			for _, bin := range []string{redisServerPath(), ourBin} {
				dir := t.TempDir()
				writeFile(t, filepath.Join(dir, "redis.conf"), tc.conf)
				for name, text := range tc.files {
					writeFile(t, filepath.Join(dir, name), text)
				}
				port, err := freePort()
				if err != nil {
					t.Fatal(err)
				}
				ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
				cmd := exec.CommandContext(ctx, bin, filepath.Join(dir, "redis.conf"), "--port", strconv.Itoa(port), "--dir", dir, "--save", "")
				out, err := cmd.CombinedOutput()
				cancel()
				if cmd.ProcessState == nil || cmd.ProcessState.ExitCode() != 1 {
					t.Errorf("%s with %q: %v, want exit status 1\n%s", filepath.Base(bin), tc.conf, err, out)
					continue
				}
				for _, w := range tc.want {
					if !containsLine(string(out), w) {
						t.Errorf("%s with %q: no line %q in:\n%s", filepath.Base(bin), tc.conf, w, out)
					}
				}
			}
		})
	}
}

// containsLine reports whether a line of out is want, or is a log line
// ("pid:M date # msg") whose message is want.
func containsLine(out, want string) bool {
	for _, l := range strings.Split(out, "\n") {
		if l == want {
			return true
		}
		if i := strings.Index(l, " # "); i >= 0 && l[i+3:] == want {
			return true
		}
		if i := strings.Index(l, " * "); i >= 0 && l[i+3:] == want {
			return true
		}
	}
	return false
}
