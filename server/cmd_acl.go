package server

import (
	"crypto/rand"
	"encoding/hex"
	"strconv"
	"strings"
	"time"

	"github.com/miniwatchd/miniwatchd/cmdmeta"
	"github.com/miniwatchd/miniwatchd/protocol"
)

// The ACL command (Redis's aclCommand in acl.c). LOAD and SAVE (aclfile)
// are not supported: they reply Redis's error for a server started without
// an aclfile.
var aclCommands = []commandDef{
	{"acl|setuser", cmdACLSetUser},
	{"acl|getuser", cmdACLGetUser},
	{"acl|deluser", cmdACLDelUser},
	{"acl|users", cmdACLUsers},
	{"acl|list", cmdACLList},
	{"acl|whoami", cmdACLWhoAmI},
	{"acl|cat", cmdACLCat},
	{"acl|genpass", cmdACLGenPass},
	{"acl|log", cmdACLLog},
	{"acl|dryrun", cmdACLDryRun},
	{"acl|load", cmdACLNoFile},
	{"acl|save", cmdACLNoFile},
	{"acl|help", cmdHelp},
}

// aclStartLocked creates the default user and keeps requirepass applied
// to it (Redis's ACLInit and updateRequirePass).
func (s *Server) aclStartLocked() {
	s.aclInitLocked()
	s.params.onApply((*Server).aclApplyRequirePassLocked, "requirepass")
}

func cmdACLNoFile(c *client, args [][]byte) {
	c.fail(protocol.Error("ERR This Redis instance is not configured to use an ACL file. You may want to specify users via the ACL SETUSER command and then issue a CONFIG REWRITE (assuming you have a Redis configuration file set) in order to store users in the Redis configuration."))
}

func cmdACLSetUser(c *client, args [][]byte) {
	s := c.srv
	name := string(args[2])
	if strings.ContainsAny(name, " \x00") {
		c.fail(protocol.Error("ERR Usernames can't contain spaces or null characters"))
		return
	}
	// Rules apply to a copy, so a failing rule changes nothing (Redis
	// applies them to a temporary user too).
	old := s.acl.users[name]
	u := &aclUser{name: name, sel: aclSelector{allowed: map[*cmdmeta.Command]bool{}}}
	if old != nil {
		u.copyFrom(old)
	} else if v, _ := s.params.Value("acl-pubsub-default"); v == "allchannels" {
		u.sel.allChans = true
	}
	for _, a := range args[3:] {
		if e := u.setLocked(s, string(a)); e != "" {
			c.fail(protocol.Error("ERR Error in ACL SETUSER modifier '" + string(a) + "': " + e))
			return
		}
	}
	u.refresh()
	if old != nil {
		old.copyFrom(u)
		old.refresh()
		s.aclKillPubsubClientsLocked(old, c)
	} else {
		s.acl.users[name] = u
	}
	c.w.OK()
}

// copyFrom makes u a deep copy of o (the name excepted).
func (u *aclUser) copyFrom(o *aclUser) {
	u.on, u.nopass, u.sanitize = o.on, o.nopass, o.sanitize
	u.passwords = append([]string(nil), o.passwords...)
	sel := o.sel
	sel.allowed = make(map[*cmdmeta.Command]bool, len(o.sel.allowed))
	for k, v := range o.sel.allowed {
		sel.allowed[k] = v
	}
	if o.sel.firstArgs != nil {
		sel.firstArgs = map[*cmdmeta.Command][]string{}
		for k, v := range o.sel.firstArgs {
			sel.firstArgs[k] = append([]string(nil), v...)
		}
	}
	sel.rules = append([]string(nil), o.sel.rules...)
	sel.keys = append([]aclKeyPattern(nil), o.sel.keys...)
	sel.chans = append([]string(nil), o.sel.chans...)
	u.sel = sel
}

// aclKillPubsubClientsLocked is ACLKillPubsubClientsIfNeeded: clients of u
// subscribed to a channel or pattern u may no longer use are closed.
func (s *Server) aclKillPubsubClientsLocked(u *aclUser, current *client) {
	if u.sel.allChans {
		return
	}
	for _, cl := range s.clients {
		if cl.user != u {
			continue
		}
		kill := false
		for _, ch := range s.clientChannelsLocked(cl) {
			if !u.sel.channelAllowed([]byte(ch.name), ch.pattern) {
				kill = true
				break
			}
		}
		if kill {
			s.killClientLocked(cl, current)
		}
	}
}

