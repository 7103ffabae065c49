package test

import (
	"bufio"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"
)

// A scenario file (testdata/diff/*.txt) holds one or more scenarios; the
// format is described in testdata/diff/README.md.

// scenario is one parsed scenario.
type scenario struct {
	file     string
	name     string
	line     int      // line of its "===" header
	protos   []int    // protocols to run it in
	requires []string // commands miniwatchd must implement, else skipped
	fresh    bool     // run on servers of its own, stopped afterwards
	skip     string   // a known miniwatchd bug: skipped with this reason
	steps    []step
}

type stepKind int

const (
	stepDo      stepKind = iota // send, read one reply, compare
	stepSend                    // send only
	stepRead                    // read one pending reply, compare
	stepNoReply                 // nothing may arrive within dur
	stepClosed                  // both servers must close the connection within dur
	stepSleep                   // wait dur
)

// step is one line of a scenario.
type step struct {
	line int
	src  string // the line as written
	kind stepKind
	conn string
	args []string // command arguments (nil for raw sends)
	raw  []byte   // raw bytes to send, when the line used >raw
	mode cmpMode
	dur  time.Duration
}

// parseScenarios reads every scenario of one file.
func parseScenarios(file string, r io.Reader) ([]*scenario, error) {
	var out []*scenario
	var cur *scenario
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	lineNo := 0
	for sc.Scan() {
		lineNo++
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		errf := func(format string, a ...any) error {
			return fmt.Errorf("%s:%d: %s", file, lineNo, fmt.Sprintf(format, a...))
		}
		if name, ok := strings.CutPrefix(line, "==="); ok {
			name = strings.TrimSpace(name)
			if name == "" {
				return nil, errf("scenario without a name")
			}
			for _, s := range out {
				if s.name == name {
					return nil, errf("duplicate scenario name %q", name)
				}
			}
			cur = &scenario{file: file, name: name, line: lineNo, protos: []int{2, 3}}
			out = append(out, cur)
			continue
		}
		if cur == nil {
			return nil, errf("line before the first \"=== name\" header")
		}
		if strings.HasPrefix(line, "@") {
			if len(cur.steps) > 0 {
				return nil, errf("header after the first step")
			}
			if err := cur.parseHeader(line); err != nil {
				return nil, errf("%v", err)
			}
			continue
		}
		st, err := parseStep(line)
		if err != nil {
			return nil, errf("%v", err)
		}
		st.line = lineNo
		st.src = line
		cur.steps = append(cur.steps, st)
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	for _, s := range out {
		if len(s.steps) == 0 {
			return nil, fmt.Errorf("%s:%d: scenario %q has no steps", file, s.line, s.name)
		}
	}
	return out, nil
}

func (s *scenario) parseHeader(line string) error {
	fields := strings.Fields(line)
	switch fields[0] {
	case "@proto":
		if len(fields) != 2 || (fields[1] != "2" && fields[1] != "3") {
			return fmt.Errorf("@proto takes 2 or 3")
		}
		p, _ := strconv.Atoi(fields[1])
		s.protos = []int{p}
	case "@requires":
		if len(fields) < 2 {
			return fmt.Errorf("@requires needs command names")
		}
		for _, f := range fields[1:] {
			s.requires = append(s.requires, strings.ToLower(f))
		}
	case "@skip":
		if len(fields) < 2 {
			return fmt.Errorf("@skip needs a reason")
		}
		s.skip = strings.TrimSpace(strings.TrimPrefix(line, "@skip"))
	case "@fresh":
		if len(fields) != 1 {
			return fmt.Errorf("@fresh takes no arguments")
		}
		s.fresh = true
	default:
		return fmt.Errorf("unknown header %s", fields[0])
	}
	return nil
}

// parseStep parses one step line.
func parseStep(line string) (step, error) {
	if rest, ok := strings.CutPrefix(line, "sleep "); ok {
		d, err := parseMillis(strings.TrimSpace(rest))
		return step{kind: stepSleep, dur: d}, err
	}
	i := 0
	for i < len(line) && isConnNameByte(line[i]) {
		i++
	}
	if i == 0 || i == len(line) || (line[i] != '>' && line[i] != '<') {
		return step{}, fmt.Errorf("expected CONN> command, CONN< or sleep MS")
	}
	st := step{conn: line[:i]}
	op := line[i:]
	toks, err := splitArgs(op[1:])
	if err != nil {
		return step{}, err
	}
	opWord := op[:1]
	if len(toks) > 0 && !toks[0].quoted && strings.HasPrefix(op[1:], toks[0].text) &&
		(toks[0].text == "&" || toks[0].text == "raw" || toks[0].text == "&raw") {
		// "A>& ...", "A>raw ...", "A>&raw ...": the suffix is glued to '>'.
		opWord += toks[0].text
		toks = toks[1:]
	}
	args, mode, err := splitModifier(toks)
	if err != nil {
		return step{}, err
	}
	st.mode = mode
	switch opWord {
	case ">", ">&":
		if len(args) == 0 {
			return step{}, fmt.Errorf("no command")
		}
		st.kind = stepDo
		if opWord == ">&" {
			st.kind = stepSend
		}
		st.args = args
	case ">raw", ">&raw":
		if len(args) != 1 {
			return step{}, fmt.Errorf("raw takes exactly one (quoted) string")
		}
		st.kind = stepDo
		if opWord == ">&raw" {
			st.kind = stepSend
		}
		st.raw = []byte(args[0])
	case "<":
		st.kind = stepRead
		if len(args) > 0 {
			if (args[0] != "noreply" && args[0] != "closed") || len(args) != 2 {
				return step{}, fmt.Errorf("CONN< takes nothing, \"noreply MS\" or \"closed MS\"")
			}
			st.kind = stepNoReply
			if args[0] == "closed" {
				st.kind = stepClosed
			}
			if st.dur, err = parseMillis(args[1]); err != nil {
				return step{}, err
			}
		}
	default:
		return step{}, fmt.Errorf("unknown operator %q", opWord)
	}
	if st.kind == stepSend && st.mode != cmpExact {
		return step{}, fmt.Errorf("a send-only step has no reply to compare: put the modifier on the CONN< line")
	}
	return st, nil
}

func isConnNameByte(b byte) bool {
	return b >= 'A' && b <= 'Z' || b >= 'a' && b <= 'z' || b >= '0' && b <= '9' || b == '_'
}

func parseMillis(s string) (time.Duration, error) {
	n, err := strconv.Atoi(s)
	if err != nil || n < 0 || n > 60000 {
		return 0, fmt.Errorf("bad milliseconds %q", s)
	}
	return time.Duration(n) * time.Millisecond, nil
}

// splitModifier cuts a trailing ":: mode" from the tokens.
func splitModifier(toks []token) ([]string, cmpMode, error) {
	mode := cmpExact
	for i, t := range toks {
		if t.text == "::" && !t.quoted {
			if len(toks) != i+2 {
				return nil, 0, fmt.Errorf(":: takes exactly one comparison mode")
			}
			m, ok := cmpModeNames[toks[i+1].text]
			if !ok {
				return nil, 0, fmt.Errorf("unknown comparison mode %q", toks[i+1].text)
			}
			mode = m
			toks = toks[:i]
			break
		}
	}
	args := make([]string, len(toks))
	for i, t := range toks {
		args[i] = t.text
	}
	return args, mode, nil
}
