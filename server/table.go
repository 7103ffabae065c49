package server

import (
	"fmt"
	"slices"
	"sort"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/miniwatchd/miniwatchd/cmdmeta"
	"github.com/miniwatchd/miniwatchd/watch"
)

// The command table is data: each row's arity, flags and key positions come
// from Redis 7.0.15's own COMMAND output (package cmdmeta); a family file
// only pairs a name with its handler. COMMAND, COMMAND DOCS, the README's
// command list and the write-breaks-WATCH meta-test all read this table.

// handler runs a command. args[0] is the command name (and args[1] the
// subcommand for container commands). It writes exactly one reply to c.w.
type handler func(c *client, args [][]byte)

// commandDef pairs a command's full name ("get", "client|setinfo") with its
// handler. Family files list theirs at the top; commandFamilies
// (wiring.go) lists the families.
type commandDef struct {
	name string
	proc handler
}

// cmdFlags are the command flags the dispatcher checks, as bits.
type cmdFlags uint32

const (
	flagWrite cmdFlags = 1 << iota
	flagReadonly
	flagDenyOOM
	flagAdmin
	flagPubSub
	flagNoScript
	flagBlocking
	flagLoading
	flagStale
	flagFast
	flagNoAuth
	flagMayReplicate
	flagNoMulti
	flagAllowBusy
	flagProtected
	flagMovableKeys
	flagAsking // CMD_ASKING: served for an importing slot without ASKING (RESTORE-ASKING)
)

var flagNames = map[string]cmdFlags{
	"write": flagWrite, "readonly": flagReadonly, "denyoom": flagDenyOOM,
	"admin": flagAdmin, "pubsub": flagPubSub, "noscript": flagNoScript,
	"blocking": flagBlocking, "loading": flagLoading, "stale": flagStale,
	"fast": flagFast, "no_auth": flagNoAuth, "may_replicate": flagMayReplicate,
	"no_multi": flagNoMulti, "allow_busy": flagAllowBusy, "protected": flagProtected,
	"movablekeys": flagMovableKeys, "asking": flagAsking,
}

// command is one row of the table.
type command struct {
	name   string // full name, lower case: "get", "client|setinfo"
	arity  int
	flags  cmdFlags
	meta   *cmdmeta.Command
	proc   handler
	parent *command
	subs   map[string]*command // nil unless a container

	watchCause watch.Cause // how an abort its writes cause is classed (watch_obs.go)
	// keyed is set for commands cluster mode redirects (processCommand:
	// movable keys, key specs, or EXEC).
	keyed bool

	// commandstats
	calls, usec, rejected, failed atomic.Int64
	hist                          *cmdHistogram // latency tracking, nil until called (latency_hist.go; mu)
}

func (cmd *command) has(f cmdFlags) bool { return cmd.flags&f != 0 }

// commandTable maps lower-case names to top-level commands.
type commandTable struct {
	cmds map[string]*command
}

// buildTable builds the table from the families' handlers and Redis's
// metadata. A handler without metadata, or a name listed twice, is a
// programming error.
func buildTable(families [][]commandDef) (*commandTable, error) {
	t := &commandTable{cmds: make(map[string]*command)}
	seen := make(map[string]bool)
	for _, def := range slices.Concat(families...) {
		if seen[def.name] {
			return nil, fmt.Errorf("command %q is listed twice", def.name)
		}
		seen[def.name] = true
		parentName, subName, isSub := strings.Cut(def.name, "|")
		if !isSub {
			meta := cmdmeta.Lookup(def.name)
			if meta == nil {
				return nil, fmt.Errorf("command %q has no Redis metadata", def.name)
			}
			cmd := t.cmds[def.name]
			if cmd == nil {
				cmd = newCommand(meta, nil)
				t.cmds[def.name] = cmd
			}
			cmd.proc = def.proc
			continue
		}
		pmeta := cmdmeta.Lookup(parentName)
		if pmeta == nil {
			return nil, fmt.Errorf("container %q has no Redis metadata", parentName)
		}
		meta := pmeta.Sub(subName)
		if meta == nil {
			return nil, fmt.Errorf("subcommand %q has no Redis metadata", def.name)
		}
		parent := t.cmds[parentName]
		if parent == nil {
			parent = newCommand(pmeta, nil)
			t.cmds[parentName] = parent
		}
		if parent.subs == nil {
			parent.subs = make(map[string]*command)
		}
		sub := newCommand(meta, parent)
		sub.proc = def.proc
		parent.subs[subName] = sub
	}
	for name, cmd := range t.cmds {
		if cmd.proc == nil && cmd.subs == nil {
			return nil, fmt.Errorf("command %q has no handler", name)
		}
	}
	return t, nil
}

