package server

import (
	"strings"

	"github.com/miniwatchd/miniwatchd/cmdmeta"
	"github.com/miniwatchd/miniwatchd/glob"
	"github.com/miniwatchd/miniwatchd/protocol"
)

// ACL selectors as Redis 7.0.15's acl.c keeps them (aclSelector,
// ACLSetSelector, ACLSelectorCheckCmd). Every user has a root selector
// (the rules written outside parentheses) and any number of selectors
// added with "(...)"; a command runs when one selector allows all of it.
//
// Everything here is guarded by the engine lock.

// aclSelector is one selector: a command bitmap with its first-arg
// exceptions, key patterns and channel patterns.
type aclSelector struct {
	allCmds   bool // SELECTOR_FLAG_ALLCOMMANDS: the bitmap need not be read
	future    bool // the reserved "future commands" bit, set only by +@all
	allowed   map[*cmdmeta.Command]bool
	firstArgs map[*cmdmeta.Command][]string
	allKeys   bool // SELECTOR_FLAG_ALLKEYS
	keys      []aclKeyPattern
	allChans  bool // SELECTOR_FLAG_ALLCHANNELS
	chans     []string
}

// aclKeyPattern is a key pattern with its read/write permissions.
type aclKeyPattern struct {
	read, write bool
	pattern     string
}

// newACLSelector is ACLCreateSelector: no permissions, the channels
// acl-pubsub-default gives.
func (s *Server) newACLSelector() *aclSelector {
	sel := &aclSelector{allowed: map[*cmdmeta.Command]bool{}}
	sel.allChans = s.aclPubsubDefaultAll()
	return sel
}

// aclPubsubDefaultAll reports whether acl-pubsub-default is allchannels
// (read from the configuration, so it works before the registry exists).
func (s *Server) aclPubsubDefaultAll() bool {
	return s.cfg.Params["acl-pubsub-default"] == "allchannels"
}

// clone is ACLCopySelector.
func (sel *aclSelector) clone() *aclSelector {
	c := *sel
	c.allowed = make(map[*cmdmeta.Command]bool, len(sel.allowed))
	for k, v := range sel.allowed {
		c.allowed[k] = v
	}
	c.firstArgs = nil
	if sel.firstArgs != nil {
		c.firstArgs = map[*cmdmeta.Command][]string{}
		for k, v := range sel.firstArgs {
			c.firstArgs[k] = append([]string(nil), v...)
		}
	}
	c.keys = append([]aclKeyPattern(nil), sel.keys...)
	c.chans = append([]string(nil), sel.chans...)
	return &c
}

// ACL SETUSER errors (ACLSetUserStringError).
const (
	aclErrUnknown     = "Unknown command or category name in ACL"
	aclErrSyntax      = "Syntax error"
	aclErrAfterAllKey = "Adding a pattern after the * pattern (or the 'allkeys' flag) is not valid and does not have any effect. Try 'resetkeys' to start with an empty list of patterns"
	aclErrAfterAllCh  = "Adding a pattern after the * pattern (or the 'allchannels' flag) is not valid and does not have any effect. Try 'resetchannels' to start with an empty list of channels"
	aclErrNoPassword  = "The password you are trying to remove from the user does not exist"
	aclErrBadHash     = "The password hash must be exactly 64 characters and contain only lowercase hexadecimal characters"
	aclErrDuplicate   = "Duplicate user found. A user can only be defined once in config files"
	aclErrSubFirstArg = "Allowing first-arg of a subcommand is not supported"
)

// aclHasSpaces is ACLStringHasSpaces: C isspace or NUL.
func aclHasSpaces(s string) bool {
	return strings.ContainsAny(s, " \t\n\v\f\r\x00")
}

