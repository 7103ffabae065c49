package server

import (
	"bytes"
	"strconv"
	"strings"
	"time"

	"github.com/miniwatchd/miniwatchd/protocol"
)

// CLIENT subcommands (Redis networking.c clientCommand; SETINFO and NO-TOUCH
// as in 7.2).

var clientCommands = []commandDef{
	{"client|id", cmdClientID},
	{"client|setname", cmdClientSetName},
	{"client|getname", cmdClientGetName},
	{"client|list", cmdClientList},
	{"client|info", cmdClientInfo},
	{"client|setinfo", cmdClientSetInfo},
	{"client|kill", cmdClientKill},
	{"client|no-evict", cmdClientNoEvict},
	{"client|no-touch", cmdClientNoTouch},
	{"client|help", cmdHelp},
}

// cmdHelp answers "<CONTAINER> HELP" with Redis's text. helpTexts holds
// the complete replies, the closing "HELP / Prints this help." included.
func cmdHelp(c *client, args [][]byte) {
	lines := helpTexts[strings.ToLower(string(args[0]))]
	c.w.Array(len(lines))
	c.w.Status(strings.ToUpper(string(args[0])) + " <subcommand> [<arg> [value] [opt] ...]. Subcommands are:")
	for _, l := range lines[1:] {
		c.w.Status(l)
	}
}

func cmdClientID(c *client, args [][]byte) { c.w.Int(c.id) }

// validateClientName rejects names Redis rejects: bytes outside '!'..'~'.
func validateClientName(name []byte) protocol.Error {
	for _, b := range name {
		if b < '!' || b > '~' {
			return "ERR Client names cannot contain spaces, newlines or special characters."
		}
	}
	return ""
}

func cmdClientSetName(c *client, args [][]byte) {
	if err := validateClientName(args[2]); err != "" {
		c.fail(err)
		return
	}
	c.name = string(args[2])
	c.w.OK()
}

func cmdClientGetName(c *client, args [][]byte) {
	if c.name == "" {
		c.w.Null()
		return
	}
	c.w.BulkString(c.name)
}

func cmdClientSetInfo(c *client, args [][]byte) {
	attr, val := args[2], args[3]
	var dest *string
	switch {
	case bytes.EqualFold(attr, []byte("lib-name")):
		dest = &c.libName
	case bytes.EqualFold(attr, []byte("lib-ver")):
		dest = &c.libVer
	default:
		c.fail(protocol.Error("ERR Unrecognized option '" + string(attr) + "'"))
		return
	}
	for _, b := range val {
		if b < '!' || b > '~' {
			c.fail(protocol.Error("ERR " + string(attr) + " cannot contain spaces, newlines or special characters."))
			return
		}
	}
	*dest = string(val)
	c.w.OK()
}

func cmdClientNoEvict(c *client, args [][]byte) {
	on, ok := parseOnOff(args[2])
	if !ok {
		c.fail(protocol.ErrSyntax)
		return
	}
	c.noEvict = on
	c.w.OK()
}

func cmdClientNoTouch(c *client, args [][]byte) {
	on, ok := parseOnOff(args[2])
	if !ok {
		c.fail(protocol.ErrSyntax)
		return
	}
	c.noTouch = on
	c.w.OK()
}

func parseOnOff(b []byte) (on, ok bool) {
	switch {
	case bytes.EqualFold(b, []byte("on")):
		return true, true
	case bytes.EqualFold(b, []byte("off")):
		return false, true
	}
	return false, false
}

func cmdClientInfo(c *client, args [][]byte) {
	c.w.Verbatim("txt", c.srv.clientInfoLocked(c)+"\n")
}