func cmdACLGetUser(c *client, args [][]byte) {
	u := c.srv.acl.users[string(args[2])]
	w := &c.w
	if u == nil {
		w.Null()
		return
	}
	w.Map(6)
	w.BulkString("flags")
	flags := u.flagNames()
	w.Set(len(flags))
	for _, f := range flags {
		w.BulkString(f)
	}
	w.BulkString("passwords")
	w.Array(len(u.passwords))
	for _, p := range u.passwords {
		w.BulkString(p)
	}
	w.BulkString("commands")
	w.BulkString(u.sel.describeCommands(c.srv))
	w.BulkString("keys")
	w.BulkString(u.sel.describeKeys())
	w.BulkString("channels")
	w.BulkString(u.sel.describeChannels())
	w.BulkString("selectors")
	w.Array(0)
}

func cmdACLDelUser(c *client, args [][]byte) {
	s := c.srv
	for _, a := range args[2:] {
		if string(a) == "default" {
			c.fail(protocol.Error("ERR The 'default' user cannot be removed"))
			return
		}
	}
	n := 0
	for _, a := range args[2:] {
		u := s.acl.users[string(a)]
		if u == nil {
			continue
		}
		delete(s.acl.users, u.name)
		n++
		s.aclKillUserClientsLocked(u, c)
	}
	c.w.Int(int64(n))
}

// aclKillUserClientsLocked is ACLFreeUserAndKillClients: every client
// authenticated as u goes back to the default user, unauthenticated, and
// is closed (the current client after its reply).
func (s *Server) aclKillUserClientsLocked(u *aclUser, current *client) {
	for _, cl := range s.clients {
		if cl.user != u {
			continue
		}
		cl.user = s.acl.users["default"]
		cl.authenticated = false
		s.killClientLocked(cl, current)
	}
}

func cmdACLUsers(c *client, args [][]byte) {
	users := c.srv.sortedUsersLocked()
	c.w.Array(len(users))
	for _, u := range users {
		c.w.BulkString(u.name)
	}
}

func cmdACLList(c *client, args [][]byte) {
	users := c.srv.sortedUsersLocked()
	c.w.Array(len(users))
	for _, u := range users {
		c.w.BulkString(u.describe(c.srv))
	}
}

func cmdACLWhoAmI(c *client, args [][]byte) { c.w.BulkString(c.userName()) }

// userName is the name of the client's user.
func (c *client) userName() string {
	if c.user == nil {
		return "default"
	}
	return c.user.name
}

func cmdACLCat(c *client, args [][]byte) {
	s := c.srv
	if len(args) == 2 {
		c.w.Array(len(aclCategories))
		for _, cat := range aclCategories {
			c.w.BulkString(cat)
		}
		return
	}
	if len(args) > 3 {
		c.fail(protocol.ErrWrongArity("acl|cat"))
		return
	}
	cat := strings.ToLower(string(args[2]))
	if !isACLCategory(cat) {
		c.fail(protocol.Error("ERR Unknown category '" + string(args[2]) + "'"))
		return
	}
	var names []string
	s.eachCommand(func(cmd *cmdmeta.Command) {
		if cmd.HasACLCategory(cat) {
			names = append(names, cmd.FullName)
		}
	})
	c.w.Array(len(names))
	for _, n := range names {
		c.w.BulkString(n)
	}
}

func cmdACLGenPass(c *client, args [][]byte) {
	bits := int64(256)
	if len(args) == 3 {
		n, ok := protocol.ParseInt(args[2])
		if !ok {
			c.fail(protocol.ErrNotInteger)
			return
		}
		bits = n
	} else if len(args) > 3 {
		c.fail(protocol.ErrWrongArity("acl|genpass"))
		return
	}
	if bits <= 0 || bits > 4096 {
		c.fail(protocol.Error("ERR ACL GENPASS argument must be the number of bits for the output password, a positive number up to 4096"))
		return
	}
	chars := (bits + 3) / 4
	buf := make([]byte, (chars+1)/2)
	rand.Read(buf)
	c.w.BulkString(hex.EncodeToString(buf)[:chars])
}

