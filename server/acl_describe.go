package server

import (
	"math"
	"strings"

	"github.com/miniwatchd/miniwatchd/cmdmeta"
)

// How ACL LIST, ACL GETUSER, ACL SAVE and CONFIG REWRITE spell a user:
// Redis 7.0.15's ACLDescribeUser, ACLDescribeSelector and
// ACLDescribeSelectorCommandRules. The rules are recomputed from the
// permission bitmap, not replayed from what SETUSER was given.

// describe renders the user after "user <name> " (ACLDescribeUser): the
// flags, the password hashes, the root selector, then each other selector
// in parentheses.
func (u *aclUser) describe(s *Server) string {
	var b strings.Builder
	for _, f := range u.flagNames() {
		b.WriteString(f)
		b.WriteByte(' ')
	}
	for _, p := range u.passwords {
		b.WriteByte('#')
		b.WriteString(p)
		b.WriteByte(' ')
	}
	b.WriteString(u.sel.describe(s))
	for _, sel := range u.selectors {
		b.WriteString(" (")
		b.WriteString(sel.describe(s))
		b.WriteByte(')')
	}
	return b.String()
}

// describe is ACLDescribeSelector: keys, channels, command rules.
func (sel *aclSelector) describe(s *Server) string {
	var b strings.Builder
	if sel.allKeys {
		b.WriteString("~* ")
	} else {
		for _, k := range sel.keys {
			b.WriteString(k.String())
			b.WriteByte(' ')
		}
	}
	if sel.allChans {
		b.WriteString("&* ")
	} else {
		b.WriteString("resetchannels ")
		for _, c := range sel.chans {
			b.WriteByte('&')
			b.WriteString(c)
			b.WriteByte(' ')
		}
	}
	b.WriteString(sel.describeCommands(s))
	return b.String()
}

// String is sdsCatPatternString: "~p", "%R~p" or "%W~p".
func (k aclKeyPattern) String() string {
	switch {
	case k.read && k.write:
		return "~" + k.pattern
	case k.read:
		return "%R~" + k.pattern
	default:
		return "%W~" + k.pattern
	}
}

// describeKeys is ACL GETUSER's "keys" field: the patterns joined by
// spaces, or "~*".
func (sel *aclSelector) describeKeys() string {
	if sel.allKeys {
		return "~*"
	}
	parts := make([]string, 0, len(sel.keys))
	for _, k := range sel.keys {
		parts = append(parts, k.String())
	}
	return strings.Join(parts, " ")
}

// describeChannels is ACL GETUSER's "channels" field.
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

// describeCommands is ACLDescribeSelectorCommandRules. It starts from +@all
// when the selector holds the future-commands bit (only +@all sets it),
// from -@all otherwise. Then, greedily, it applies the category that best
// fits what is left: among the categories not applied yet whose commands
// agree with the selector more often than not, the one with the fewest
// disagreements, ties going to the most agreements, then to the earlier
// category in ACL CAT's order. A scratch bitmap ("temp") has each applied
// category inverted out of it, so later counts see only what is left.
// Last, single commands still different are emitted, with a container
// taking its subcommands along, and the first-arg exceptions of commands
// whose bit is clear.
//
// Redis walks its command dict for the single commands, in an order set
// by each process's hash seed; this walks them in name order, containers
// before their subcommands as in Redis.
func (sel *aclSelector) describeCommands(s *Server) string {
	fake := &aclSelector{allowed: map[*cmdmeta.Command]bool{}}
	var rules []string
	additive := !sel.future
	if additive {
		rules = append(rules, "-@all")
		fake.setLocked(s, "-@all")
	} else {
		rules = append(rules, "+@all")
		fake.setLocked(s, "+@all")
	}
	temp := &aclSelector{allowed: make(map[*cmdmeta.Command]bool, len(sel.allowed))}
	for c, v := range sel.allowed {
		temp.allowed[c] = v
	}
	applied := make([]bool, len(aclCategories))
	for {
		best := -1
		minDiff, maxSame := math.MaxInt, 0
		for j, cat := range aclCategories {
			if applied[j] {
				continue
			}
			on, off := temp.countCategory(s, cat)
			diff, same := off, on
			if !additive {
				diff, same = on, off
			}
			if same > diff && (diff < minDiff || (diff == minDiff && same > maxSame)) {
				best, minDiff, maxSame = j, diff, same
			}
		}
		if best == -1 {
			break
		}
		cat := aclCategories[best]
		fake.setCategory(s, cat, additive)
		temp.setCategory(s, cat, !additive)
		sign := "-@"
		if additive {
			sign = "+@"
		}
		rules = append(rules, sign+cat)
		applied[best] = true
	}
	single := func(c *cmdmeta.Command) {
		userBit := sel.allowed[c]
		if userBit != fake.allowed[c] {
			sign := "-"
			if userBit {
				sign = "+"
			}
			rules = append(rules, sign+c.FullName)
			fake.changePerm(c, userBit)
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

// countCategory is ACLCountCategoryBitsForSelector: how many commands of
// the category the bitmap allows and denies.
func (sel *aclSelector) countCategory(s *Server, cat string) (on, off int) {
	s.eachCommand(func(c *cmdmeta.Command) {
		if c.HasACLCategory(cat) {
			if sel.allowed[c] {
				on++
			} else {
				off++
			}
		}
	})
	return on, off
}
