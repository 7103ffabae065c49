package server

import (
	"github.com/miniwatchd/miniwatchd/db"
	"github.com/miniwatchd/miniwatchd/protocol"
)

// How the string and key commands are logged when their arguments would not
// replay to the same effect (Redis 7.0.15's rewriteClientCommandVector and
// rewriteClientCommandArgument calls in t_string.c and expire.c). Each is
// called by the handler after its write; the record is kept only when the
// write changed something.

// delCommand is DEL, or UNLINK when the lazyfree option that governs this
// deletion is yes.
func delCommand(lazy bool) []byte {
	if lazy {
		return propUNLINK
	}
	return propDEL
}

// propagateSetPXAT logs a SET with EX, PX, EXAT or PXAT (or SETEX,
// PSETEX) as SET key value PXAT <unix ms>: the deadline stays absolute on
// replay, and NX/XX/GET are dropped.
func propagateSetPXAT(c *client, key, val []byte, at int64) {
	if c.propagating() {
		c.propagateAs(propSET, key, val, propPXAT, protocol.AppendInt(nil, at))
	}
}

// propagateSetWithoutGet logs SET ... GET (without a TTL option) without
// its GET arguments, as setGenericCommand does.
func propagateSetWithoutGet(c *client, args [][]byte) {
	if !c.propagating() {
		return
	}
	out := make([][]byte, 0, len(args))
	for j, a := range args {
		if j >= 3 && cstrEqualFold(a, "get") {
			continue
		}
		out = append(out, a)
	}
	c.propagateAs(out...)
}

// propagateExpireAt logs a write that gave key the deadline at (EXPIRE,
// PEXPIRE, EXPIREAT, GETEX EX/PX/EXAT/PXAT) as PEXPIREAT key <unix ms>
// followed by opts (EXPIRE's NX/XX/GT/LT), or, when the deadline had
// already passed and the key was deleted, as DEL key (UNLINK with
// lazyfree-lazy-expire).
func propagateExpireAt(c *client, key []byte, at int64, opts [][]byte) {
	if !c.propagating() {
		return
	}
	if at <= c.srv.ks.Now() {
		c.propagateAs(delCommand(c.srv.cfg.LazyfreeLazyExpire), key)
		return
	}
	args := append([][]byte{propPEXPIREAT, key, protocol.AppendInt(nil, at)}, opts...)
	c.propagateAs(args...)
}

var propSREM = []byte("SREM")

// propagateSPop logs SPOP with a count (Redis's spopWithCountCommand):
// as DEL key (UNLINK with lazyfree-lazy-server-del) when it emptied the
// set, else as SREM commands of at most 1024 members.
func propagateSPop(c *client, key []byte, members []string) {
	if !c.propagating() || len(members) == 0 {
		return
	}
	if _, exists := c.db.View(string(key)); !exists {
		c.propagateAs(delCommand(c.srv.cfg.LazyfreeLazyServerDel), key)
		return
	}
	for len(members) > 0 {
		n := min(len(members), 1024)
		args := make([][]byte, 0, n+2)
		args = append(args, propSREM, key)
		for _, m := range members[:n] {
			args = append(args, []byte(m))
		}
		c.alsoPropagate(c.db, args...)
		members = members[n:]
	}
	c.preventPropagation()
}

var (
	propZPOPMIN = []byte("ZPOPMIN")
	propZPOPMAX = []byte("ZPOPMAX")
)

// propagateZMPop logs ZMPOP (and a served BZMPOP) as ZPOPMIN or ZPOPMAX of
// the key it popped from, with the number of members popped.
func propagateZMPop(c *client, key []byte, max bool, count int64) {
	if !c.propagating() {
		return
	}
	name := propZPOPMIN
	if max {
		name = propZPOPMAX
	}
	c.propagateAs(name, key, protocol.AppendInt(nil, count))
}

var (
	propLPOP      = []byte("LPOP")
	propRPOP      = []byte("RPOP")
	propLMOVE     = []byte("LMOVE")
	propRPOPLPUSH = []byte("RPOPLPUSH")
)

// propagateListPop logs LMPOP and the blocking pops that found data at
// once as LPOP or RPOP of the key they popped from: with the number of
// elements popped (n >= 0, LMPOP and BLMPOP) or without a count (n < 0,
// BLPOP and BRPOP), as Redis 7.0 rewrites them.
func propagateListPop(c *client, d *db.DB, key []byte, left bool, n int) {
	if !c.propagating() {
		return
	}
	name := propRPOP
	if left {
		name = propLPOP
	}
	if n < 0 {
		propagatePop(c, d, name, key)
		return
	}
	propagatePop(c, d, name, key, protocol.AppendInt(nil, int64(n)))
}

// propagatePop records a pop made for client c in database d: as the
// record of c's running command when that command popped, or, when c is a
// blocked client served after the command that woke it (outside any
// command), as a record of its own.
func propagatePop(c *client, d *db.DB, args ...[]byte) {
	s := c.srv
	if !s.aof.prop.on {
		return
	}
	if s.aof.prop.depth > 0 {
		c.propagateAs(args...)
		return
	}
	s.propagateLocked(d, args...)
}

// propagateZPop logs the pops of BZPOPMIN/BZPOPMAX (ZPOPMIN or ZPOPMAX
// key) and BZMPOP (with the number popped), served or not.
func propagateZPop(c *client, d *db.DB, key []byte, min, withCount bool, n int) {
	if !c.propagating() {
		return
	}
	name := propZPOPMAX
	if min {
		name = propZPOPMIN
	}
	if withCount {
		propagatePop(c, d, name, key, protocol.AppendInt(nil, int64(n)))
		return
	}
	propagatePop(c, d, name, key)
}

// propagateServedMove logs a served BLMOVE as LMOVE src dst left|right
// left|right, or a served BRPOPLPUSH as RPOPLPUSH src dst.
func propagateServedMove(c *client, d *db.DB, src, dst []byte, from, to bool) {
	if !c.propagating() {
		return
	}
	if c.lastCmd == "brpoplpush" {
		propagatePop(c, d, propRPOPLPUSH, src, dst)
		return
	}
	side := func(left bool) []byte { // Redis's shared.left / shared.right
		if left {
			return []byte("left")
		}
		return []byte("right")
	}
	propagatePop(c, d, propLMOVE, src, dst, side(from), side(to))
}