func cmdACLDryRun(c *client, args [][]byte) {
	s := c.srv
	u := s.acl.users[string(args[2])]
	if u == nil {
		c.fail(protocol.Error("ERR User '" + string(args[2]) + "' not found"))
		return
	}
	cargs := args[3:]
	cmd, _ := s.table.lookup(cargs)
	if cmd == nil {
		c.fail(protocol.Error("ERR Command '" + string(cargs[0]) + "' not found"))
		return
	}
	if (cmd.arity > 0 && cmd.arity != len(cargs)) || len(cargs) < -cmd.arity {
		c.fail(protocol.ErrWrongArity(cmd.name))
		return
	}
	res, pos := u.checkCmd(cmd, cargs)
	switch res {
	case aclOK:
		c.w.OK()
	case aclDeniedCmd:
		c.w.BulkString("This user has no permissions to run the '" + cmd.name + "' command")
	case aclDeniedKey:
		c.w.BulkString("This user has no permissions to access the '" + string(cargs[pos]) + "' key")
	default:
		c.w.BulkString("This user has no permissions to access the '" + string(cargs[pos]) + "' channel")
	}
}

// aclLogEntry is one ACL LOG entry (Redis's ACLLogEntry).
type aclLogEntry struct {
	count                            int64
	reason, context, object, usernam string
	ctime                            time.Time
	cinfo                            string
}

// aclLogLocked records a denial (addACLLogEntry): an entry equal in
// reason, context, object and user to one logged in the last 60 seconds
// is counted there and moved to the head.
func (s *Server) aclLogLocked(c *client, reason int, context, object, username string) {
	r := map[int]string{aclDeniedCmd: "command", aclDeniedKey: "key", aclDeniedChannel: "channel", aclDeniedAuth: "auth"}[reason]
	now := time.Now()
	info := s.clientInfoLocked(c)
	for i, e := range s.acl.log {
		if e.reason == r && e.context == context && e.object == object && e.usernam == username && now.Sub(e.ctime) < 60*time.Second {
			e.count++
			e.ctime = now
			e.cinfo = info
			copy(s.acl.log[1:i+1], s.acl.log[:i])
			s.acl.log[0] = e
			return
		}
	}
	e := &aclLogEntry{count: 1, reason: r, context: context, object: object, usernam: username, ctime: now, cinfo: info}
	s.acl.log = append([]*aclLogEntry{e}, s.acl.log...)
	maxLen := 128
	if v, ok := s.params.Value("acllog-max-len"); ok {
		maxLen, _ = strconv.Atoi(v)
	}
	if len(s.acl.log) > maxLen {
		s.acl.log = s.acl.log[:maxLen]
	}
}

func cmdACLLog(c *client, args [][]byte) {
	s := c.srv
	count := int64(10)
	if len(args) == 3 {
		if strings.EqualFold(string(args[2]), "reset") {
			s.acl.log = nil
			c.w.OK()
			return
		}
		n, ok := protocol.ParseInt(args[2])
		if !ok {
			c.fail(protocol.ErrNotInteger)
			return
		}
		count = n
	} else if len(args) > 3 {
		c.fail(protocol.ErrSyntax)
		return
	}
	if count < 0 {
		count = 0
	}
	n := min(int(count), len(s.acl.log))
	now := time.Now()
	w := &c.w
	w.Array(n)
	for _, e := range s.acl.log[:n] {
		w.Map(7)
		w.BulkString("count")
		w.Int(e.count)
		w.BulkString("reason")
		w.BulkString(e.reason)
		w.BulkString("context")
		w.BulkString(e.context)
		w.BulkString("object")
		w.BulkString(e.object)
		w.BulkString("username")
		w.BulkString(e.usernam)
		w.BulkString("age-seconds")
		w.Double(float64(now.Sub(e.ctime).Milliseconds()) / 1000)
		w.BulkString("client-info")
		w.BulkString(e.cinfo)
	}
}

type aclSubscription struct {
	name    string
	pattern bool
}

// clientChannelsLocked lists a client's channel, pattern and shard channel
// subscriptions.
func (s *Server) clientChannelsLocked(c *client) []aclSubscription {
	var out []aclSubscription
	for kind, set := range c.ps.subs {
		for _, name := range set.snapshot() {
			out = append(out, aclSubscription{name: name, pattern: subKind(kind) == kindPattern})
		}
	}
	return out
}