// setLocked applies one selector rule (ACLSetSelector), returning Redis's
// error text or "".
func (sel *aclSelector) setLocked(s *Server, op string) string {
	switch strings.ToLower(op) {
	case "allkeys", "~*":
		sel.allKeys, sel.keys = true, nil
		return ""
	case "resetkeys":
		sel.allKeys, sel.keys = false, nil
		return ""
	case "allchannels", "&*":
		sel.allChans, sel.chans = true, nil
		return ""
	case "resetchannels":
		sel.allChans, sel.chans = false, nil
		return ""
	case "allcommands", "+@all":
		sel.allCmds, sel.future = true, true
		s.eachCommand(func(c *cmdmeta.Command) { sel.allowed[c] = true })
		sel.firstArgs = nil
		return ""
	case "nocommands", "-@all":
		sel.allCmds, sel.future = false, false
		clear(sel.allowed)
		sel.firstArgs = nil
		return ""
	}
	switch {
	case op[0] == '~' || op[0] == '%':
		return sel.addKeyPattern(op)
	case op[0] == '&':
		if sel.allChans {
			return aclErrAfterAllCh
		}
		pat := op[1:]
		if aclHasSpaces(pat) {
			return aclErrSyntax
		}
		for _, c := range sel.chans {
			if c == pat {
				return ""
			}
		}
		sel.chans = append(sel.chans, pat)
		return ""
	case len(op) > 1 && (op[0] == '+' || op[0] == '-') && op[1] == '@':
		cat := strings.ToLower(op[2:])
		if !isACLCategory(cat) {
			return aclErrUnknown
		}
		sel.setCategory(s, cat, op[0] == '+')
		return ""
	case op[0] == '+':
		return sel.allowCommand(s, op[1:])
	case op[0] == '-':
		cmd := s.aclLookupCommand(op[1:])
		if cmd == nil {
			return aclErrUnknown
		}
		sel.changePerm(cmd, false)
		return ""
	}
	return aclErrSyntax
}

// addKeyPattern is ACLSetSelector's "~pattern" and "%RW~pattern" branch:
// "%" takes R and W once each up to the "~"; a pattern already listed
// gains the new permissions.
func (sel *aclSelector) addKeyPattern(op string) string {
	if sel.allKeys {
		return aclErrAfterAllKey
	}
	read, write := true, true
	offset := 1
	if op[0] == '%' {
		read, write = false, false
		for ; offset < len(op); offset++ {
			c := op[offset]
			if (c == 'R' || c == 'r') && !read {
				read = true
			} else if (c == 'W' || c == 'w') && !write {
				write = true
			} else if c == '~' {
				offset++
				break
			} else {
				return aclErrSyntax
			}
		}
		if !read && !write {
			return aclErrSyntax
		}
	}
	pat := op[offset:]
	if aclHasSpaces(pat) {
		return aclErrSyntax
	}
	for i, k := range sel.keys {
		if k.pattern == pat {
			sel.keys[i].read = k.read || read
			sel.keys[i].write = k.write || write
			return ""
		}
	}
	sel.keys = append(sel.keys, aclKeyPattern{read: read, write: write, pattern: pat})
	return ""
}

// allowCommand is "+cmd", "+container|sub" and "+cmd|firstarg"; the last
// "|" splits the name, as strrchr does in ACLSetSelector.
func (sel *aclSelector) allowCommand(s *Server, name string) string {
	i := strings.LastIndexByte(name, '|')
	if i < 0 {
		cmd := s.aclLookupCommand(name)
		if cmd == nil {
			return aclErrUnknown
		}
		sel.changePerm(cmd, true)
		return ""
	}
	base, first := name[:i], name[i+1:]
	cmd := s.aclLookupCommand(base)
	switch {
	case cmd == nil:
		return aclErrUnknown
	case cmd.Parent != nil:
		return aclErrSubFirstArg
	case first == "":
		return aclErrSyntax
	case cmd.Subcommands != nil:
		sub := s.aclLookupCommand(name)
		if sub == nil {
			return aclErrUnknown
		}
		sel.changePerm(sub, true)
		return ""
	}
	// ACLAddAllowedFirstArg: once per first argument, case-insensitively.
	for _, a := range sel.firstArgs[cmd] {
		if strings.EqualFold(a, first) {
			return ""
		}
	}
	if sel.firstArgs == nil {
		sel.firstArgs = map[*cmdmeta.Command][]string{}
	}
	sel.firstArgs[cmd] = append(sel.firstArgs[cmd], first)
	return ""
}

// changePerm is ACLChangeSelectorPerm: the command's bit, and for a
// container the bits of all its subcommands; the command's first-arg
// exceptions are dropped. Clearing a bit clears ALLCOMMANDS.
func (sel *aclSelector) changePerm(c *cmdmeta.Command, allow bool) {
	sel.setBit(c, allow)
	delete(sel.firstArgs, c)
	for _, sub := range c.Subcommands {
		if !sub.Added {
			sel.setBit(sub, allow)
		}
	}
}

func (sel *aclSelector) setBit(c *cmdmeta.Command, allow bool) {
	if allow {
		sel.allowed[c] = true
	} else {
		delete(sel.allowed, c)
		sel.allCmds = false
	}
}

