package test

import (
	"fmt"
	"math/rand"
	"strings"
	"testing"
)

// TestDiffACLRandomRules sets random command rules (categories, commands,
// subcommands, containers, first arguments, +@all/-@all starts) on users
// of both servers and compares ACL GETUSER's commands field and the
// DRYRUN verdicts for a fixed set of commands: the description is Redis's
// greedy category fit (ACLDescribeSelectorCommandRules), its single
// commands compared as a set (cmpACLRules).
func TestDiffACLRandomRules(t *testing.T) {
	cats := []string{"keyspace", "read", "write", "set", "sortedset", "list", "hash", "string", "bitmap",
		"hyperloglog", "geo", "stream", "pubsub", "admin", "fast", "slow", "blocking", "dangerous",
		"connection", "transaction", "scripting"}
	cmds := []string{"get", "set", "config", "config|get", "config|set", "client", "client|list", "client|kill",
		"xinfo", "xinfo|help", "object|encoding", "debug", "select", "ping", "hset", "zadd", "eval",
		"function", "function|load", "acl|whoami", "memory|usage", "lpush", "blpop", "publish", "keys", "flushall"}
	dry := [][]string{{"get", "k"}, {"set", "k", "v"}, {"config", "get", "x"}, {"config", "set", "x", "y"},
		{"client", "list"}, {"xinfo", "help"}, {"select", "0"}, {"select", "1"}, {"debug", "object", "k"},
		{"hset", "h", "f", "v"}, {"zadd", "z", "1", "m"}, {"ping"}, {"function", "flush"}, {"flushall"}}
	seed := rand.Int63()
	t.Logf("seed %d", seed)
	rng := rand.New(rand.NewSource(seed))
	bothProtocols(t, func(t *testing.T, proto int) {
		p := newDiffPairProto(t, proto)
		p.taint()
		a := p.Conn("A")
		for i := 0; i < 60; i++ {
			rules := []string{"ACL", "SETUSER", fmt.Sprintf("r%d", i), "~*", "&*"}
			if rng.Intn(2) == 0 {
				rules = append(rules, "+@all")
			} else {
				rules = append(rules, "-@all")
			}
			for n := rng.Intn(8); n > 0; n-- {
				sign := "+"
				if rng.Intn(2) == 0 {
					sign = "-"
				}
				switch rng.Intn(4) {
				case 0, 1:
					rules = append(rules, sign+"@"+cats[rng.Intn(len(cats))])
				case 2:
					rules = append(rules, sign+cmds[rng.Intn(len(cmds))])
				default:
					rules = append(rules, "+select|"+fmt.Sprint(rng.Intn(3)), "+debug|object")
				}
			}
			where := strings.Join(rules[3:], " ")
			p.where = "rules " + where + ": "
			a.Do(rules...)
			a.DoMode(cmpACLRules, "ACL", "GETUSER", rules[3])
			for _, d := range dry {
				a.Do(append([]string{"ACL", "DRYRUN", rules[3]}, d...)...)
			}
		}
		a.DoMode(cmpACLRules, "ACL", "LIST")
	})
}
