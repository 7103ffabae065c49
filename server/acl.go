package server

import (
	"crypto/sha256"
	"encoding/hex"
	"sort"
	"strings"

	"github.com/miniwatchd/miniwatchd/cmdmeta"
	"github.com/miniwatchd/miniwatchd/glob"
)

// ACL users as Redis 7.0's acl.c keeps them: a user is on or off, has
// passwords (SHA-256 hex) or nopass, and a root selector of command, key
// and channel permissions. Selectors beyond the root ("(...)") are not
// supported: SETUSER with one replies Redis's syntax error.
//
// Everything here is guarded by the engine lock.

// aclUser is one ACL user (Redis's user struct).
type aclUser struct {
	name      string
	on        bool
	nopass    bool
	sanitize  int      // 1: sanitize-payload, 2: skip-sanitize-payload, 0: neither
	passwords []string // SHA-256 hex, in the order added
	sel       aclSelector
	// full is the dispatcher's fast path: every command, key and channel
	// is allowed, so processCommand checks nothing else.
	full bool
}

// aclSelector is Redis's aclSelector: the root selector of a user.
type aclSelector struct {
	allCmds   bool // SELECTOR_FLAG_ALLCOMMANDS
	future    bool // the reserved "future commands" bit, set by +@all
	allowed   map[*cmdmeta.Command]bool
	firstArgs map[*cmdmeta.Command][]string
	rules     []string // command_rules: "+get", "-@string", in order
	allKeys   bool
	keys      []aclKeyPattern
	allChans  bool
	chans     []string
}

// aclKeyPattern is a key pattern with its read/write permissions.
type aclKeyPattern struct {
	read, write bool
	pattern     string
}

// ACL denial reasons (Redis's ACL_DENIED_*).
const (
	aclOK = iota
	aclDeniedCmd
	aclDeniedKey
	aclDeniedAuth
	aclDeniedChannel
)

// aclState is the server's user table.
type aclState struct {
	users map[string]*aclUser
	log   []*aclLogEntry // newest first
}

// aclCategories lists Redis 7.0's ACL categories in ACL CAT's order.
var aclCategories = []string{"keyspace", "read", "write", "set", "sortedset", "list",
	"hash", "string", "bitmap", "hyperloglog", "geo", "stream", "pubsub", "admin",
	"fast", "slow", "blocking", "dangerous", "connection", "transaction", "scripting"}

func isACLCategory(name string) bool {
	for _, c := range aclCategories {
		if c == name {
			return true
		}
	}
	return false
}

// aclInitLocked creates the default user (on nopass ~* &* +@all) and
// applies requirepass to it, as Redis's ACLInitDefaultUser and
// updateRequirePass do.
func (s *Server) aclInitLocked() {
	s.acl.users = map[string]*aclUser{}
	d := s.newACLUserLocked("default")
	d.setLocked(s, "+@all")
	d.setLocked(s, "~*")
	d.setLocked(s, "&*")
	d.setLocked(s, "on")
	d.setLocked(s, "nopass")
	s.aclApplyRequirePassLocked()
}

// aclApplyRequirePassLocked is updateRequirePass: requirepass "" makes the
// default user nopass, anything else its only password.
func (s *Server) aclApplyRequirePassLocked() error {
	d := s.acl.users["default"]
	d.setLocked(s, "resetpass")
	if s.cfg.RequirePass == "" {
		d.setLocked(s, "nopass")
	} else {
		d.setLocked(s, ">"+s.cfg.RequirePass)
	}
	return nil
}

// newACLUserLocked creates a user that is off, with no permissions and the
// channels acl-pubsub-default gives (ACLCreateUser).
func (s *Server) newACLUserLocked(name string) *aclUser {
	u := &aclUser{name: name}
	u.sel.allowed = map[*cmdmeta.Command]bool{}
	if v, _ := s.params.Value("acl-pubsub-default"); v == "allchannels" {
		u.sel.allChans = true
	}
	s.acl.users[name] = u
	u.refresh()
	return u
}

func (u *aclUser) refresh() {
	u.full = u.sel.allCmds && u.sel.allKeys && u.sel.allChans
}