// setCategory is ACLSetSelectorCommandBitsForCategory: every command of
// the category gets changePerm (a container in it takes all its
// subcommands along).
func (sel *aclSelector) setCategory(s *Server, cat string, allow bool) {
	s.eachCommand(func(c *cmdmeta.Command) {
		if c.HasACLCategory(cat) {
			sel.changePerm(c, allow)
		}
	})
}

// aclLookupCommand finds a command or "container|sub" by its ACL name
// (ACLLookupCommand over Redis 7.0.15's table).
func (s *Server) aclLookupCommand(name string) *cmdmeta.Command {
	base, sub, isSub := strings.Cut(name, "|")
	cmd := cmdmeta.Lookup(base)
	if cmd == nil || cmd.Added {
		return nil
	}
	if !isSub {
		return cmd
	}
	if cmd.Subcommands == nil || strings.Contains(sub, "|") {
		return nil
	}
	if sc := cmd.Sub(sub); sc != nil && !sc.Added {
		return sc
	}
	return nil
}

// checkCmd is ACLSelectorCheckCmd: it returns the denial reason and the
// index of the denied argument (0 for the command).
func (sel *aclSelector) checkCmd(cmd *command, args [][]byte) (int, int) {
	if !sel.allCmds && !cmd.has(flagNoAuth) && !sel.allowed[cmd.meta] {
		fa := sel.firstArgs[cmd.meta]
		idx := 1
		if cmd.meta.Parent != nil {
			idx = 2
		}
		ok := false
		if len(args) >= 2 && idx < len(args) {
			for _, a := range fa {
				if strings.EqualFold(a, string(args[idx])) {
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
			// redis.acl_check_cmd skips the arity check: a key position
			// past the arguments names no key (Redis 7.0.15 reads past
			// its argv there and may crash).
			if ref.Pos >= len(args) {
				continue
			}
			if !sel.keyAllowed(args[ref.Pos], ref.Flags) {
				return aclDeniedKey, ref.Pos
			}
		}
	}
	if !sel.allChans {
		for _, ch := range aclChannelArgs(cmd, args) {
			if !aclChannelInList(sel.chans, args[ch.pos], ch.pattern) {
				return aclDeniedChannel, ch.pos
			}
		}
	}
	return aclOK, 0
}

// keyAllowed is ACLSelectorCheckKey: access needs read, insert, delete
// and update need write.
func (sel *aclSelector) keyAllowed(key []byte, flags []string) bool {
	if sel.allKeys {
		return true
	}
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

// aclChannelInList is ACLCheckChannelAgainstList: a pattern subscription
// must equal one of the patterns literally, a channel must match one.
func aclChannelInList(list []string, ch []byte, isPattern bool) bool {
	for _, p := range list {
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

// aclParseSelector is aclCreateSelectorFromOpSet: op is "(...)"; its
// inside is split as sdssplitargs does (unbalanced quotes give no rules)
// and each rule applied to a new selector.
func (s *Server) aclParseSelector(op string) (*aclSelector, string) {
	sel := s.newACLSelector()
	args, _ := protocol.SplitArgs([]byte(op[1 : len(op)-1]))
	for _, a := range args {
		if len(a) == 0 {
			// An empty quoted rule reaches ACLSetSelector with op[0] == 0.
			return nil, aclErrSyntax
		}
		if e := sel.setLocked(s, string(a)); e != "" {
			return nil, e
		}
	}
	return sel, ""
}

// aclMergeSelectorArgs is ACLMergeSelectorArguments: a rule that opens a
// parenthesis without closing it is joined with the following ones (by
// single spaces) up to one that ends with ")"; a rule opening another
// parenthesis starts the selector again, as in Redis. ok is false for a
// parenthesis never closed; bad is then the index of the rule opening it.
func aclMergeSelectorArgs(rules []string) (merged []string, bad int, ok bool) {
	open := -1
	var cur string
	for j, op := range rules {
		if len(op) > 0 && op[0] == '(' && op[len(op)-1] != ')' {
			cur, open = op, j
			continue
		}
		if open != -1 {
			cur += " " + op
			if len(op) > 0 && op[len(op)-1] == ')' {
				merged = append(merged, cur)
				open = -1
			}
			continue
		}
		merged = append(merged, op)
	}
	if open != -1 {
		return nil, open, false
	}
	return merged, 0, true
}