func cmdClientList(c *client, args [][]byte) {
	s := c.srv
	var ids map[int64]bool
	kind := ""
	if len(args) > 2 {
		switch {
		case len(args) == 4 && bytes.EqualFold(args[2], []byte("type")):
			kind = strings.ToLower(string(args[3]))
			switch kind {
			case "normal", "pubsub":
			case "master", "replica":
			case "slave":
				kind = "replica"
			default:
				c.fail(protocol.Error("ERR Unknown client type '" + string(args[3]) + "'"))
				return
			}
		case len(args) >= 4 && bytes.EqualFold(args[2], []byte("id")):
			ids = map[int64]bool{}
			for _, a := range args[3:] {
				id, ok := protocol.ParseInt(a)
				if !ok { // ids no client has (0, negative) just match nobody
					c.fail(protocol.Error("ERR Invalid client ID"))
					return
				}
				ids[id] = true
			}
		default:
			c.fail(protocol.ErrSyntax)
			return
		}
	}
	var b strings.Builder
	for _, cl := range s.sortedClientsLocked() {
		if ids != nil && !ids[cl.id] {
			continue
		}
		if kind != "" && kind != cl.kind() {
			continue
		}
		b.WriteString(s.clientInfoLocked(cl))
		b.WriteByte('\n')
	}
	c.w.Verbatim("txt", b.String())
}

// kind returns the client type CLIENT LIST TYPE and CLIENT KILL TYPE filter on.
func (c *client) kind() string {
	if c.link != nil {
		return "master"
	}
	if c.repl != nil && c.repl.state != 0 && !c.ops.monitor {
		return "replica"
	}
	if c.ps.subscribed() {
		return "pubsub"
	}
	return "normal"
}

// clientInfoLocked renders one CLIENT LIST line: Redis 7.0.15's fields in
// its order, then 7.2's lib-name= and lib-ver= (after resp=, as 7.2 puts
// them) and 7.4's watch= (the number of keys the client watches) last, so
// that parsers of 7.0's line keep working. qbuf= is what the client's
// query buffer holds: while its own batch runs, every byte of the batch.
func (s *Server) clientInfoLocked(c *client) string {
	now := time.Now()
	sub, psub, ssub, redir, extraFlags := clientPubSubInfo(s, c)
	flags := mergeClientFlags(c.flags(), extraFlags)
	multiCount := -1
	if c.multi.Active() {
		multiCount = c.multi.Len()
	}
	cmd := c.lastCmd
	if cmd == "" {
		cmd = "NULL"
	}
	qbuf := int(c.qbuf.Load()) // the parser belongs to the connection's goroutine
	var b []byte
	add := func(k, v string) {
		if len(b) > 0 {
			b = append(b, ' ')
		}
		b = append(b, k...)
		b = append(b, '=')
		b = append(b, v...)
	}
	itoa := func(n int64) string { return strconv.FormatInt(n, 10) }
	add("id", itoa(c.id))
	add("addr", c.addr)
	add("laddr", c.localAddr())
	add("fd", itoa(c.fdNumber()))
	add("name", c.name)
	add("age", itoa(int64(now.Sub(c.createdAt)/time.Second)))
	add("idle", itoa((now.UnixMilli()-c.lastActive.Load())/1000))
	add("flags", flags)
	add("db", itoa(int64(c.db.ID())))
	add("sub", itoa(int64(sub)))
	add("psub", itoa(int64(psub)))
	add("ssub", itoa(int64(ssub)))
	add("multi", itoa(int64(multiCount)))
	add("qbuf", itoa(int64(qbuf)))
	add("qbuf-free", itoa(int64(c.parser.Cap()-qbuf)))
	add("argv-mem", "0")
	add("multi-mem", "0")
	add("rbs", itoa(int64(cap(c.w.Buf))))
	add("rbp", itoa(int64(len(c.w.Buf))))
	add("obl", "0")
	add("oll", "0")
	add("omem", itoa(int64(c.pending())))
	add("tot-mem", itoa(int64(c.parser.Cap()+cap(c.w.Buf))))
	add("events", "r")
	add("cmd", cmd)
	add("user", c.userName())
	add("redir", itoa(redir))
	add("resp", itoa(int64(c.w.Proto)))
	add("lib-name", c.libName)
	add("lib-ver", c.libVer)
	add("watch", itoa(int64(c.watch.Count())))
	return string(b)
}

