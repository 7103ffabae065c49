package server

import (
	"github.com/miniwatchd/miniwatchd/aof"
	"github.com/miniwatchd/miniwatchd/db"
)

// Propagation: recording what each command changed, as commands, for the
// append-only file (Redis server.c's call() and propagatePendingCommands,
// and the rewriteClientCommandVector / alsoPropagate calls of the commands).
//
// The rule: a call whose command changed the dataset — db's write choke
// point counted a change (Stats.Dirty) that was not an expiry or eviction —
// is recorded with its own arguments, in the database the client has
// selected after the call. Everything recorded during one execution unit
// (a client's command, a whole EXEC, a whole script) is written together,
// wrapped in MULTI ... EXEC when it is more than one command, so a reload
// never applies half of it. A call that ran other commands through call
// (EXEC, EVAL, FCALL) is not recorded itself: its commands were.
// Expiry and eviction deletions are recorded as DEL (UNLINK with
// lazyfree-lazy-expire / lazyfree-lazy-eviction): a key a command finds past
// its deadline joins that command's unit, ahead of the command (so SET of
// such a key is logged as MULTI, DEL, SET, EXEC, as Redis 7.0 does); the
// active expiry cycle's and eviction's deletions are written at once, each
// on its own.
//
// Commands whose arguments do not replay to the same effect say so with
// the methods below, called from their handler after the write (they cost a
// branch when the AOF is off; guard argument building with propagating):
//
//	c.propagateAs(args...)      record args instead of the command's own
//	                            (Redis's rewriteClientCommandVector): SET EX
//	                            as SET ... PXAT, INCRBYFLOAT as SET KEEPTTL,
//	                            EXPIRE as PEXPIREAT, GETDEL as DEL, SPOP as
//	                            SREM, a served BLPOP as LPOP ...
//	c.alsoPropagate(d, args...) record one more command of the unit, in
//	                            database d, before the command's own
//	                            (Redis's alsoPropagate)
//	c.preventPropagation()      record nothing for this command; with
//	                            alsoPropagate, replace it by several
//	c.forcePropagation()        record it although nothing changed
//	                            (FUNCTION LOAD, which changes no key)
//	c.propagating()             whether anything is being recorded
//
// Work done outside a command (a blocked client served after the command
// that woke it) records with s.propagateLocked(d, args...).
//
// All of it runs under the engine lock.

// propagator is the recording state; it lives in aofState.
type propagator struct {
	on      bool      // recording for someone: aofOn || replOn
	aofOn   bool      // the AOF records (appendonly yes and a file is open)
	replOn  bool      // a replication backlog exists (repl_backlog.go)
	depth   int       // nesting of call: 1 for a client's command, 2+ inside EXEC or a script
	frame   propFrame // requests of the innermost call
	removed int64     // expiry and eviction removals seen (each bumps Dirty)
	unit    []byte    // encoded commands of the current execution unit
	ops     []propOp
	scratch [][]byte // per depth: the encoded replacement of propagateAs
	out     []byte   // reused output buffer
}

// propFrame is what the handler of one call asked for.
type propFrame struct {
	as      []byte // encoded replacement (propagateAs)
	hasAs   bool
	prevent bool
	force   bool
	nested  bool // another command ran inside this call
}

// propOp is one recorded command: its database and where its bytes end
// in unit (they start where the previous op's end).
type propOp struct{ db, end int }

// Command names and options the propagation writes.
var (
	propDEL       = []byte("DEL")
	propUNLINK    = []byte("UNLINK")
	propSET       = []byte("SET")
	propPXAT      = []byte("PXAT")
	propKEEPTTL   = []byte("KEEPTTL")
	propPEXPIREAT = []byte("PEXPIREAT")
	propPERSIST   = []byte("PERSIST")
	propHSET      = []byte("HSET")
)

// propagating reports whether commands are being recorded: handlers can
// skip building the arguments of propagateAs when it is false.
func (c *client) propagating() bool { return c.srv.aof.prop.on }

// propagateAs records args instead of the running command's own arguments,
// if the command changed the dataset (or forcePropagation was called). The
// last call wins. args are copied.
func (c *client) propagateAs(args ...[]byte) {
	p := &c.srv.aof.prop
	if !p.on || p.depth == 0 {
		return
	}
	for len(p.scratch) < p.depth {
		p.scratch = append(p.scratch, nil)
	}
	buf := aof.AppendCommand(p.scratch[p.depth-1][:0], args...)
	p.scratch[p.depth-1] = buf
	p.frame.as, p.frame.hasAs = buf, true
}

// alsoPropagate records args in database d as one more command of the
// current execution unit, ahead of the running command's own record.
func (c *client) alsoPropagate(d *db.DB, args ...[]byte) {
	if c.srv.aof.prop.on {
		c.srv.aof.prop.add(d.ID(), args)
	}
}

// preventPropagation keeps the running command's own arguments out of the
// log (commands recorded with alsoPropagate stay).
func (c *client) preventPropagation() { c.srv.aof.prop.frame.prevent = true }

