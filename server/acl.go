package server

import (
	"crypto/sha256"
	"encoding/hex"
	"slices"
	"sort"
	"strings"
	"sync"

	"github.com/miniwatchd/miniwatchd/cmdmeta"
)

// ACL users as Redis 7.0's acl.c keeps them: a user is on or off, has
// passwords (SHA-256 hex) or nopass, and a root selector of command, key
// and channel permissions followed by any "(...)" selectors
// (acl_selector.go); ACL LIST's spelling is in acl_describe.go.
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
	// selectors are the "(...)" selectors after the root one, in order.
	selectors []*aclSelector
	// full is the dispatcher's fast path: the root selector allows every
	// command, key and channel, so processCommand checks nothing else.
	full bool
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
// channels acl-pubsub-default gives (ACLCreateUser), and adds it.
func (s *Server) newACLUserLocked(name string) *aclUser {
	u := s.newUnlinkedACLUser(name)
	s.acl.users[name] = u
	return u
}

// newUnlinkedACLUser is ACLCreateUnlinkedUser: a user not in the table.
func (s *Server) newUnlinkedACLUser(name string) *aclUser {
	u := &aclUser{name: name, sel: *s.newACLSelector()}
	u.refresh()
	return u
}

func (u *aclUser) refresh() {
	u.full = u.sel.allCmds && u.sel.allKeys && u.sel.allChans
}

// copyFrom is ACLCopyUser: u gets o's rules (the name excepted).
func (u *aclUser) copyFrom(o *aclUser) {
	u.on, u.nopass, u.sanitize = o.on, o.nopass, o.sanitize
	u.passwords = append([]string(nil), o.passwords...)
	u.sel = *o.sel.clone()
	u.selectors = nil
	for _, sel := range o.selectors {
		u.selectors = append(u.selectors, sel.clone())
	}
	u.refresh()
}

// setLocked applies one rule to u (ACLSetUser), returning Redis's error
// text or "". An empty rule does nothing.
func (u *aclUser) setLocked(s *Server, op string) string {
	defer u.refresh()
	if op == "" {
		return ""
	}
	switch strings.ToLower(op) {
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
	case "clearselectors":
		u.selectors = nil
		return ""
	case "reset":
		for _, r := range []string{"resetpass", "resetkeys", "resetchannels"} {
			u.setLocked(s, r)
		}
		if s.aclPubsubDefaultAll() {
			u.setLocked(s, "allchannels")
		}
		for _, r := range []string{"off", "sanitize-payload", "clearselectors", "-@all"} {
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
	switch op[0] {
	case '>', '#':
		h := op[1:]
		if op[0] == '>' {
			h = aclHash(h)
		} else if !validACLHash(h) {
			return aclErrBadHash
		}
		if !slices.Contains(u.passwords, h) {
			u.passwords = append(u.passwords, h)
		}
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
		if op[len(op)-1] == ')' {
			sel, e := s.aclParseSelector(op)
			if e != "" {
				return e
			}
			u.selectors = append(u.selectors, sel)
			return ""
		}
	}
	return u.sel.setLocked(s, op)
}

// allSelectors lists the root selector and then the others, in Redis's
// order of checking them.
func (u *aclUser) allSelectors() []*aclSelector {
	out := make([]*aclSelector, 0, 1+len(u.selectors))
	out = append(out, &u.sel)
	return append(out, u.selectors...)
}

// checkCmd is ACLCheckAllUserCommandPerm: the command runs if one
// selector allows it all. Otherwise the reason reported is the command
// when no selector allowed it, else the key or channel denial with the
// highest reason and then the highest argument index.
func (u *aclUser) checkCmd(cmd *command, args [][]byte) (int, int) {
	relevant, lastIdx := aclDeniedCmd, 0
	for i := -1; i < len(u.selectors); i++ {
		sel := &u.sel
		if i >= 0 {
			sel = u.selectors[i]
		}
		res, idx := sel.checkCmd(cmd, args)
		if res == aclOK {
			return aclOK, 0
		}
		if res > relevant || (res == relevant && idx > lastIdx) {
			relevant, lastIdx = res, idx
		}
	}
	return relevant, lastIdx
}

// channelAllowed is ACLUserCheckChannelPerm.
func (u *aclUser) channelAllowed(ch []byte, isPattern bool) bool {
	for _, sel := range u.allSelectors() {
		if sel.allChans || aclChannelInList(sel.chans, ch, isPattern) {
			return true
		}
	}
	return false
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

// aclAllCommands lists Redis 7.0.15's commands by name (computed once:
// the table is static).
var aclAllCommands = sync.OnceValue(func() []*cmdmeta.Command {
	var out []*cmdmeta.Command
	for _, c := range cmdmeta.All() {
		if !c.Added {
			out = append(out, c)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
})

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

// resetClientUserLocked makes c a client of the default user, authenticated
// when that user is on and nopass (Redis's createClient and RESET:
// clientSetDefaultAuth).
func (s *Server) resetClientUserLocked(c *client) {
	d := s.acl.users["default"]
	c.user = d
	c.authenticated = d.nopass && d.on
}
