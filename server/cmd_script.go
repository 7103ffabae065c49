package server

import (
	"bytes"
	"strings"

	"github.com/miniwatchd/miniwatchd/protocol"
	"github.com/miniwatchd/miniwatchd/script"
)

// EVAL, EVALSHA, EVAL_RO, EVALSHA_RO and SCRIPT (Redis eval.c; spec §4).

var scriptCommands = []commandDef{
	{"eval", func(c *client, args [][]byte) { evalGeneric(c, args, false, false) }},
	{"evalsha", func(c *client, args [][]byte) { evalGeneric(c, args, true, false) }},
	{"eval_ro", func(c *client, args [][]byte) { evalGeneric(c, args, false, true) }},
	{"evalsha_ro", func(c *client, args [][]byte) { evalGeneric(c, args, true, true) }},
	{"script|load", cmdScriptLoad},
	{"script|exists", cmdScriptExists},
	{"script|flush", cmdScriptFlush},
	{"script|kill", func(c *client, args [][]byte) { c.srv.scriptKillLocked(c, true) }},
	{"script|debug", cmdScriptDebug},
	{"script|help", cmdScriptingHelp},
}

var (
	errNumKeysNegative = protocol.Error("ERR Number of keys can't be negative")
	errNumKeysTooMany  = protocol.Error("ERR Number of keys can't be greater than number of args")
	errROWithWriteFlag = protocol.Error("ERR Can not execute a script with write flag using *_ro command.")
)

// parseNumKeys reads the numkeys argument of EVAL and FCALL; notInt is the
// error for a value that is not an integer.
func parseNumKeys(c *client, args [][]byte, notInt protocol.Error) (int, bool) {
	n, ok := protocol.ParseInt(args[2])
	switch {
	case !ok:
		c.fail(notInt)
	case n > int64(len(args)-3):
		c.fail(errNumKeysTooMany)
	case n < 0:
		c.fail(errNumKeysNegative)
	default:
		return int(n), true
	}
	return 0, false
}

// evalGeneric is evalGenericCommand for the four EVAL forms.
func evalGeneric(c *client, args [][]byte, sha, ro bool) {
	s := c.srv
	st := s.scriptsLocked()
	if sha && len(args[1]) != 40 {
		c.fail(protocol.ErrNoScript)
		return
	}
	numkeys, ok := parseNumKeys(c, args, protocol.ErrNotInteger)
	if !ok {
		return
	}
	var sc *script.Script
	if sha {
		if sc = st.engine.Lookup(args[1]); sc == nil {
			c.fail(protocol.ErrNoScript)
			return
		}
	} else {
		var msg string
		if sc, msg = st.engine.Load(args[1]); sc == nil {
			c.fail(protocol.Error(msg))
			return
		}
	}
	r := s.newRunLocked(sc.SHA, true, ro)
	r.crossSlot = true // scripts without a shebang may cross slots, as before 7.0
	if sc.Flags&script.FlagCompat == 0 {
		if !prepareFlags(c, sc.Flags, ro, r) {
			return
		}
	}
	keys, argv := args[3:3+numkeys], args[3+numkeys:]
	s.runScriptLocked(c, args, r, func(h script.Host) script.Result {
		return st.engine.Run(sc, s.luaRunLocked(h, sc.SHA, keys, argv), &c.w)
	})
}

var errNoClusterScript = protocol.Error("ERR Can not run script on cluster, 'no-cluster' flag is set.")

// prepareFlags applies the flags of a script that declares them
// (scriptPrepareForRun): allow-oom, the out-of-memory refusal, no-writes
// and the *_RO refusal of write scripts. It reports whether to run.
func prepareFlags(c *client, flags script.Flags, ro bool, r *scriptRun) bool {
	s := c.srv
	if flags&script.FlagNoCluster != 0 && s.cluster.on {
		c.fail(errNoClusterScript)
		return false
	}
	r.crossSlot = flags&script.FlagAllowCrossSlot != 0
	r.allowOOM = flags&script.FlagAllowOOM != 0
	// Over maxmemory a script that may write is refused (for EVAL and FCALL
	// by processCommand already: such a script is a deny-oom command,
	// scriptFlagsToCmdFlags); a no-writes script runs, as in Redis 7.0.15.
	if !r.allowOOM && s.mem.scriptOOM && s.cfg.MaxMemory != 0 && flags&script.FlagNoWrites == 0 {
		c.fail(protocol.ErrOOM)
		return false
	}
	if flags&script.FlagNoWrites != 0 {
		r.readOnly = true
	} else if ro {
		c.fail(errROWithWriteFlag)
		return false
	}
	return true
}

func cmdScriptLoad(c *client, args [][]byte) {
	sc, msg := c.srv.scriptsLocked().engine.Load(args[2])
	if sc == nil {
		c.fail(protocol.Error(msg))
		return
	}
	c.w.BulkString(sc.SHA)
}

func cmdScriptExists(c *client, args [][]byte) {
	e := c.srv.scriptsLocked().engine
	c.w.Array(len(args) - 2)
	for _, sha := range args[2:] {
		if e.Lookup(sha) != nil {
			c.w.Int(1)
		} else {
			c.w.Int(0)
		}
	}
}

func cmdScriptFlush(c *client, args [][]byte) {
	if len(args) > 3 || (len(args) == 3 && !bytes.EqualFold(args[2], []byte("sync")) && !bytes.EqualFold(args[2], []byte("async"))) {
		c.fail(protocol.Error("ERR SCRIPT FLUSH only support SYNC|ASYNC option"))
		return
	}
	c.srv.scriptsLocked().engine.Flush()
	c.w.OK()
}

// cmdScriptDebug accepts NO; the Lua debugger (YES, SYNC) is not provided.
func cmdScriptDebug(c *client, args [][]byte) {
	switch {
	case bytes.EqualFold(args[2], []byte("no")):
		c.w.OK()
	case bytes.EqualFold(args[2], []byte("yes")), bytes.EqualFold(args[2], []byte("sync")):
		c.fail(protocol.Error("ERR The Lua debugger is not supported by this server"))
	default:
		c.fail(protocol.Error("ERR Use SCRIPT DEBUG YES/SYNC/NO"))
	}
}

// cmdScriptingHelp answers SCRIPT HELP and FUNCTION HELP with Redis's text
// (helpTexts holds every line Redis prints, its closing HELP lines
// included).
func cmdScriptingHelp(c *client, args [][]byte) {
	lines := helpTexts[strings.ToLower(string(args[0]))]
	c.w.Array(len(lines))
	c.w.Status(strings.ToUpper(string(args[0])) + " <subcommand> [<arg> [value] [opt] ...]. Subcommands are:")
	for _, l := range lines[1:] {
		c.w.Status(l)
	}
}