// ACL SETUSER errors (ACLSetUserStringError).
const (
	aclErrUnknown     = "Unknown command or category name in ACL"
	aclErrSyntax      = "Syntax error"
	aclErrAfterAllKey = "Adding a pattern after the * pattern (or the 'allkeys' flag) is not valid and does not have any effect. Try 'resetkeys' to start with an empty list of patterns"
	aclErrAfterAllCh  = "Adding a pattern after the * pattern (or the 'allchannels' flag) is not valid and does not have any effect. Try 'resetchannels' to start with an empty list of channels"
	aclErrNoPassword  = "The password you are trying to remove from the user does not exist"
	aclErrBadHash     = "The password hash must be exactly 64 characters and contain only lowercase hexadecimal characters"
	aclErrSubFirstArg = "Allowing first-arg of a subcommand is not supported"
)

// setLocked applies one rule to u (ACLSetUser), returning Redis's error
// text or "".
func (u *aclUser) setLocked(s *Server, op string) string {
	defer u.refresh()
	lower := strings.ToLower(op)
	switch lower {
	case "on":
		u.on = true
		return ""
	case "off":
		u.on = false
		return ""
	case "nopass":
		u.nopass = true
		u.passwords = nil
		return ""
	case "resetpass":
		u.nopass = false
		u.passwords = nil
		return ""
	case "reset":
		for _, r := range []string{"resetpass", "resetkeys", "resetchannels"} {
			u.setLocked(s, r)
		}
		if v, _ := s.params.Value("acl-pubsub-default"); v == "allchannels" {
			u.setLocked(s, "allchannels")
		}
		for _, r := range []string{"off", "sanitize-payload", "-@all"} {
			u.setLocked(s, r)
		}
		return ""
	case "sanitize-payload":
		u.sanitize = 1
		return ""
	case "skip-sanitize-payload":
		u.sanitize = 2
		return ""
	}
	if op == "" {
		return aclErrSyntax
	}
	switch op[0] {
	case '>':
		h := aclHash(op[1:])
		u.removePassword(h)
		u.passwords = append(u.passwords, h)
		u.nopass = false
		return ""
	case '#':
		h := op[1:]
		if !validACLHash(h) {
			return aclErrBadHash
		}
		u.removePassword(h)
		u.passwords = append(u.passwords, h)
		u.nopass = false
		return ""
	case '<', '!':
		h := op[1:]
		if op[0] == '<' {
			h = aclHash(h)
		} else if !validACLHash(h) {
			return aclErrBadHash
		}
		if !u.removePassword(h) {
			return aclErrNoPassword
		}
		return ""
	case '(':
		return aclErrSyntax // selectors are not supported
	}
	return u.sel.setLocked(s, op)
}

func (u *aclUser) removePassword(h string) bool {
	for i, p := range u.passwords {
		if p == h {
			u.passwords = append(u.passwords[:i], u.passwords[i+1:]...)
			return true
		}
	}
	return false
}

func aclHash(pw string) string {
	sum := sha256.Sum256([]byte(pw))
	return hex.EncodeToString(sum[:])
}

func validACLHash(h string) bool {
	if len(h) != 64 {
		return false
	}
	for i := 0; i < len(h); i++ {
		c := h[i]
		if !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f') {
			return false
		}
	}
	return true
}

