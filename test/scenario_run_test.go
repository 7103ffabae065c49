package test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestDiffScenarios runs every scenario of testdata/diff/*.txt against
// redis-server and miniwatchd, in RESP2 and RESP3 unless the scenario says
// otherwise, on fresh connections to servers emptied by FLUSHALL.
func TestDiffScenarios(t *testing.T) {
	files, err := filepath.Glob(filepath.Join("testdata", "diff", "*.txt"))
	if err != nil {
		t.Fatal(err)
	}
	if len(files) == 0 {
		t.Fatal("no scenario files in testdata/diff")
	}
	for _, file := range files {
		scens, err := loadScenarios(file)
		if err != nil {
			t.Fatal(err)
		}
		t.Run(filepath.Base(file), func(t *testing.T) {
			for _, sc := range scens {
				t.Run(sc.name, func(t *testing.T) {
					for _, proto := range sc.protos {
						t.Run(fmt.Sprintf("RESP%d", proto), func(t *testing.T) {
							t.Parallel()
							runScenario(t, sc, proto)
						})
					}
				})
			}
		})
	}
}

func loadScenarios(file string) ([]*scenario, error) {
	f, err := os.Open(file)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return parseScenarios(filepath.Base(file), f)
}

// runScenario runs one scenario in one protocol.
func runScenario(t *testing.T, sc *scenario, proto int) {
	requireRedis(t)
	if missing := missingCommands(t, sc.requires); len(missing) > 0 && !selfCheck() {
		t.Skipf("miniwatchd does not implement %s yet", strings.Join(missing, ", "))
	}
	if sc.skip != "" && !selfCheck() {
		t.Skipf("known miniwatchd bug: %s", sc.skip)
	}
	p := newDiffPairProto(t, proto)
	if sc.fresh {
		p.taint()
	}
	for _, st := range sc.steps {
		p.where = fmt.Sprintf("%s:%d [%s, RESP%d] %s", sc.file, st.line, sc.name, proto, st.src)
		if st.kind == stepDo || st.kind == stepSend {
			if taintsServer(st.args) {
				p.taint()
			}
		}
		switch st.kind {
		case stepSleep:
			time.Sleep(st.dur)
		case stepDo:
			c := p.Conn(st.conn)
			if st.raw != nil {
				c.DoRaw(st.mode, st.raw)
			} else {
				c.DoMode(st.mode, st.args...)
			}
		case stepSend:
			c := p.Conn(st.conn)
			if st.raw != nil {
				c.SendRaw(st.raw)
			} else {
				c.Send(st.args...)
			}
		case stepRead:
			p.Conn(st.conn).Read(st.mode)
		case stepNoReply:
			p.Conn(st.conn).ExpectNoReply(st.dur)
		case stepClosed:
			p.Conn(st.conn).ExpectClosed(st.dur)
		}
	}
}

// taintsServer reports whether a command leaves state that FLUSHALL does
// not reset (configuration, killed or paused clients, a stopped server),
// so the servers must not be reused.
func taintsServer(args []string) bool {
	if len(args) == 0 {
		return false
	}
	name := strings.ToLower(args[0])
	sub := ""
	if len(args) > 1 {
		sub = strings.ToLower(args[1])
	}
	switch name {
	case "config", "shutdown", "script", "function":
		return true
	case "client":
		return sub == "kill" || sub == "pause"
	case "debug":
		return sub != "set-active-expire" && sub != "object"
	}
	return false
}
