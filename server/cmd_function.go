package server

import (
	"bytes"

	"github.com/miniwatchd/miniwatchd/glob"
	"github.com/miniwatchd/miniwatchd/protocol"
	"github.com/miniwatchd/miniwatchd/rdb"
	"github.com/miniwatchd/miniwatchd/script"
)

// FUNCTION and FCALL (Redis functions.c; Redis 7 functions on the same VM
// machinery as EVAL).

var functionCommands = []commandDef{
	{"function|load", cmdFunctionLoad},
	{"function|list", cmdFunctionList},
	{"function|delete", cmdFunctionDelete},
	{"function|flush", cmdFunctionFlush},
	{"function|dump", cmdFunctionDump},
	{"function|restore", cmdFunctionRestore},
	{"function|stats", cmdFunctionStats},
	{"function|kill", func(c *client, args [][]byte) { c.srv.scriptKillLocked(c, false) }},
	{"function|help", cmdScriptingHelp},
	{"fcall", func(c *client, args [][]byte) { fcallGeneric(c, args, false) }},
	{"fcall_ro", func(c *client, args [][]byte) { fcallGeneric(c, args, true) }},
}

// functionsLocked returns the function library, wiring its logger on first
// use.
func (s *Server) functionsLocked() *script.Library {
	st := s.scriptsLocked()
	if !st.libLogger {
		st.lib.SetLogger(s.scriptLog)
		st.libLogger = true
	}
	return st.lib
}

func cmdFunctionLoad(c *client, args [][]byte) {
	replace := false
	pos := 2
	for pos < len(args)-1 {
		opt := args[pos]
		pos++
		if bytes.EqualFold(opt, []byte("replace")) {
			replace = true
			continue
		}
		c.fail(protocol.Error("ERR Unknown option given: " + string(opt)))
		return
	}
	if pos >= len(args) {
		c.fail(protocol.Error("ERR Function code is missing"))
		return
	}
	name, errText := c.srv.functionsLocked().Load(args[pos], replace)
	if errText != "" {
		c.fail(protocol.Error("ERR " + errText))
		return
	}
	c.srv.ks.Stats.Dirty++
	c.w.BulkString(name)
}

func cmdFunctionList(c *client, args [][]byte) {
	withCode := false
	var pattern []byte
	for i := 2; i < len(args); i++ {
		a := args[i]
		if !withCode && bytes.EqualFold(a, []byte("withcode")) {
			withCode = true
			continue
		}
		if pattern == nil && bytes.EqualFold(a, []byte("libraryname")) {
			if i >= len(args)-1 {
				c.fail(protocol.Error("ERR library name argument was not given"))
				return
			}
			i++
			pattern = args[i]
			continue
		}
		c.fail(protocol.Error("ERR Unknown argument " + string(a)))
		return
	}
	w := &c.w
	libs := c.srv.functionsLocked().Libs()
	d := w.DeferLen()
	n := 0
	for _, lib := range libs {
		if pattern != nil && !glob.MatchFold(pattern, []byte(lib.Name)) {
			continue
		}
		n++
		if withCode {
			w.Map(4)
		} else {
			w.Map(3)
		}
		w.BulkString("library_name")
		w.BulkString(lib.Name)
		w.BulkString("engine")
		w.BulkString("LUA")
		w.BulkString("functions")
		w.Array(len(lib.Functions))
		for _, f := range lib.Functions {
			w.Map(3)
			w.BulkString("name")
			w.BulkString(f.Name)
			w.BulkString("description")
			if f.HasDesc {
				w.BulkString(f.Desc)
			} else {
				w.Null()
			}
			w.BulkString("flags")
			names := f.Flags.Names()
			w.Set(len(names))
			for _, fl := range names {
				w.Status(fl)
			}
		}
		if withCode {
			w.BulkString("library_code")
			w.BulkString(lib.Code)
		}
	}
	w.SetArrayLen(d, n)
}

func cmdFunctionDelete(c *client, args [][]byte) {
	if !c.srv.functionsLocked().Delete(args[2]) {
		c.fail(protocol.Error("ERR Library not found"))
		return
	}
	c.srv.ks.Stats.Dirty++
	c.w.OK()
}

func cmdFunctionFlush(c *client, args [][]byte) {
	if len(args) > 3 {
		subcommandSyntaxError(c, args)
		return
	}
	if len(args) == 3 && !bytes.EqualFold(args[2], []byte("sync")) && !bytes.EqualFold(args[2], []byte("async")) {
		c.fail(protocol.Error("ERR FUNCTION FLUSH only supports SYNC|ASYNC option"))
		return
	}
	c.srv.functionsLocked().Flush()
	c.srv.ks.Stats.Dirty++
	c.w.OK()
}

func cmdFunctionStats(c *client, args [][]byte) {
	s := c.srv
	r := s.scripting.run
	if r != nil && r.eval {
		c.fail(protocol.ErrBusy)
		return
	}
	lib := s.functionsLocked()
	w := &c.w
	w.Map(2)
	w.BulkString("running_script")
	if r == nil {
		w.Null()
	} else {
		w.Map(3)
		w.BulkString("name")
		w.BulkString(r.name)
		w.BulkString("command")
		w.Array(len(r.argv))
		for _, a := range r.argv {
			w.Bulk(a)
		}
		w.BulkString("duration_ms")
		w.Int(r.elapsedMs())
	}
	w.BulkString("engines")
	w.Map(1)
	w.BulkString("LUA")
	w.Map(2)
	w.BulkString("libraries_count")
	w.Int(int64(len(lib.Libs())))
	w.BulkString("functions_count")
	w.Int(int64(lib.NumFunctions()))
}

func cmdFunctionDump(c *client, args [][]byte) {
	c.w.Bulk(rdb.DumpFunctions(c.srv.functionsLocked().Snapshot()))
}

func cmdFunctionRestore(c *client, args [][]byte) {
	if len(args) > 4 {
		subcommandSyntaxError(c, args)
		return
	}
	policy := "APPEND"
	if len(args) == 4 {
		switch {
		case bytes.EqualFold(args[3], []byte("append")):
		case bytes.EqualFold(args[3], []byte("replace")):
			policy = "REPLACE"
		case bytes.EqualFold(args[3], []byte("flush")):
			policy = "FLUSH"
		default:
			c.fail(protocol.Error("ERR Wrong restore policy given, value should be either FLUSH, APPEND or REPLACE."))
			return
		}
	}
	codes, err := rdb.ParseFunctions(args[2])
	errText := ""
	if err != nil {
		errText = err.Error()
	} else {
		errText = c.srv.functionsLocked().Restore(codes, policy)
	}
	if errText != "" {
		c.fail(protocol.Error("ERR " + errText))
		return
	}
	c.srv.ks.Stats.Dirty++
	c.w.OK()
}

// fcallGeneric is fcallCommandGeneric for FCALL and FCALL_RO.
func fcallGeneric(c *client, args [][]byte, ro bool) {
	s := c.srv
	lib := s.functionsLocked()
	f := lib.Function(args[1])
	if f == nil {
		c.fail(protocol.Error("ERR Function not found"))
		return
	}
	numkeys, ok := parseNumKeys(c, args, protocol.Error("ERR Bad number of keys provided"))
	if !ok {
		return
	}
	r := s.newRunLocked(f.Name, false, ro)
	if !prepareFlags(c, f.Flags, ro, r) {
		return
	}
	keys, argv := args[3:3+numkeys], args[3+numkeys:]
	s.runScriptLocked(c, args, r, func(h script.Host) script.Result {
		return lib.Call(f, s.luaRunLocked(h, f.Name, keys, argv), &c.w)
	})
}