// setLocked applies a selector rule (ACLSetSelector).
func (sel *aclSelector) setLocked(s *Server, op string) string {
	lower := strings.ToLower(op)
	switch lower {
	case "allkeys":
		op, lower = "~*", "~*"
	case "allchannels":
		op, lower = "&*", "&*"
	case "allcommands":
		lower = "+@all"
	case "nocommands":
		lower = "-@all"
	}
	switch lower {
	case "resetkeys":
		sel.allKeys = false
		sel.keys = nil
		return ""
	case "resetchannels":
		sel.allChans = false
		sel.chans = nil
		return ""
	case "+@all":
		sel.allCmds, sel.future = true, true
		s.eachCommand(func(c *cmdmeta.Command) { sel.allowed[c] = true })
		sel.firstArgs = nil
		sel.rules = nil
		return ""
	case "-@all":
		sel.allCmds, sel.future = false, false
		clear(sel.allowed)
		sel.firstArgs = nil
		sel.rules = nil
		return ""
	}
	switch op[0] {
	case '~', '%':
		read, write := true, true
		pat := op[1:]
		if op[0] == '%' {
			flags, rest, ok := strings.Cut(op[1:], "~")
			if !ok {
				return aclErrSyntax
			}
			read, write = false, false
			for _, f := range flags {
				switch f {
				case 'R', 'r':
					read = true
				case 'W', 'w':
					write = true
				default:
					return aclErrSyntax
				}
			}
			if !read && !write {
				return aclErrSyntax
			}
			pat = rest
		}
		if sel.allKeys {
			return aclErrAfterAllKey
		}
		if pat == "*" && read && write {
			sel.allKeys = true
			sel.keys = nil
			return ""
		}
		for i, k := range sel.keys {
			if k.pattern == pat {
				sel.keys[i].read = sel.keys[i].read || read
				sel.keys[i].write = sel.keys[i].write || write
				return ""
			}
		}
		sel.keys = append(sel.keys, aclKeyPattern{read: read, write: write, pattern: pat})
		return ""
	case '&':
		if sel.allChans {
			return aclErrAfterAllCh
		}
		pat := op[1:]
		if pat == "*" {
			sel.allChans = true
			sel.chans = nil
			return ""
		}
		for _, c := range sel.chans {
			if c == pat {
				return ""
			}
		}
		sel.chans = append(sel.chans, pat)
		return ""
	case '+', '-':
		return sel.setCommandRule(s, lower, op[0] == '+')
	}
	return aclErrSyntax
}

// setCommandRule applies +cmd, -cmd, +@cat, -@cat and +cmd|firstarg.
func (sel *aclSelector) setCommandRule(s *Server, rule string, allow bool) string {
	name := rule[1:]
	if strings.HasPrefix(name, "@") {
		cat := name[1:]
		if !isACLCategory(cat) {
			return aclErrUnknown
		}
		s.eachCommand(func(c *cmdmeta.Command) {
			if c.HasACLCategory(cat) {
				sel.setCommand(c, allow)
			}
		})
	} else if cmd := s.aclLookupCommand(name); cmd != nil {
		sel.setCommand(cmd, allow) // ACLChangeSelectorPerm: a container and its subcommands
		for _, sub := range cmd.Subcommands {
			sel.setCommand(sub, allow)
		}
	} else {
		// +cmd|firstarg: a command without subcommands, allowed for one
		// first argument (ACLSetSelector's first-arg branch).
		base, first, ok := strings.Cut(name, "|")
		cmd := s.aclLookupCommand(base)
		if !ok || cmd == nil || !allow || first == "" {
			return aclErrUnknown
		}
		if cmd.Subcommands != nil || strings.Contains(first, "|") {
			return aclErrSubFirstArg
		}
		if !sel.allowed[cmd] {
			if sel.firstArgs == nil {
				sel.firstArgs = map[*cmdmeta.Command][]string{}
			}
			sel.firstArgs[cmd] = append(sel.firstArgs[cmd], first)
		}
	}
	if !allow {
		sel.allCmds = false
	}
	sel.updateRules(name, allow)
	return ""
}

func (sel *aclSelector) setCommand(c *cmdmeta.Command, allow bool) {
	sel.allowed[c] = allow
	if !allow {
		sel.allCmds = false
	}
	delete(sel.firstArgs, c)
}

// updateRules is ACLUpdateCommandRules: an earlier rule for the same name
// is dropped, the new one appended.
func (sel *aclSelector) updateRules(name string, allow bool) {
	for i := 0; i < len(sel.rules); i++ {
		if sel.rules[i][1:] == name {
			sel.rules = append(sel.rules[:i], sel.rules[i+1:]...)
			i--
		}
	}
	sign := "-"
	if allow {
		sign = "+"
	}
	sel.rules = append(sel.rules, sign+name)
}

// aclLookupCommand finds a command or "container|sub" by its ACL name.
func (s *Server) aclLookupCommand(name string) *cmdmeta.Command {
	base, sub, isSub := strings.Cut(name, "|")
	cmd := cmdmeta.Lookup(base)
	if cmd == nil || cmd.Added {
		return nil
	}
	if !isSub {
		return cmd
	}
	if cmd.Subcommands == nil {
		return nil
	}
	if sc := cmd.Sub(sub); sc != nil && !sc.Added {
		return sc
	}
	return nil
}