// tableTemplate is the table of commandFamilies, built and checked once
// per process by serverTable.
var tableTemplate struct {
	once sync.Once
	t    *commandTable
	err  error
}

// serverTable returns a new server's command table: a copy of the table
// of commandFamilies, which is built and checked once per process (each
// server needs its own rows for their commandstats counters).
func serverTable() (*commandTable, error) {
	tableTemplate.once.Do(func() { tableTemplate.t, tableTemplate.err = buildTable(commandFamilies) })
	if tableTemplate.err != nil {
		return nil, tableTemplate.err
	}
	return tableTemplate.t.clone(), nil
}

// clone returns a copy of t with fresh counters: the rows, subcommands
// included, in one allocation.
func (t *commandTable) clone() *commandTable {
	n := len(t.cmds)
	for _, c := range t.cmds {
		n += len(c.subs)
	}
	rows := make([]command, 0, n) // never grows: the pointers below stay valid
	row := func(c, parent *command) *command {
		rows = append(rows, command{name: c.name, arity: c.arity, flags: c.flags, meta: c.meta,
			proc: c.proc, parent: parent, watchCause: c.watchCause, keyed: c.keyed})
		return &rows[len(rows)-1]
	}
	out := &commandTable{cmds: make(map[string]*command, len(t.cmds))}
	for name, c := range t.cmds {
		cc := row(c, nil)
		if c.subs != nil {
			cc.subs = make(map[string]*command, len(c.subs))
			for sub, s := range c.subs {
				cc.subs[sub] = row(s, cc)
			}
		}
		out.cmds[name] = cc
	}
	return out
}

func newCommand(meta *cmdmeta.Command, parent *command) *command {
	cmd := &command{name: meta.FullName, arity: meta.Arity, meta: meta, parent: parent}
	cmd.watchCause = watchCauseOf(meta.FullName) // watch_obs.go
	for _, f := range meta.Flags {
		cmd.flags |= flagNames[f]
	}
	cmd.keyed = cmd.has(flagMovableKeys) || len(meta.KeySpecs) > 0 || meta.FullName == "exec"
	return cmd
}

// lookup finds the command for args (Redis's lookupCommand): the
// subcommand when the first word names a container and a second word is
// given. It reports container=true when args[0] is a container whose
// subcommand is unknown.
func (t *commandTable) lookup(args [][]byte) (cmd *command, container bool) {
	var buf [32]byte
	name := lowerInto(buf[:0], args[0])
	base := t.cmds[string(name)]
	if base == nil || base.subs == nil || len(args) < 2 {
		return base, false
	}
	sub := base.subs[string(lowerInto(buf[:0], args[1]))]
	if sub == nil {
		return nil, true
	}
	return sub, false
}

// lookupName finds a command by full name ("get", "config|get").
func (t *commandTable) lookupName(full string) *command {
	full = strings.ToLower(full)
	parent, sub, isSub := strings.Cut(full, "|")
	cmd := t.cmds[parent]
	if !isSub || cmd == nil {
		return cmd
	}
	return cmd.subs[sub]
}

// lowerInto appends the ASCII lower-case form of b to dst.
func lowerInto(dst, b []byte) []byte {
	for _, c := range b {
		if c >= 'A' && c <= 'Z' {
			c += 'a' - 'A'
		}
		dst = append(dst, c)
	}
	return dst
}

// sorted returns the top-level commands sorted by name.
func (t *commandTable) sorted() []*command {
	out := make([]*command, 0, len(t.cmds))
	for _, c := range t.cmds {
		out = append(out, c)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].name < out[j].name })
	return out
}

// all returns every command and subcommand, sorted by full name.
func (t *commandTable) all() []*command {
	var out []*command
	for _, c := range t.sorted() {
		out = append(out, c)
		subs := make([]*command, 0, len(c.subs))
		for _, s := range c.subs {
			subs = append(subs, s)
		}
		sort.Slice(subs, func(i, j int) bool { return subs[i].name < subs[j].name })
		out = append(out, subs...)
	}
	return out
}