// fdNumber reports the socket's file descriptor (-1 for internal clients).
func (c *client) fdNumber() int64 {
	if c.sock == nil {
		return -1
	}
	return int64(c.fd)
}

func (s *Server) sortedClientsLocked() []*client {
	out := make([]*client, 0, len(s.clients))
	for _, cl := range s.clients {
		out = append(out, cl)
	}
	for i := 1; i < len(out); i++ {
		for j := i; j > 0 && out[j].id < out[j-1].id; j-- {
			out[j], out[j-1] = out[j-1], out[j]
		}
	}
	return out
}

func cmdClientKill(c *client, args [][]byte) {
	s := c.srv
	if len(args) == 3 {
		// Old form: CLIENT KILL addr:port.
		for _, cl := range s.clients {
			if cl.addr == string(args[2]) {
				s.killClientLocked(cl, c)
				c.w.OK()
				return
			}
		}
		c.fail(protocol.Error("ERR No such client"))
		return
	}
	var (
		id                   int64 = -1
		addr, laddr, user, t string
		skipme               = true
	)
	for i := 2; i < len(args); i += 2 {
		if i+1 >= len(args) {
			c.fail(protocol.ErrSyntax)
			return
		}
		opt, val := strings.ToLower(string(args[i])), args[i+1]
		switch opt {
		case "id":
			n, ok := protocol.ParseInt(val)
			if !ok || n <= 0 {
				c.fail(protocol.Error("ERR client-id should be greater than 0"))
				return
			}
			id = n
		case "type":
			t = strings.ToLower(string(val))
			switch t {
			case "normal", "pubsub", "master", "replica":
			case "slave":
				t = "replica"
			default:
				c.fail(protocol.Error("ERR Unknown client type '" + string(val) + "'"))
				return
			}
		case "addr":
			addr = string(val)
		case "laddr":
			laddr = string(val)
		case "user":
			user = string(val)
			if user != "default" {
				c.fail(protocol.Error("ERR No such user '" + user + "'"))
				return
			}
		case "skipme":
			switch strings.ToLower(string(val)) {
			case "yes":
				skipme = true
			case "no":
				skipme = false
			default:
				c.fail(protocol.ErrSyntax)
				return
			}
		default:
			c.fail(protocol.ErrSyntax)
			return
		}
	}
	killed := 0
	for _, cl := range s.sortedClientsLocked() {
		if id != -1 && cl.id != id {
			continue
		}
		if addr != "" && cl.addr != addr {
			continue
		}
		if laddr != "" && cl.localAddr() != laddr {
			continue
		}
		if t != "" && t != cl.kind() {
			continue
		}
		if cl == c && skipme {
			continue
		}
		s.killClientLocked(cl, c)
		killed++
	}
	c.w.Int(int64(killed))
}

// killClientLocked closes another client's connection; the killer's own
// connection closes after its reply is written.
func (s *Server) killClientLocked(victim, killer *client) {
	if victim == killer {
		victim.closeAfterRply = true
		return
	}
	s.disconnectLocked(victim)
}

// disconnectLocked frees another client now, as Redis's freeClient does:
// it is gone from CLIENT LIST and from every structure before the next
// command runs; its goroutine finds it unregistered and only closes.
func (s *Server) disconnectLocked(c *client) {
	s.loop.freeLocked(c)
}

// clientTimedOutLocked reports whether cl was idle for longer than
// timeout, now in Unix milliseconds (Redis's clientsCronHandleTimeout for
// normal clients); clientsCronLocked closes it.
func (s *Server) clientTimedOutLocked(cl *client, now int64) bool {
	if s.cfg.Timeout <= 0 || cl.sock == nil || cl.lastActive.Load() >= now-int64(s.cfg.Timeout)*1000 {
		return false
	}
	// Subscribers and monitors never time out; blocked clients have their own timeout.
	return !(cl.ps.subscribed() || cl.blocked != nil || cl.ops.monitor || cl.link != nil || (cl.repl != nil && cl.repl.state != 0))
}
