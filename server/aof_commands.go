package server

import "github.com/miniwatchd/miniwatchd/protocol"

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
