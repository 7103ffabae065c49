package server

import (
	"bytes"

	"github.com/miniwatchd/miniwatchd/cmdmeta"
	"github.com/miniwatchd/miniwatchd/glob"
	"github.com/miniwatchd/miniwatchd/protocol"
)

// COMMAND and its subcommands, answered from the table: only commands
// miniwatchd implements are listed, each with Redis 7.0.15's metadata.

var commandCommands = []commandDef{
	{"command", cmdCommand},
	{"command|count", cmdCommandCount},
	{"command|info", cmdCommandInfo},
	{"command|docs", cmdCommandDocs},
	{"command|list", cmdCommandList},
	{"command|getkeys", cmdCommandGetKeys},
	{"command|getkeysandflags", cmdCommandGetKeysAndFlags},
	{"command|help", cmdHelp},
}

// implemented filters subcommand metadata to those in the table.
func (t *commandTable) implemented(m *cmdmeta.Command) bool {
	return t.lookupName(m.FullName) != nil
}

func cmdCommand(c *client, args [][]byte) {
	t := c.srv.table
	cmds := t.sorted()
	c.w.Array(len(cmds))
	for _, cmd := range cmds {
		cmd.meta.WriteInfoFiltered(&c.w, t.implemented)
	}
}

func cmdCommandCount(c *client, args [][]byte) { c.w.Int(int64(len(c.srv.table.cmds))) }

func cmdCommandInfo(c *client, args [][]byte) {
	t := c.srv.table
	if len(args) == 2 {
		cmdCommand(c, args)
		return
	}
	c.w.Array(len(args) - 2)
	for _, name := range args[2:] {
		cmd := t.lookupName(string(name))
		if cmd == nil {
			c.w.Null()
			continue
		}
		cmd.meta.WriteInfoFiltered(&c.w, t.implemented)
	}
}

func cmdCommandDocs(c *client, args [][]byte) {
	t := c.srv.table
	var cmds []*command
	if len(args) == 2 {
		cmds = t.sorted()
	} else {
		for _, name := range args[2:] {
			if cmd := t.lookupName(string(name)); cmd != nil {
				cmds = append(cmds, cmd)
			}
		}
	}
	c.w.Map(len(cmds))
	for _, cmd := range cmds {
		c.w.BulkString(cmd.name)
		cmd.meta.WriteDocsFiltered(&c.w, t.implemented)
	}
}

func cmdCommandList(c *client, args [][]byte) {
	t := c.srv.table
	var match func(cmd *command) bool
	if len(args) > 2 {
		if len(args) != 5 || !bytes.EqualFold(args[2], []byte("filterby")) {
			c.fail(protocol.ErrSyntax)
			return
		}
		val := args[4]
		switch {
		case bytes.EqualFold(args[3], []byte("module")):
			match = func(*command) bool { return false }
		case bytes.EqualFold(args[3], []byte("aclcat")):
			match = func(cmd *command) bool { return cmd.meta.HasACLCategory(string(val)) }
		case bytes.EqualFold(args[3], []byte("pattern")):
			match = func(cmd *command) bool { return glob.MatchFold(val, []byte(cmd.name)) }
		default:
			c.fail(protocol.ErrSyntax)
			return
		}
	}
	d := c.w.DeferLen()
	n := 0
	for _, cmd := range t.all() {
		if match == nil || match(cmd) {
			c.w.BulkString(cmd.name)
			n++
		}
	}
	c.w.SetArrayLen(d, n)
}

// cmdCommandGetKeys is COMMAND GETKEYS: the key arguments of a command
// call, as getKeysFromCommandWithSpecs finds them.
func cmdCommandGetKeys(c *client, args [][]byte) {
	target, refs, ok := commandKeyRefs(c, args)
	if !ok {
		return
	}
	c.w.Array(len(refs))
	for _, r := range refs {
		c.w.Bulk(target[r.Pos])
	}
}

// cmdCommandGetKeysAndFlags is COMMAND GETKEYSANDFLAGS: each key argument
// with its access flags, as a set of status strings.
func cmdCommandGetKeysAndFlags(c *client, args [][]byte) {
	target, refs, ok := commandKeyRefs(c, args)
	if !ok {
		return
	}
	c.w.Array(len(refs))
	for _, r := range refs {
		c.w.Array(2)
		c.w.Bulk(target[r.Pos])
		c.w.Set(len(r.Flags))
		for _, f := range r.Flags {
			c.w.Status(f)
		}
	}
}

// commandKeyRefs checks the command call in args[2:] as getKeysSubcommandImpl
// does and returns it with its keys; ok is false when an error was replied.
func commandKeyRefs(c *client, args [][]byte) (target [][]byte, refs []cmdmeta.KeyRef, ok bool) {
	target = args[2:]
	cmd, _ := c.srv.table.lookup(target)
	switch {
	case cmd == nil:
		c.fail(protocol.Error("ERR Invalid command specified"))
		return nil, nil, false
	case !cmd.meta.HasKeys():
		c.fail(protocol.Error("ERR The command has no key arguments"))
		return nil, nil, false
	case (cmd.arity > 0 && cmd.arity != len(target)) || len(target) < -cmd.arity:
		c.fail(protocol.Error("ERR Invalid number of arguments specified for command"))
		return nil, nil, false
	}
	refs = cmd.meta.KeyRefs(target)
	if len(refs) == 0 && !cmd.meta.HasFlag("no_mandatory_keys") {
		c.fail(protocol.Error("ERR Invalid arguments specified for command"))
		return nil, nil, false
	}
	return target, refs, true
}
