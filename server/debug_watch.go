package server

import (
	"strings"

	"github.com/miniwatchd/miniwatchd/protocol"
	"github.com/miniwatchd/miniwatchd/watch"
)

// DEBUG WATCH: our own subcommands (Redis and Valkey have no DEBUG WATCH;
// DEBUG CLOCK is the precedent), governed by enable-debug-command as all of
// DEBUG.
//
//	DEBUG WATCH WHY                 why this client's last EXEC aborted, or why it is dirty now
//	DEBUG WATCH HOTKEYS [COUNT n]   the hot watched keys summary, most aborts first (default 10)
//	DEBUG WATCH RESET               empty the hot watched keys summary

func debugWatch(c *client, args [][]byte) {
	if len(args) < 3 {
		debugSyntaxError(c, args)
		return
	}
	switch sub := strings.ToLower(string(args[2])); {
	case sub == "why" && len(args) == 3:
		debugWatchWhy(c)
	case sub == "hotkeys" && (len(args) == 3 || len(args) == 5):
		n := int64(10)
		if len(args) == 5 {
			if !strings.EqualFold(string(args[3]), "count") {
				c.fail(protocol.ErrSyntax)
				return
			}
			v, ok := protocol.ParseInt(args[4])
			if !ok || v < 0 {
				c.fail(protocol.ErrNotPositive)
				return
			}
			n = v
		}
		debugWatchHotKeys(c, n)
	case sub == "reset" && len(args) == 3:
		if h := c.srv.wobs.hot; h != nil {
			h.Reset()
		}
		c.w.OK()
	default:
		debugSyntaxError(c, args)
	}
}

// debugWatchWhy replies with the explanation of the first touch that made
// the client dirty: a map (RESP2: a flat list) of state ("dirty": EXEC will
// abort; "aborted": the last EXEC did), cause, db, key, breaker ("client"
// or "server"), client-id (-1 for the server), client-name, client-addr
// ("server" for the server), command, policy (evictions), at-ms,
// watched-at-ms and after-watch-ms. Null when there is nothing to explain.
func debugWatchWhy(c *client) {
	state := ""
	switch {
	case c.watch.Dirty():
		state = "dirty"
	case c.lastExec == execAborted:
		state = "aborted"
	}
	if state == "" {
		c.w.Null()
		return
	}
	w := c.watch.Why()
	if !c.watch.Explained() {
		w = &watch.Why{ByID: -1}
	}
	breaker, addr := "client", w.ByAddr
	if w.ByID < 0 {
		breaker, addr = "server", "server"
	}
	c.w.Map(13)
	c.w.BulkString("state")
	c.w.BulkString(state)
	c.w.BulkString("cause")
	c.w.BulkString(w.Cause.String())
	c.w.BulkString("db")
	c.w.Int(int64(w.DB))
	c.w.BulkString("key")
	c.w.BulkString(w.Key)
	c.w.BulkString("breaker")
	c.w.BulkString(breaker)
	c.w.BulkString("client-id")
	c.w.Int(w.ByID)
	c.w.BulkString("client-name")
	c.w.BulkString(w.ByName)
	c.w.BulkString("client-addr")
	c.w.BulkString(addr)
	c.w.BulkString("command")
	c.w.BulkString(w.Cmd)
	c.w.BulkString("policy")
	c.w.BulkString(w.Policy)
	c.w.BulkString("at-ms")
	c.w.Int(w.AtMs)
	c.w.BulkString("watched-at-ms")
	c.w.Int(w.WatchedAtMs)
	c.w.BulkString("after-watch-ms")
	c.w.Int(w.AtMs - w.WatchedAtMs)
}

// debugWatchHotKeys replies with up to n entries of the summary, most
// aborts first: each a map of key, db, aborts (an overestimate by at most
// error), error, watchers (now), commands and clients (maps of name to
// count, most first).
func debugWatchHotKeys(c *client, n int64) {
	h := c.srv.wobs.hot
	if h == nil || n == 0 {
		c.w.Array(0)
		return
	}
	top := h.Top(int(min(n, int64(h.Len()))))
	c.w.Array(len(top))
	for _, e := range top {
		watchers := 0
		if e.KeyLen == len(e.Key) && e.DB < c.srv.ks.Len() {
			watchers = c.srv.ks.DB(e.DB).Watched().Watchers(e.Key)
		}
		c.w.Map(7)
		c.w.BulkString("key")
		c.w.BulkString(e.Key)
		c.w.BulkString("db")
		c.w.Int(int64(e.DB))
		c.w.BulkString("aborts")
		c.w.Int(e.Count)
		c.w.BulkString("error")
		c.w.Int(e.Err)
		c.w.BulkString("watchers")
		c.w.Int(int64(watchers))
		c.w.BulkString("commands")
		writeTally(c, &e.Cmds)
		c.w.BulkString("clients")
		writeTally(c, &e.Names)
	}
}

func writeTally(c *client, t *watch.Tally) {
	items := t.Items()
	c.w.Map(len(items))
	for _, it := range items {
		c.w.BulkString(it.Name)
		c.w.Int(it.Count)
	}
}
