package server

import (
	"bytes"

	"github.com/miniwatchd/miniwatchd/protocol"
)

// Connection commands: PING ECHO QUIT SELECT HELLO AUTH RESET.

var connCommands = []commandDef{
	{"ping", cmdPing},
	{"echo", cmdEcho},
	{"quit", cmdQuit},
	{"select", cmdSelect},
	{"hello", cmdHello},
	{"auth", cmdAuth},
	{"reset", cmdReset},
}

func cmdPing(c *client, args [][]byte) {
	if len(args) > 2 {
		c.fail(protocol.ErrWrongArity("ping"))
		return
	}
	if pubsubPing(c, args) { // RESP2 subscribed mode: a "pong" message
		return
	}
	if len(args) == 1 {
		c.w.Status("PONG")
		return
	}
	c.w.Bulk(args[1])
}

func cmdEcho(c *client, args [][]byte) { c.w.Bulk(args[1]) }

func cmdQuit(c *client, args [][]byte) {
	c.w.OK()
	c.closeAfterRply = true
}

func cmdSelect(c *client, args [][]byte) {
	id, err := intArg(args[1])
	if err != "" {
		c.fail(err)
		return
	}
	if c.srv.cluster.on && id != 0 {
		c.fail(protocol.Error("ERR SELECT is not allowed in cluster mode"))
		return
	}
	if id < 0 || int(id) >= c.srv.ks.Len() {
		c.fail(protocol.ErrDBIndex)
		return
	}
	c.db = c.srv.ks.DB(int(id))
	c.w.OK()
}

var (
	errNoProto        = protocol.Error("NOPROTO unsupported protocol version")
	errHelloProtoInt  = protocol.Error("ERR Protocol version is not an integer or out of range")
	errHelloNoAuth    = protocol.Error("NOAUTH HELLO must be called with the client already authenticated, otherwise the HELLO AUTH <user> <pass> option can be used to authenticate the client and select the RESP protocol version at the same time")
	errAuthNoPassword = protocol.Error("ERR AUTH <password> called without any password configured for the default user. Are you sure your configuration is correct?")
)

func cmdHello(c *client, args [][]byte) {
	s := c.srv
	ver := int64(0)
	next := 1
	if len(args) >= 2 {
		v, ok := protocol.ParseInt(args[1])
		if !ok {
			c.fail(errHelloProtoInt)
			return
		}
		if v < 2 || v > 3 {
			c.fail(errNoProto)
			return
		}
		ver = v
		next = 2
	}
	var user, pass, name []byte
	for j := next; j < len(args); j++ {
		more := len(args) - 1 - j
		switch {
		case bytes.EqualFold(args[j], []byte("auth")) && more >= 2:
			user, pass = args[j+1], args[j+2]
			j += 2
		case bytes.EqualFold(args[j], []byte("setname")) && more >= 1:
			name = args[j+1]
			if err := validateClientName(name); err != "" {
				c.fail(err)
				return
			}
			j++
		default:
			c.fail(protocol.Error("ERR Syntax error in HELLO option '" + string(args[j]) + "'"))
			return
		}
	}
	if user != nil {
		if !s.authenticateLocked(c, args[0], user, pass) {
			c.fail(protocol.ErrWrongPass)
			return
		}
	}
	if !c.authenticated {
		c.fail(errHelloNoAuth)
		return
	}
	if name != nil {
		c.name = string(name)
	}
	if ver != 0 {
		c.w.Proto = int(ver)
	}
	w := &c.w
	w.Map(7)
	w.BulkString("server")
	w.BulkString("redis")
	w.BulkString("version")
	w.BulkString(RedisVersion)
	w.BulkString("proto")
	w.Int(int64(w.Proto))
	w.BulkString("id")
	w.Int(c.id)
	w.BulkString("mode")
	w.BulkString("standalone")
	w.BulkString("role")
	w.BulkString("master")
	w.BulkString("modules")
	w.Array(0)
}

// authenticateLocked checks user/pass (ACLAuthenticateUser): on success
// the client is authenticated as that user; on failure the attempt is
// logged in ACL LOG (reason auth, the object the command name as the
// client wrote it, context multi when run by EXEC) and false returned.
func (s *Server) authenticateLocked(c *client, cmdName, user, pass []byte) bool {
	u := s.acl.users[string(user)]
	if u == nil || !u.checkPassword(pass) {
		ctx := "toplevel"
		if c.multi.Active() {
			ctx = "multi"
		}
		s.aclLogLocked(c, aclDeniedAuth, ctx, string(cmdName), string(user))
		return false
	}
	c.user = u
	c.authenticated = true
	return true
}

func cmdAuth(c *client, args [][]byte) {
	s := c.srv
	if len(args) > 3 {
		c.fail(protocol.ErrSyntax)
		return
	}
	user, pass := []byte("default"), args[1]
	if len(args) == 3 {
		user, pass = args[1], args[2]
	} else if d := s.acl.users["default"]; d.nopass {
		c.fail(errAuthNoPassword)
		return
	}
	if !s.authenticateLocked(c, args[0], user, pass) {
		c.fail(protocol.ErrWrongPass)
		return
	}
	c.w.OK()
}

func cmdReset(c *client, args [][]byte) {
	s := c.srv
	for _, fn := range s.hooks.reset {
		fn(s, c)
	}
	c.db = s.ks.DB(0)
	c.w.Proto = 2
	s.resetClientUserLocked(c)
	s.discardTransactionLocked(c)
	c.name = ""
	c.noTouch = false
	c.w.Status("RESET")
}
