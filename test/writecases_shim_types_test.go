package test

// A stand-in for the shared write-breaks-WATCH registry and runner, with
// the same names and fields, until the shared test harness (which defines
// writeCase, writeCases and addWriteCases in writecases_test.go) is merged:
// then this file is deleted and writecases_{hash,set,zset}_test.go register
// into the shared registry unchanged.

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// writeCase is one check of one write command: connection B runs Setup,
// connection A selects WatchDB and watches Key ("k" when empty), B runs
// Write (or NoOp), and A runs MULTI / PING / EXEC, which must return nil
// after Write and [PONG] after NoOp.
type writeCase struct {
	Name         string
	Setup        [][]string
	WatchDB      int
	Key          string
	Write        []string
	NoOp         []string
	NoOpReason   string
	NeverTouches string
	AnyReply     bool
}

// writeCases maps a command's full lower-case name to its cases.
var writeCases = map[string][]writeCase{}

// addWriteCases registers cases for a command (call from init).
func addWriteCases(command string, cases ...writeCase) {
	command = strings.ToLower(command)
	writeCases[command] = append(writeCases[command], cases...)
}

// typesWriteCommands are the write commands of the hash, set and sorted set
// families, each of which needs a case.
var typesWriteCommands = []string{
	"hset", "hmset", "hsetnx", "hdel", "hincrby", "hincrbyfloat",
	"sadd", "srem", "spop", "smove", "sinterstore", "sunionstore", "sdiffstore",
	"zadd", "zincrby", "zrem", "zremrangebyrank", "zremrangebyscore", "zremrangebylex",
	"zpopmin", "zpopmax", "zmpop", "zrangestore", "zunionstore", "zinterstore", "zdiffstore",
}

// TestTypesWriteCommandsHaveCases checks that every write command of the
// three families is flagged write by miniwatchd and has a case.
func TestTypesWriteCommandsHaveCases(t *testing.T) {
	addr := tpStartOurs(t)
	c := tpDial(t, addr)
	for _, name := range typesWriteCommands {
		info, err := c.do("COMMAND", "INFO", name)
		if err != nil || len(info.Elems) != 1 || len(info.Elems[0].Elems) < 3 {
			t.Fatalf("COMMAND INFO %s: %v %s", name, err, info)
		}
		write := false
		for _, f := range info.Elems[0].Elems[2].Elems {
			write = write || f.Str == "write"
		}
		if !write {
			t.Errorf("%s is not flagged write", name)
		}
		if len(writeCases[name]) == 0 {
			t.Errorf("%s has no write-breaks-WATCH case", name)
		}
		for i, wc := range writeCases[name] {
			if !strings.EqualFold(wc.Write[0], name) {
				t.Errorf("%s case %d (%s): Write runs %q", name, i, wc.Name, wc.Write)
			}
			if (wc.NoOp == nil) == (wc.NoOpReason == "" && wc.NeverTouches == "") {
				t.Errorf("%s case %d (%s): needs exactly one of NoOp, NoOpReason, NeverTouches", name, i, wc.Name)
			}
		}
	}
}

// TestTypesWriteBreaksWatch runs the cases of the three families against
// redis-server (which proves each case right) and miniwatchd.
func TestTypesWriteBreaksWatch(t *testing.T) {
	p := newTPPair(t, 2)
	names := make([]string, 0, len(writeCases))
	for name := range writeCases {
		names = append(names, name)
	}
	slices.Sort(names)
	runs := 0
	for _, name := range names {
		for i, wc := range writeCases[name] {
			label := name + "/" + strconv.Itoa(i) + " " + wc.Name
			variants := []struct {
				cmd   []string
				abort bool
			}{{wc.Write, wc.NeverTouches == ""}}
			if wc.NoOp != nil {
				variants = append(variants, struct {
					cmd   []string
					abort bool
				}{wc.NoOp, false})
			} else if wc.NoOpReason == "" && wc.NeverTouches == "" {
				t.Errorf("%s: neither NoOp nor NoOpReason", label)
			}
			for _, v := range variants {
				want, wantReply, err := tpWatchRound(t, p.redisAddr, wc, v.cmd)
				if err != nil {
					t.Fatalf("%s %q on redis-server: %v", label, v.cmd, err)
				}
				got, gotReply, err := tpWatchRound(t, p.oursAddr, wc, v.cmd)
				if err != nil {
					t.Fatalf("%s %q on miniwatchd: %v", label, v.cmd, err)
				}
				runs++
				if want != v.abort {
					t.Errorf("case %s is wrong: redis-server's EXEC aborted=%v after %q", label, want, v.cmd)
					continue
				}
				if got != want {
					t.Errorf("%s: after %q miniwatchd's EXEC aborted=%v, redis-server's %v", label, v.cmd, got, want)
				}
				if !wc.AnyReply && wantReply != gotReply {
					t.Errorf("%s: %q replied %q, redis-server %q", label, v.cmd, gotReply, wantReply)
				}
			}
		}
	}
	t.Logf("%d write-breaks-WATCH rounds on each server", runs)
}

// tpWatchRound runs one variant on one server: FLUSHALL, setup, WATCH, the
// command, MULTI / PING / EXEC. It reports whether EXEC aborted and the
// command's raw reply.
func tpWatchRound(t *testing.T, addr string, wc writeCase, cmd []string) (bool, string, error) {
	a, b := tpDial(t, addr), tpDial(t, addr)
	defer a.nc.Close()
	defer b.nc.Close()
	ok := func(c *tpConn, args ...string) error {
		n, err := c.do(args...)
		if err != nil {
			return err
		}
		if n.Kind == '-' {
			return fmt.Errorf("%q failed: %s", args, n.Str)
		}
		return nil
	}
	if err := ok(b, "FLUSHALL"); err != nil {
		return false, "", err
	}
	for _, s := range wc.Setup {
		if err := ok(b, s...); err != nil {
			return false, "", fmt.Errorf("setup: %v", err)
		}
	}
	key := wc.Key
	if key == "" {
		key = "k"
	}
	if err := ok(a, "SELECT", strconv.Itoa(wc.WatchDB)); err != nil {
		return false, "", err
	}
	if err := ok(a, "WATCH", key); err != nil {
		return false, "", err
	}
	reply, err := b.do(cmd...)
	if err != nil {
		return false, "", err
	}
	for _, s := range []string{"MULTI", "PING"} {
		if err := ok(a, s); err != nil {
			return false, "", err
		}
	}
	exec, err := a.do("EXEC")
	if err != nil {
		return false, "", err
	}
	switch {
	case exec.Kind == '*' && exec.Null:
		return true, string(reply.Raw), nil
	case exec.Kind == '*' && len(exec.Elems) == 1 && exec.Elems[0].Str == "PONG":
		return false, string(reply.Raw), nil
	}
	return false, "", fmt.Errorf("unexpected EXEC reply %s", exec)
}
