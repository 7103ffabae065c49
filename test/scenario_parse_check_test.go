package test

import (
	"reflect"
	"strings"
	"testing"
	"time"
)

func TestParseStep(t *testing.T) {
	tests := []struct {
		line string
		want step
	}{
		{`A> SET k v`, step{kind: stepDo, conn: "A", args: []string{"SET", "k", "v"}}},
		{`conn_2> GET "a b"`, step{kind: stepDo, conn: "conn_2", args: []string{"GET", "a b"}}},
		{`A> SET k "\x00\r\n\"" 'it\'s'`, step{kind: stepDo, conn: "A", args: []string{"SET", "k", "\x00\r\n\"", "it's"}}},
		{`A> KEYS * :: sorted`, step{kind: stepDo, conn: "A", args: []string{"KEYS", "*"}, mode: cmpSorted}},
		{`A> TIME :: shape`, step{kind: stepDo, conn: "A", args: []string{"TIME"}, mode: cmpShape}},
		{`A> ECHO "::"`, step{kind: stepDo, conn: "A", args: []string{"ECHO", "::"}}},
		{`C>& BLPOP q 0`, step{kind: stepSend, conn: "C", args: []string{"BLPOP", "q", "0"}}},
		{`A> & x`, step{kind: stepDo, conn: "A", args: []string{"&", "x"}}},
		{`A> raw x`, step{kind: stepDo, conn: "A", args: []string{"raw", "x"}}},
		{`A>raw "PING\r\n"`, step{kind: stepDo, conn: "A", raw: []byte("PING\r\n")}},
		{`A>&raw "\r\n"`, step{kind: stepSend, conn: "A", raw: []byte("\r\n")}},
		{`C<`, step{kind: stepRead, conn: "C"}},
		{`C< :: ignore`, step{kind: stepRead, conn: "C", mode: cmpIgnore}},
		{`C< noreply 200`, step{kind: stepNoReply, conn: "C", dur: 200 * time.Millisecond}},
		{`C< closed 50`, step{kind: stepClosed, conn: "C", dur: 50 * time.Millisecond}},
		{`sleep 150`, step{kind: stepSleep, dur: 150 * time.Millisecond}},
	}
	for _, tt := range tests {
		got, err := parseStep(tt.line)
		if err != nil {
			t.Errorf("parseStep(%q): %v", tt.line, err)
			continue
		}
		if !reflect.DeepEqual(got, tt.want) {
			t.Errorf("parseStep(%q) =\n  %+v\nwant\n  %+v", tt.line, got, tt.want)
		}
	}
}

func TestParseStepErrors(t *testing.T) {
	for _, line := range []string{
		`A>`,
		`> SET k v`,
		`A SET k v`,
		`A> SET "k`,
		`A> SET 'k`,
		`A> SET "k"v`,
		`A> KEYS * ::`,
		`A> KEYS * :: bogus`,
		`A> KEYS * :: sorted extra`,
		`A>& BLPOP q 0 :: sorted`,
		`A>raw a b`,
		`A>raw`,
		`A< later`,
		`A< noreply`,
		`A< noreply x`,
		`sleep`,
		`sleep -5`,
		`sleep 99999999`,
	} {
		if st, err := parseStep(line); err == nil {
			t.Errorf("parseStep(%q) = %+v, want an error", line, st)
		}
	}
}

func TestParseScenarios(t *testing.T) {
	src := `# comment
=== first
@proto 3
@requires RPUSH blpop
A> SET k v

B> GET k
=== second
@fresh
@skip known bug
sleep 10
`
	got, err := parseScenarios("f.txt", strings.NewReader(src))
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 {
		t.Fatalf("got %d scenarios, want 2", len(got))
	}
	a, b := got[0], got[1]
	if a.name != "first" || a.line != 2 || !reflect.DeepEqual(a.protos, []int{3}) ||
		!reflect.DeepEqual(a.requires, []string{"rpush", "blpop"}) || a.fresh || len(a.steps) != 2 {
		t.Errorf("first scenario parsed as %+v", a)
	}
	if a.steps[1].line != 7 || a.steps[1].src != "B> GET k" {
		t.Errorf("second step has line %d src %q", a.steps[1].line, a.steps[1].src)
	}
	if b.name != "second" || !reflect.DeepEqual(b.protos, []int{2, 3}) || !b.fresh || b.skip != "known bug" || len(b.steps) != 1 {
		t.Errorf("second scenario parsed as %+v", b)
	}
}

func TestParseScenariosErrors(t *testing.T) {
	for _, src := range []string{
		"A> PING\n",                        // before any header
		"=== a\n",                          // no steps
		"===\nA> PING\n",                   // no name
		"=== a\nA> PING\n=== a\nA> PING\n", // duplicate name
		"=== a\nA> PING\n@proto 2\n",       // header after a step
		"=== a\n@proto 4\nA> PING\n",       // bad protocol
		"=== a\n@bogus\nA> PING\n",         // unknown header
		"=== a\n@requires\nA> PING\n",      // nothing required
		"=== a\nA> PING\nwhat is this\n",   // not a step
	} {
		if _, err := parseScenarios("f.txt", strings.NewReader(src)); err == nil {
			t.Errorf("parseScenarios(%q) succeeded, want an error", src)
		}
	}
}
