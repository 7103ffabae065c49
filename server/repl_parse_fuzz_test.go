package server

import (
	"strings"
	"testing"
)

// FuzzReplMasterReplies feeds the replica's parsers of a master's
// handshake replies (+FULLRESYNC and the snapshot header) arbitrary lines:
// they never panic, and what they accept has the parts the line holds.
func FuzzReplMasterReplies(f *testing.F) {
	id := strings.Repeat("a", 40)
	for _, s := range []string{"+FULLRESYNC " + id + " 0", "+FULLRESYNC " + id + " -1", "+FULLRESYNC x 1",
		"$EOF:" + id, "$123", "$-1", "$", "$EOF:", "+CONTINUE", "$9223372036854775808"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, line string) {
		if rid, off, ok := parseFullResync(line); ok {
			f := strings.Fields(line)
			if len(rid) != 40 || off < -1 || f[0] != "+FULLRESYNC" || f[1] != rid {
				t.Fatalf("accepted %q as %q %d", line, rid, off)
			}
		}
		if mark, n, ok := parseSnapshotHeader(line); ok {
			switch {
			case mark != "" && line != "$EOF:"+mark:
				t.Fatalf("accepted %q with mark %q", line, mark)
			case mark == "" && (n < 0 || line[0] != '$'):
				t.Fatalf("accepted %q as %d", line, n)
			}
		}
	})
}