// forcePropagation records the running command even if the keyspace did
// not change.
func (c *client) forcePropagation() { c.srv.aof.prop.frame.force = true }

// propagateLocked records args in database d from outside a command's
// handler: inside an execution unit it joins the unit, otherwise it is
// written at once.
func (s *Server) propagateLocked(d *db.DB, args ...[]byte) {
	p := &s.aof.prop
	if !p.on {
		return
	}
	p.add(d.ID(), args)
	if p.depth == 0 {
		s.flushUnitLocked()
	}
}

// add encodes args as one more op of the unit.
func (p *propagator) add(dbID int, args [][]byte) {
	p.unit = aof.AppendCommand(p.unit, args...)
	p.ops = append(p.ops, propOp{dbID, len(p.unit)})
}

// addEncoded adds an already encoded command to the unit.
func (p *propagator) addEncoded(dbID int, cmd []byte) {
	p.unit = append(p.unit, cmd...)
	p.ops = append(p.ops, propOp{dbID, len(p.unit)})
}

// callPropagating is call's body while the AOF records: it runs cmd and
// records it when it changed the dataset, then, at the end of a top-level
// call, writes the unit.
func (s *Server) callPropagating(c *client, cmd *command, args [][]byte) {
	p := &s.aof.prop
	outer := p.frame
	p.frame = propFrame{}
	p.depth++
	dirty, removed := s.ks.Stats.Dirty, p.removed
	cmd.proc(c, args)
	f := p.frame
	p.depth--
	outer.nested = outer.nested || p.depth > 0
	p.frame = outer
	changed := s.ks.Stats.Dirty-dirty > p.removed-removed
	if p.on && !f.nested && !f.prevent && (f.force || changed && cmd.has(flagWrite|flagMayReplicate)) {
		if f.hasAs {
			p.addEncoded(c.db.ID(), f.as)
		} else {
			p.add(c.db.ID(), args)
		}
	}
	if p.depth == 0 {
		s.flushUnitLocked()
	}
}

// flushUnitLocked writes the recorded unit to the log and to the
// replication stream (Redis's propagateNow feeds both): SELECT where the
// database changes, MULTI/EXEC around more than one command (the MULTI in
// the first command's database, as Redis's propagatePendingCommands).
// Each destination keeps its own last selected database.
func (s *Server) flushUnitLocked() {
	p := &s.aof.prop
	if len(p.ops) == 0 {
		return
	}
	if p.aofOn && s.aof.log != nil {
		out := p.encodeUnit(p.out[:0], &s.aof.selected)
		s.aof.log.Append(out)
		if cap(out) <= 64<<10 {
			p.out = out[:0]
		}
	}
	if p.replOn {
		s.replFeedUnitLocked() // repl_feed.go
	}
	p.ops, p.unit = p.ops[:0], p.unit[:0]
	if cap(p.unit) > 64<<10 {
		p.unit = nil
	}
}

// encodeUnit appends the unit's commands to out for a destination whose
// last SELECT is *selected.
func (p *propagator) encodeUnit(out []byte, selected *int) []byte {
	wrap := len(p.ops) > 1
	if wrap {
		out = appendSelectIf(out, selected, p.ops[0].db)
		out = aof.AppendMulti(out)
	}
	start := 0
	for _, op := range p.ops {
		out = appendSelectIf(out, selected, op.db)
		out = append(out, p.unit[start:op.end]...)
		start = op.end
	}
	if wrap {
		out = aof.AppendExec(out)
	}
	return out
}

// appendSelectIf appends SELECT dbID to out when the destination last
// selected another database.
func appendSelectIf(out []byte, selected *int, dbID int) []byte {
	if dbID != *selected {
		out = aof.AppendSelect(out, dbID)
		*selected = dbID
	}
	return out
}

// setAOF turns the AOF's recording on or off.
func (p *propagator) setAOF(on bool) {
	p.aofOn = on
	p.on = p.aofOn || p.replOn
}

// setRepl turns the replication stream's recording on or off.
func (p *propagator) setRepl(on bool) {
	p.replOn = on
	p.on = p.aofOn || p.replOn
}

// aofKeyEvent records the deletion of a key by expiry or eviction (the
// events db's single removal path raises before it signals).
func aofKeyEvent(s *Server, d *db.DB, ev db.Event, key string) {
	p := &s.aof.prop
	if !p.on || (ev.Class != db.ClassExpired && ev.Class != db.ClassEvicted) {
		return
	}
	p.removed++
	name := propDEL
	if (ev.Class == db.ClassExpired && s.cfg.LazyfreeLazyExpire) ||
		(ev.Class == db.ClassEvicted && s.cfg.LazyfreeLazyEviction) {
		name = propUNLINK
	}
	p.add(d.ID(), [][]byte{name, []byte(key)})
	if p.depth == 0 {
		s.flushUnitLocked()
	}
}
