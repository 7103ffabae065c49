package server

import (
	"strconv"
	"strings"
	"time"

	"github.com/miniwatchd/miniwatchd/protocol"
)

// DEBUG FAULT: faults (fault.go) over RESP.
//
//	DEBUG FAULT ADD [CMD <name>] [KEY <pattern>] [CLIENT <pattern>] [DB <n>]
//	                [NTH <n>] [EVERY <n>] [PROB <p> [SEED <s>]] [TIMES <n>] <action>
//	    <action>: ERROR <text> | DELAY <ms> | CLOSE-BEFORE | CLOSE-AFTER |
//	              TRUNCATE <bytes> | DROP-REPLY | ABORT-EXEC |
//	              RUN-BEFORE <command> [<arg> ...] | RUN-AFTER <command> [<arg> ...]
//	    -> the new fault's ID (an integer)
//	DEBUG FAULT LIST        -> one bulk string per fault: "id=1 matched=3 fired=2 spent=0 spec=<ADD's arguments>"
//	DEBUG FAULT DEL <id> [<id> ...]  -> the number of faults removed
//	DEBUG FAULT CLEAR       -> the number of faults removed
//
// The action comes last: RUN-BEFORE and RUN-AFTER take the rest of the
// arguments as their command.

func debugFault(c *client, args [][]byte) {
	s := c.srv
	if len(args) < 3 {
		debugSyntaxError(c, args)
		return
	}
	switch sub := strings.ToLower(string(args[2])); {
	case sub == "add":
		f, err := parseFault(args[3:])
		if err == "" {
			if verr := f.validate(); verr != nil {
				err = protocol.Error("ERR " + verr.Error())
			}
		}
		if err != "" {
			c.fail(err)
			return
		}
		c.w.Int(int64(s.addFaultLocked(f)))
	case sub == "list" && len(args) == 3:
		c.w.Array(len(s.faults.list))
		for _, f := range s.faults.list {
			spent := 0
			if f.f.Times > 0 && f.fired >= int64(f.f.Times) {
				spent = 1
			}
			c.w.BulkString("id=" + strconv.Itoa(f.id) + " matched=" + strconv.FormatInt(f.matched, 10) +
				" fired=" + strconv.FormatInt(f.fired, 10) + " spent=" + strconv.Itoa(spent) + " spec=" + f.f.spec())
		}
	case sub == "del" && len(args) >= 4:
		n := 0
		for _, a := range args[3:] {
			id, ok := protocol.ParseInt(a)
			if !ok {
				c.fail(protocol.ErrNotInteger)
				return
			}
			if s.delFaultLocked(int(id)) {
				n++
			}
		}
		c.w.Int(int64(n))
	case sub == "clear" && len(args) == 3:
		n := len(s.faults.list)
		s.faults.list = nil
		c.w.Int(int64(n))
	default:
		debugSyntaxError(c, args)
	}
}

// parseFault reads DEBUG FAULT ADD's arguments.
func parseFault(args [][]byte) (Fault, protocol.Error) {
	var f Fault
	intArg := func(i int) (int, protocol.Error) {
		if i >= len(args) {
			return 0, protocol.ErrSyntax
		}
		n, ok := protocol.ParseInt(args[i])
		if !ok || n < 0 || n > 1<<31 {
			return 0, protocol.ErrNotInteger
		}
		return int(n), ""
	}
	strArg := func(i int) (string, protocol.Error) {
		if i >= len(args) {
			return "", protocol.ErrSyntax
		}
		return string(args[i]), ""
	}
	for i := 0; i < len(args); i++ {
		var err protocol.Error
		switch opt := strings.ToUpper(string(args[i])); opt {
		case "CMD":
			i++
			f.Command, err = strArg(i)
		case "KEY":
			i++
			f.Key, err = strArg(i)
		case "CLIENT":
			i++
			f.Client, err = strArg(i)
		case "DB":
			i++
			var n int
			if n, err = intArg(i); err == "" {
				f.DB = &n
			}
		case "NTH":
			i++
			f.Nth, err = intArg(i)
		case "EVERY":
			i++
			f.Every, err = intArg(i)
		case "TIMES":
			i++
			f.Times, err = intArg(i)
		case "PROB":
			i++
			if i >= len(args) {
				return f, protocol.ErrSyntax
			}
			p, ok := protocol.ParseFloat(args[i])
			if !ok {
				return f, protocol.ErrNotFloat
			}
			f.Probability = p
		case "SEED":
			i++
			if i >= len(args) {
				return f, protocol.ErrSyntax
			}
			n, perr := strconv.ParseUint(string(args[i]), 10, 64)
			if perr != nil {
				return f, protocol.ErrNotInteger
			}
			f.Seed = n
		case "ERROR":
			i++
			var text string
			if text, err = strArg(i); err == "" {
				f.Action = FaultError(text)
			}
		case "DELAY":
			i++
			var ms int
			if ms, err = intArg(i); err == "" {
				f.Action = FaultDelay(time.Duration(ms) * time.Millisecond)
			}
		case "TRUNCATE":
			i++
			var n int
			if n, err = intArg(i); err == "" {
				f.Action = FaultTruncate(n)
			}
		case "CLOSE-BEFORE":
			f.Action = FaultCloseBefore()
		case "CLOSE-AFTER":
			f.Action = FaultCloseAfter()
		case "DROP-REPLY":
			f.Action = FaultDropReply()
		case "ABORT-EXEC":
			f.Action = FaultAbortExec()
		case "RUN-BEFORE", "RUN-AFTER":
			rest := make([]string, 0, len(args)-i-1)
			for _, a := range args[i+1:] {
				rest = append(rest, string(a))
			}
			if len(rest) == 0 {
				return f, protocol.ErrSyntax
			}
			if opt == "RUN-BEFORE" {
				f.Action = FaultRunBefore(rest...)
			} else {
				f.Action = FaultRunAfter(rest...)
			}
			return f, ""
		default:
			return f, protocol.ErrSyntax
		}
		if err != "" {
			return f, err
		}
		if f.Action.kind != faultNone && i != len(args)-1 {
			return f, protocol.ErrSyntax // the action comes last
		}
	}
	if f.Action.kind == faultNone {
		return f, protocol.ErrSyntax
	}
	return f, ""
}
