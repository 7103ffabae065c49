package server

import (
	"crypto/rand"
	"encoding/hex"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/miniwatchd/miniwatchd/cmdmeta"
	"github.com/miniwatchd/miniwatchd/protocol"
)

// The ACL command (Redis's aclCommand in acl.c); LOAD and SAVE are in
// acl_file.go.
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
	{"acl|load", cmdACLLoad},
	{"acl|save", cmdACLSave},
	{"acl|help", cmdHelp},
}

// aclStartLocked creates the default user and keeps requirepass applied
// to it (Redis's ACLInit and updateRequirePass).
func (s *Server) aclStartLocked() {
	s.aclInitLocked()
	s.params.onApply((*Server).aclApplyRequirePassLocked, "requirepass")
}

func cmdACLSetUser(c *client, args [][]byte) {
	s := c.srv
	name := string(args[2])
	if aclHasSpaces(name) {
		c.fail(protocol.Error("ERR Usernames can't contain spaces or null characters"))
		return
	}
	rules := make([]string, 0, len(args)-3)
	for _, a := range args[3:] {
		rules = append(rules, string(a))
	}
	merged, bad, ok := aclMergeSelectorArgs(rules)
	if !ok {
		c.fail(protocol.Error("ERR Unmatched parenthesis in acl selector starting at '" + rules[bad] + "'."))
		return
	}
	// Rules apply to a copy, so a failing rule changes nothing (Redis
	// stages them on an unlinked user too).
	old := s.acl.users[name]
	u := s.newUnlinkedACLUser(name)
	if old != nil {
		u.copyFrom(old)
	}
	for _, r := range merged {
		if e := u.setLocked(s, r); e != "" {
			c.fail(protocol.Error("ERR Error in ACL SETUSER modifier '" + r + "': " + e))
			return
		}
	}
	if old != nil {
		s.aclKillPubsubClientsLocked(u, old, c)
		old.copyFrom(u)
	} else {
		s.acl.users[name] = u
	}
	c.w.OK()
}

// aclKillPubsubClientsLocked is ACLKillPubsubClientsIfNeeded, run before
// original takes the rules of updated: nothing happens when a selector of
// updated allows every channel, or when every channel pattern original
// listed is listed (literally) by updated, none of original's selectors
// allowing every channel. Otherwise each subscribed
// client of original with a channel, shard channel or pattern that the
// union of updated's patterns does not allow is closed (current, the
// client running ACL SETUSER, after its reply).
func (s *Server) aclKillPubsubClientsLocked(updated, original *aclUser, current *client) {
	var upcoming []string
	for _, sel := range updated.allSelectors() {
		if sel.allChans {
			return
		}
		upcoming = append(upcoming, sel.chans...)
	}
	superset := true
	for _, sel := range original.allSelectors() {
		if sel.allChans {
			superset = false // checked above: no selector of updated has it
		}
		for _, ch := range sel.chans {
			if !slices.Contains(upcoming, ch) {
				superset = false
			}
		}
	}
	if superset {
		return
	}
	for _, cl := range s.clients {
		if cl.user != original {
			continue
		}
		for _, ch := range s.clientChannelsLocked(cl) {
			if !aclChannelInList(upcoming, []byte(ch.name), ch.pattern) {
				s.killClientLocked(cl, current)
				break
			}
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
	writeACLSelector(c, &u.sel)
	w.BulkString("selectors")
	w.Array(len(u.selectors))
	for _, sel := range u.selectors {
		w.Map(3)
		writeACLSelector(c, sel)
	}
}

// writeACLSelector is aclAddReplySelectorDescription: three map entries.
func writeACLSelector(c *client, sel *aclSelector) {
	w := &c.w
	w.BulkString("commands")
	w.BulkString(sel.describeCommands(c.srv))
	w.BulkString("keys")
	w.BulkString(sel.describeKeys())
	w.BulkString("channels")
	w.BulkString(sel.describeChannels())
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
		c.w.BulkString("user " + u.name + " " + u.describe(c.srv))
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
		c.fail(errSubcommandSyntax(args[1], "ACL"))
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
		c.fail(errSubcommandSyntax(args[1], "ACL"))
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
		cmd = aclMetaCommand(cargs)
	}
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

// aclMetaCommand stands for a Redis 7.0.15 command miniwatchd does not
// implement (MIGRATE, CLUSTER ...), built from its metadata, so ACL DRYRUN
// judges it as Redis's lookupCommand would find it; nil if Redis has no
// such command either.
func aclMetaCommand(args [][]byte) *command {
	meta := cmdmeta.Lookup(strings.ToLower(string(args[0])))
	if meta == nil || meta.Added {
		return nil
	}
	if meta.Subcommands != nil && len(args) >= 2 {
		if meta = meta.SubBytes(args[1]); meta == nil || meta.Added {
			return nil
		}
	}
	cmd := &command{name: meta.FullName, arity: meta.Arity, meta: meta}
	if meta.HasFlag("no_auth") {
		cmd.flags |= flagNoAuth
	}
	return cmd
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
		c.fail(errSubcommandSyntax(args[1], "ACL"))
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
