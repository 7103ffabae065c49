package server

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"strconv"

	"github.com/miniwatchd/miniwatchd/protocol"
)

// Fixtures (issue 22 item 3): a file of command lines, as one would type
// them into redis-cli, run to give a server a known dataset: at start by
// the load parameter (miniwatchd --load FILE), or at any time by DEBUG
// LOAD-FIXTURE <file>.
//
// Lines are read as redis-cli reads its standard input (repl): each line
// is split by sdssplitargs (protocol.SplitArgs: "double quotes" with \n,
// \xHH escapes, 'single quotes'); a blank line is skipped; a first word
// that is a number, followed by more words, repeats the command that many
// times ("3 INCR hits"); "quit" or "exit" ends the file. Ours, not
// redis-cli's: a line whose first non-blank byte is '#' is a comment, and
// the first command that replies an error stops the load with that error
// and its line number (redis-cli prints it and goes on).
//
// The commands run as one local client (local.go: the normal dispatch,
// no faults), so SELECT and MULTI/EXEC span lines, writes are logged to the
// AOF and break WATCHes like any client's.

// fixtureLine is one command of a fixture file.
type fixtureLine struct {
	line   int // 1-based
	repeat int
	args   [][]byte
}

// parseFixture splits a fixture file into its commands.
func parseFixture(data []byte) ([]fixtureLine, error) {
	var out []fixtureLine
	for n, line := range bytes.Split(data, []byte("\n")) {
		trimmed := bytes.TrimLeft(line, " \t\r\v\f")
		if len(trimmed) == 0 || trimmed[0] == '#' {
			continue
		}
		args, ok := protocol.SplitArgs(line)
		if !ok {
			return nil, fmt.Errorf("line %d: Invalid argument(s)", n+1)
		}
		if len(args) == 0 {
			continue
		}
		repeat := 1
		if len(args) > 1 {
			if r, err := strconv.ParseInt(string(args[0]), 10, 64); err == nil || errors.Is(err, strconv.ErrRange) {
				if err != nil || r <= 0 || r > 1<<20 {
					return nil, fmt.Errorf("line %d: Invalid redis-cli repeat command option value.", n+1)
				}
				repeat, args = int(r), args[1:]
			}
		}
		if w := string(bytes.ToLower(args[0])); w == "quit" || w == "exit" {
			break
		}
		out = append(out, fixtureLine{line: n + 1, repeat: repeat, args: args})
	}
	return out, nil
}

// runFixtureLocked runs the fixture file path and returns the number of
// commands run.
func (s *Server) runFixtureLocked(path string) (int, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return 0, fmt.Errorf("can't read %s: %s", path, strerror(err))
	}
	lines, err := parseFixture(data)
	if err != nil {
		return 0, fmt.Errorf("%s %v", path, err)
	}
	c := s.newLocalClientLocked("fixture")
	defer func() {
		s.dropClientWatchesLocked(c)
		c.multi.Reset()
	}()
	n := 0
	for _, l := range lines {
		for range l.repeat {
			out := s.runLocalLocked(c, l.args)
			n++
			if len(out) > 0 && (out[0] == '-' || out[0] == '!') {
				return n, fmt.Errorf("%s line %d: %s", path, l.line, fixtureErrorText(out))
			}
		}
	}
	return n, nil
}

// fixtureErrorText is the text of an error reply.
func fixtureErrorText(out []byte) string {
	if out[0] == '!' { // RESP3 blob error: !<len>\r\n<text>\r\n
		if i := bytes.IndexByte(out, '\n'); i >= 0 {
			out = out[i:]
		}
	}
	return string(bytes.TrimSpace(bytes.TrimPrefix(out, []byte("-"))))
}

// loadFixtureOnStartLocked is a load hook: the load parameter's file.
func (s *Server) loadFixtureOnStartLocked() error {
	if s.cfg.LoadFixture == "" {
		return nil
	}
	path := s.cfg.Resolve(s.cfg.LoadFixture)
	n, err := s.runFixtureLocked(path)
	if err != nil {
		return fmt.Errorf("Fatal error loading the fixture %v", err)
	}
	s.log.Info(fmt.Sprintf("Fixture %s loaded: %d commands", path, n))
	return nil
}

// debugLoadFixture is DEBUG LOAD-FIXTURE <file>: it replies the number of
// commands run, or the first error.
func debugLoadFixture(c *client, args [][]byte) {
	s := c.srv
	n, err := s.runFixtureLocked(s.cfg.Resolve(string(args[2])))
	if err != nil {
		c.fail(protocol.Error("ERR fixture " + err.Error()))
		return
	}
	c.w.Int(int64(n))
}