// eachCommand calls fn for every Redis 7.0.15 command and subcommand
// (a container's own bit included, as Redis's command bitmap has one), in
// name order; commands miniwatchd does not implement are included, as
// Redis's categories count them.
func (s *Server) eachCommand(fn func(c *cmdmeta.Command)) {
	for _, cmd := range aclAllCommands() {
		fn(cmd)
		for _, sub := range cmd.Subcommands {
			if !sub.Added {
				fn(sub)
			}
		}
	}
}

// aclAllCommands lists Redis 7.0.15's commands by name.
func aclAllCommands() []*cmdmeta.Command {
	var out []*cmdmeta.Command
	for _, c := range cmdmeta.All() {
		if !c.Added {
			out = append(out, c)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// describeLocked renders the user as ACL LIST does (ACLDescribeUser).
func (u *aclUser) describe(s *Server) string {
	var b strings.Builder
	b.WriteString("user ")
	b.WriteString(u.name)
	for _, f := range u.flagNames() {
		b.WriteString(" ")
		b.WriteString(f)
	}
	for _, p := range u.passwords {
		b.WriteString(" #")
		b.WriteString(p)
	}
	if k := u.sel.describeKeys(); k != "" {
		b.WriteString(" ")
		b.WriteString(k)
	}
	if u.sel.allChans {
		b.WriteString(" &*")
	} else {
		b.WriteString(" resetchannels")
		if ch := u.sel.describeChannels(); ch != "" {
			b.WriteString(" ")
			b.WriteString(ch)
		}
	}
	b.WriteString(" ")
	b.WriteString(u.sel.describeCommands(s))
	return b.String()
}

func (u *aclUser) flagNames() []string {
	f := []string{"off"}
	if u.on {
		f[0] = "on"
	}
	if u.nopass {
		f = append(f, "nopass")
	}
	switch u.sanitize {
	case 1:
		f = append(f, "sanitize-payload")
	case 2:
		f = append(f, "skip-sanitize-payload")
	}
	return f
}

func (sel *aclSelector) describeKeys() string {
	if sel.allKeys {
		return "~*"
	}
	parts := make([]string, 0, len(sel.keys))
	for _, k := range sel.keys {
		switch {
		case k.read && k.write:
			parts = append(parts, "~"+k.pattern)
		case k.read:
			parts = append(parts, "%R~"+k.pattern)
		default:
			parts = append(parts, "%W~"+k.pattern)
		}
	}
	return strings.Join(parts, " ")
}

func (sel *aclSelector) describeChannels() string {
	if sel.allChans {
		return "&*"
	}
	parts := make([]string, 0, len(sel.chans))
	for _, c := range sel.chans {
		parts = append(parts, "&"+c)
	}
	return strings.Join(parts, " ")
}

// describeCommands is Redis 7.0's ACLDescribeSelectorCommandRules: +@all
// or -@all, then each category that more than half matches, then the
// single commands (and first arguments) that still differ. Redis walks
// its command dict in an order that changes with every process's hash
// seed; this walks commands in name order.
func (sel *aclSelector) describeCommands(s *Server) string {
	fake := aclSelector{allowed: map[*cmdmeta.Command]bool{}}
	var rules []string
	additive := !sel.future
	if additive {
		rules = append(rules, "-@all")
		fake.setLocked(s, "-@all")
	} else {
		rules = append(rules, "+@all")
		fake.setLocked(s, "+@all")
	}
	for _, cat := range aclCategories {
		var on, off int
		s.eachCommand(func(c *cmdmeta.Command) {
			if c.HasACLCategory(cat) {
				if sel.allowed[c] {
					on++
				} else {
					off++
				}
			}
		})
		if (additive && on > off) || (!additive && off > on) {
			op := "-@" + cat
			if additive {
				op = "+@" + cat
			}
			fake.setLocked(s, op)
			rules = append(rules, op)
		}
	}
	single := func(c *cmdmeta.Command) {
		if ub := sel.allowed[c]; ub != fake.allowed[c] {
			op := "-"
			if ub {
				op = "+"
			}
			rules = append(rules, op+c.FullName)
			fake.setCommand(c, ub)
			for _, sub := range c.Subcommands {
				fake.setCommand(sub, ub)
			}
		}
	}
	for _, cmd := range aclAllCommands() {
		single(cmd)
		for _, sub := range cmd.Subcommands {
			if !sub.Added {
				single(sub)
			}
		}
		if !sel.allowed[cmd] {
			for _, fa := range sel.firstArgs[cmd] {
				rules = append(rules, "+"+cmd.FullName+"|"+fa)
			}
		}
	}
	return strings.Join(rules, " ")
}

// sortedUsers returns the users by name, as Redis's rax orders them.
func (s *Server) sortedUsersLocked() []*aclUser {
	out := make([]*aclUser, 0, len(s.acl.users))
	for _, u := range s.acl.users {
		out = append(out, u)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].name < out[j].name })
	return out
}

// checkPassword reports whether pass opens u (ACLCheckUserCredentials).
func (u *aclUser) checkPassword(pass []byte) bool {
	if !u.on {
		return false
	}
	if u.nopass {
		return true
	}
	h := aclHash(string(pass))
	for _, p := range u.passwords {
		if p == h {
			return true
		}
	}
	return false
}

// checkCmd is ACLSelectorCheckCmd for the root selector: it returns the
// denial reason and the index of the denied argument (0 for the command).
func (u *aclUser) checkCmd(cmd *command, args [][]byte) (int, int) {
	sel := &u.sel
	if !sel.allCmds && !cmd.has(flagNoAuth) && !sel.allowed[cmd.meta] {
		ok := false
		if fa := sel.firstArgs[cmd.meta]; fa != nil && len(args) >= 2 {
			for _, a := range fa {
				if strings.EqualFold(a, string(args[1])) {
					ok = true
					break
				}
			}
		}
		if !ok {
			return aclDeniedCmd, 0
		}
	}
	if !sel.allKeys && cmd.meta.HasKeys() {
		for _, ref := range cmd.meta.KeyRefs(args) {
			if !sel.keyAllowed(args[ref.Pos], ref.Flags) {
				return aclDeniedKey, ref.Pos
			}
		}
	}
	if !sel.allChans {
		for _, ch := range aclChannelArgs(cmd, args) {
			if !sel.channelAllowed(args[ch.pos], ch.pattern) {
				return aclDeniedChannel, ch.pos
			}
		}
	}
	return aclOK, 0
}

// keyAllowed is ACLSelectorCheckKey: access needs read, insert, delete
// and update need write.
func (sel *aclSelector) keyAllowed(key []byte, flags []string) bool {
	var needR, needW bool
	for _, f := range flags {
		switch f {
		case "access":
			needR = true
		case "insert", "delete", "update":
			needW = true
		}
	}
	for _, k := range sel.keys {
		if (needR && !k.read) || (needW && !k.write) {
			continue
		}
		if glob.Match([]byte(k.pattern), key) {
			return true
		}
	}
	return false
}

// channelAllowed is ACLCheckChannelAgainstList: a pattern subscription
// must equal one of the user's patterns literally.
func (sel *aclSelector) channelAllowed(ch []byte, isPattern bool) bool {
	for _, p := range sel.chans {
		if isPattern {
			if p == string(ch) {
				return true
			}
		} else if glob.Match([]byte(p), ch) {
			return true
		}
	}
	return false
}

type aclChannelArg struct {
	pos     int
	pattern bool
}

// aclChannelArgs lists the channels a command publishes or subscribes to
// (getChannelsFromCommand with CMD_CHANNEL_PUBLISH|CMD_CHANNEL_SUBSCRIBE).
func aclChannelArgs(cmd *command, args [][]byte) []aclChannelArg {
	var out []aclChannelArg
	switch cmd.name {
	case "publish", "spublish":
		out = append(out, aclChannelArg{pos: 1})
	case "subscribe", "ssubscribe", "psubscribe":
		for i := 1; i < len(args); i++ {
			out = append(out, aclChannelArg{pos: i, pattern: cmd.name == "psubscribe"})
		}
	}
	return out
}

// resetClientUserLocked makes c a client of the default user, authenticated
// when that user is on and nopass (Redis's createClient and RESET:
// clientSetDefaultAuth).
func (s *Server) resetClientUserLocked(c *client) {
	d := s.acl.users["default"]
	c.user = d
	c.authenticated = d.nopass && d.on
}
