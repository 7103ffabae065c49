package test

import (
	"fmt"
	"sort"
	"strconv"
	"strings"
	"testing"
)

// The write-breaks-WATCH meta-test: every command miniwatchd flags "write"
// (COMMAND's own flags, subcommands included) must have at least one case in
// writeCases proving, on redis-server and on miniwatchd alike, that it
// aborts a watcher's EXEC when it changes the key, and that its no-op form
// does not. Each command family adds its cases in its own file,
// writecases_<family>_test.go, from an init function:
//
//	func init() {
//		addWriteCases("lpush", writeCase{Write: []string{"LPUSH", "k", "a"}, NoOp: ...})
//	}

// writeCase is one check of one write command. Every case runs twice per
// server, from an empty dataset: connection B runs Setup, connection A
// selects WatchDB and watches Key, B runs Write (or NoOp), and A runs
// MULTI / PING / EXEC, which must return nil after Write and [PONG] after
// NoOp.
type writeCase struct {
	Name    string     // optional label shown in the test name
	Setup   [][]string // run by B first; a SELECT here leaves B in that db
	WatchDB int        // db A watches in
	Key     string     // watched key; "k" when empty
	Write   []string   // must abort A's EXEC
	// NoOp is a form of the command that changes nothing and must not
	// abort A's EXEC; when there is none, NoOpReason says why.
	NoOp       []string
	NoOpReason string
	// NeverTouches, when set, says why Write does not touch the watched key
	// (FUNCTION FLUSH writes no key; COPY leaves its source alone): then
	// Write must NOT abort, and there is no NoOp.
	NeverTouches string
	// AnyReply skips comparing B's replies between the servers (replies
	// that are random, like SPOP's).
	AnyReply bool
}

// writeCases maps a command's full lower-case name ("set", "config|set")
// to its cases.
var writeCases = map[string][]writeCase{}

// addWriteCases registers cases for a command (call from init).
func addWriteCases(command string, cases ...writeCase) {
	command = strings.ToLower(command)
	writeCases[command] = append(writeCases[command], cases...)
}

// TestWriteCommandsHaveCases fails for every command miniwatchd flags
// "write" that has no case in writeCases.
func TestWriteCommandsHaveCases(t *testing.T) {
	writes := ourWriteCommands(t)
	if len(writes) == 0 {
		t.Fatal("miniwatchd's COMMAND lists no write command")
	}
	var missing []string
	for _, name := range writes {
		if len(writeCases[name]) == 0 {
			missing = append(missing, name)
		}
	}
	if len(missing) > 0 {
		t.Errorf("write commands without a write-breaks-WATCH case (add them in test/writecases_<family>_test.go): %s",
			strings.Join(missing, " "))
	}
	t.Logf("%d write commands, all with cases", len(writes))
}

// TestWriteCasesWellFormed checks the registry itself.
func TestWriteCasesWellFormed(t *testing.T) {
	for name, cases := range writeCases {
		for i, wc := range cases {
			if err := wc.check(); err != nil {
				t.Errorf("%s case %d (%s): %v", name, i, wc.Name, err)
			}
			if len(wc.Write) > 0 && !strings.EqualFold(commandName(wc.Write), name) {
				t.Errorf("%s case %d (%s): Write runs %q, not %s", name, i, wc.Name, wc.Write, name)
			}
		}
	}
}

func (wc writeCase) check() error {
	switch {
	case len(wc.Write) == 0:
		return fmt.Errorf("no Write command")
	case wc.NeverTouches != "" && (wc.NoOp != nil || wc.NoOpReason != ""):
		return fmt.Errorf("NeverTouches with a NoOp or NoOpReason")
	case wc.NeverTouches == "" && wc.NoOp == nil && wc.NoOpReason == "":
		return fmt.Errorf("neither NoOp nor NoOpReason")
	case wc.NoOp != nil && wc.NoOpReason != "":
		return fmt.Errorf("both NoOp and NoOpReason")
	}
	return nil
}

// commandName is the full name a command line runs: "config|set" for
// CONFIG SET when the first word is a container in writeCases' sense.
func commandName(args []string) string {
	name := strings.ToLower(args[0])
	if len(args) > 1 {
		switch name {
		case "config", "function", "client", "object", "script", "xgroup", "xinfo", "memory", "cluster", "acl", "module", "command", "slowlog", "latency", "pubsub":
			return name + "|" + strings.ToLower(args[1])
		}
	}
	return name
}

// TestWriteBreaksWatch runs every case against redis-server (which proves
// the case right) and against miniwatchd.
func TestWriteBreaksWatch(t *testing.T) {
	requireRedis(t)
	names := make([]string, 0, len(writeCases))
	for name := range writeCases {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			if missing := missingCommands(t, []string{name}); len(missing) > 0 && !selfCheck() {
				t.Skipf("miniwatchd does not implement %s yet", name)
			}
			p := newDiffPair(t)
			for i, wc := range writeCases[name] {
				label := wc.Name
				if label == "" {
					label = strconv.Itoa(i)
				}
				if err := wc.check(); err != nil {
					t.Errorf("case %s: %v", label, err)
					continue
				}
				runWriteCase(t, p, label, wc)
			}
		})
	}
}

// runWriteCase runs one case's variants on both servers.
func runWriteCase(t *testing.T, p *diffPair, label string, wc writeCase) {
	t.Helper()
	type variant struct {
		what      string
		cmd       []string
		wantAbort bool
	}
	variants := []variant{{"write", wc.Write, wc.NeverTouches == ""}}
	if wc.NoOp != nil {
		variants = append(variants, variant{"no-op", wc.NoOp, false})
	}
	for _, v := range variants {
		want, err := watchRound(p.redis, wc, v.cmd)
		if err != nil {
			t.Errorf("case %s, %s %q on redis-server: %v", label, v.what, v.cmd, err)
			continue
		}
		got, err := watchRound(p.ours, wc, v.cmd)
		if err != nil {
			t.Errorf("case %s, %s %q on miniwatchd: %v", label, v.what, v.cmd, err)
			continue
		}
		if want.aborted != v.wantAbort {
			t.Errorf("case %s is wrong: on redis-server, %s %q left EXEC %s (reply %s)",
				label, v.what, v.cmd, abortWord(want.aborted), fmtNode(want.reply))
			continue
		}
		if got.aborted != v.wantAbort {
			t.Errorf("case %s: on miniwatchd, %s %q left EXEC %s; redis-server: %s (write replied %s here, %s there)",
				label, v.what, v.cmd, abortWord(got.aborted), abortWord(want.aborted), fmtNode(got.reply), fmtNode(want.reply))
		}
		if !wc.AnyReply && string(want.reply.Raw) != string(got.reply.Raw) {
			t.Errorf("case %s, %s %q replied differently\n  redis-server: %s\n  miniwatchd:   %s",
				label, v.what, v.cmd, fmtNode(want.reply), fmtNode(got.reply))
		}
	}
}

func abortWord(aborted bool) string {
	if aborted {
		return "aborted (nil)"
	}
	return "running ([PONG])"
}

type roundResult struct {
	aborted bool
	reply   node // the reply to the write
}

// watchRound runs one variant on one server: FLUSHALL, setup, WATCH, the
// command, MULTI / PING / EXEC.
func watchRound(srv *leasedServer, wc writeCase, cmd []string) (roundResult, error) {
	a, err := dialRESP(srv.addr)
	if err != nil {
		return roundResult{}, err
	}
	defer a.Close()
	b, err := dialRESP(srv.addr)
	if err != nil {
		return roundResult{}, err
	}
	defer b.Close()
	expectOK := func(c *respConn, args ...string) error {
		n, err := c.Do(args...)
		if err != nil {
			return fmt.Errorf("%q: %v", args, err)
		}
		if n.IsError() {
			return fmt.Errorf("%q failed: %s", args, n.Str)
		}
		return nil
	}
	if err := expectOK(b, "FLUSHALL"); err != nil {
		return roundResult{}, err
	}
	for _, s := range wc.Setup {
		if err := expectOK(b, s...); err != nil {
			return roundResult{}, fmt.Errorf("setup %v", err)
		}
	}
	key := wc.Key
	if key == "" {
		key = "k"
	}
	if err := expectOK(a, "SELECT", strconv.Itoa(wc.WatchDB)); err != nil {
		return roundResult{}, err
	}
	if err := expectOK(a, "WATCH", key); err != nil {
		return roundResult{}, err
	}
	cmd, err = expandWriteArgs(cmd)
	if err != nil {
		return roundResult{}, err
	}
	reply, err := b.Do(cmd...)
	if err != nil {
		return roundResult{}, err
	}
	if err := expectOK(a, "MULTI"); err != nil {
		return roundResult{}, err
	}
	if err := expectOK(a, "PING"); err != nil {
		return roundResult{}, err
	}
	exec, err := a.Do("EXEC")
	if err != nil {
		return roundResult{}, err
	}
	switch {
	case exec.Kind == '*' && exec.Null:
		return roundResult{true, reply}, nil
	case exec.Kind == '*' && len(exec.Elems) == 1 && exec.Elems[0].Str == "PONG":
		return roundResult{false, reply}, nil
	}
	return roundResult{}, fmt.Errorf("unexpected EXEC reply %s", fmtNode(exec))
}
