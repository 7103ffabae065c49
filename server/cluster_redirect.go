package server

import (
	"strconv"

	"github.com/miniwatchd/miniwatchd/cluster"
	"github.com/miniwatchd/miniwatchd/db"
	"github.com/miniwatchd/miniwatchd/protocol"
)

// The redirection rules of Redis 7.0's getNodeByQuery (cluster.c), used by
// processCommand for every command with keys and for EXEC (the keys of all
// its queued commands), and by redis.call (scriptVerifyClusterState).
// Key positions come from the command table's key specs (cmdmeta); the
// channels of the sharded pub/sub commands count as keys.

// redirKind is getNodeByQuery's error code (CLUSTER_REDIR_*).
type redirKind uint8

const (
	redirNone        redirKind = iota
	redirCrossSlot             // keys of different slots
	redirUnstable              // TRYAGAIN: several keys, some missing, slot importing
	redirAsk                   // the slot migrates and a key is missing here
	redirMoved                 // another node serves the slot
	redirDownState             // cluster_state is fail
	redirDownROState           // fail, and reads only are allowed
	redirDownUnbound           // nobody serves the slot
)

// Error texts of clusterRedirectClient.
const (
	errCrossSlot   = protocol.Error("CROSSSLOT Keys in request don't hash to the same slot")
	errTryAgain    = protocol.Error("TRYAGAIN Multiple keys request during rehashing of slot")
	errClusterDown = protocol.Error("CLUSTERDOWN The cluster is down")
	errClusterRO   = protocol.Error("CLUSTERDOWN The cluster is down and only accepts read commands")
	errUnbound     = protocol.Error("CLUSTERDOWN Hash slot not served")
)

// isPubSubShard reports whether cmd is SSUBSCRIBE, SUNSUBSCRIBE or SPUBLISH.
func isPubSubShard(cmd *command) bool {
	switch cmd.name {
	case "ssubscribe", "sunsubscribe", "spublish":
		return true
	}
	return false
}

// appendQueryKeys appends the indexes of args that getNodeByQuery hashes:
// the keys, or the channels of a sharded pub/sub command.
func appendQueryKeys(dst []int, cmd *command, args [][]byte) []int {
	switch cmd.name {
	case "spublish":
		return append(dst, 1)
	case "ssubscribe", "sunsubscribe":
		for i := 1; i < len(args); i++ {
			dst = append(dst, i)
		}
		return dst
	}
	return cmd.meta.AppendKeyPositions(dst, args)
}

// nodeQuery is getNodeByQuery's state while it walks the keys of one
// request. The server keeps one (clusterMode.query), reused by every call
// under the engine lock, so the walk allocates nothing.
type nodeQuery struct {
	st                        *cluster.State
	db                        *db.DB
	n                         *cluster.Node // the node serving the first key's slot
	firstKey                  []byte
	slot                      int
	migrating, importing      bool
	multipleKeys              bool
	missingKeys, existingKeys int
	pubsubShard               bool // a sharded pub/sub command is part of the request
	failed                    redirKind
	positions                 []int
}

// visit hashes the keys of one command of the request; it reports false
// when the request cannot be served (q.failed says why).
func (q *nodeQuery) visit(mcmd *command, margs [][]byte) bool {
	if isPubSubShard(mcmd) {
		q.pubsubShard = true
	}
	q.positions = appendQueryKeys(q.positions[:0], mcmd, margs)
	for _, pos := range q.positions {
		key := margs[pos]
		thisSlot := cluster.KeyHashSlot(key)
		if q.firstKey == nil {
			q.firstKey, q.slot = key, thisSlot
			q.n = q.st.Owner(thisSlot)
			if q.n == nil {
				q.failed = redirDownUnbound
				return false
			}
			if q.n == q.st.Myself && q.st.MigratingTo(thisSlot) != nil {
				q.migrating = true
			} else if q.st.ImportingFrom(thisSlot) != nil {
				q.importing = true
			}
		} else if string(q.firstKey) != string(key) {
			if q.slot != thisSlot {
				q.failed = redirCrossSlot
				return false
			}
			q.multipleKeys = true
		}
		if (q.migrating || q.importing) && !q.pubsubShard {
			if q.db.HasKeyQuiet(key) {
				q.existingKeys++
			} else {
				q.missingKeys++
			}
		}
	}
	return true
}

// getNodeByQueryLocked is getNodeByQuery for cmd with args sent by c (for
// EXEC, the commands c queued): the node that serves the request, the slot
// of its keys (-1 when it has none) and, when the node is not myself or is
// nil, why.
func (s *Server) getNodeByQueryLocked(c *client, cmd *command, args [][]byte) (*cluster.Node, int, redirKind) {
	st := s.cluster.st
	myself := st.Myself
	q := &s.cluster.query
	*q = nodeQuery{st: st, db: s.ks.DB(0), slot: -1, positions: q.positions}
	writeTx := cmd.has(flagWrite)
	if cmd.name == "exec" {
		if !c.multi.Active() {
			return myself, -1, redirNone
		}
		writeTx = c.multi.HasWrite()
		ok := true
		c.multi.Each(func(qc any, qargs [][]byte) {
			if ok {
				ok = q.visit(qc.(*command), qargs)
			}
		})
		if !ok {
			return nil, -1, q.failed
		}
	} else if !q.visit(cmd, args) {
		return nil, -1, q.failed
	}
	n, slot := q.n, q.slot
	if n == nil { // no key at all
		return myself, -1, redirNone
	}
	if !st.OK() {
		switch {
		case q.pubsubShard:
			if paramOr(&s.cfg, "cluster-allow-pubsubshard-when-down", "yes") != "yes" {
				return nil, -1, redirDownState
			}
		case paramOr(&s.cfg, "cluster-allow-reads-when-down", "no") != "yes":
			return nil, -1, redirDownState
		case cmd.has(flagWrite):
			return nil, -1, redirDownROState
		}
	}
	if (q.migrating || q.importing) && cmd.name == "migrate" {
		return myself, slot, redirNone
	}
	if q.migrating && q.missingKeys > 0 {
		// Some keys here, some gone: TRYAGAIN (7.0.15 has this from 7.2).
		if q.existingKeys > 0 {
			return nil, slot, redirUnstable
		}
		return st.MigratingTo(slot), slot, redirAsk
	}
	if q.importing && (c.cl.asking || cmd.has(flagAsking)) {
		if q.multipleKeys && q.missingKeys > 0 {
			return nil, slot, redirUnstable
		}
		return myself, slot, redirNone
	}
	if (c.cl.readonly || q.pubsubShard) && !writeTx && myself.IsReplica() && myself.Master == n {
		return myself, slot, redirNone
	}
	if n != myself {
		return n, slot, redirMoved
	}
	return n, slot, redirNone
}

// clusterRedirectError is clusterRedirectClient's reply for a request
// getNodeByQuery sent elsewhere.
func (s *Server) clusterRedirectError(n *cluster.Node, slot int, why redirKind) protocol.Error {
	switch why {
	case redirCrossSlot:
		return errCrossSlot
	case redirUnstable:
		return errTryAgain
	case redirDownState:
		return errClusterDown
	case redirDownROState:
		return errClusterRO
	case redirDownUnbound:
		return errUnbound
	}
	word := "MOVED "
	if why == redirAsk {
		word = "ASK "
	}
	return protocol.Error(word + strconv.Itoa(slot) + " " + s.preferredEndpoint(n) + ":" + strconv.Itoa(n.Port))
}

// preferredEndpoint is getPreferredEndpoint (cluster-preferred-endpoint-type).
func (s *Server) preferredEndpoint(n *cluster.Node) string {
	switch paramOr(&s.cfg, "cluster-preferred-endpoint-type", "ip") {
	case "hostname":
		if n.Hostname != "" {
			return n.Hostname
		}
		return "?"
	case "unknown-endpoint":
		return ""
	}
	return n.IP
}

// clusterCheckLocked is processCommand's cluster redirection: for a
// command with keys, or EXEC, that this node may not serve, it replies
// with the redirection (a queued command poisons the transaction; EXEC
// discards it and replies with the plain error, not EXECABORT) and
// reports true. Otherwise it records the command's slot in c.cl.slot.
func (s *Server) clusterCheckLocked(c *client, cmd *command, args [][]byte) bool {
	n, slot, why := s.getNodeByQueryLocked(c, cmd, args)
	if n == s.cluster.st.Myself {
		c.cl.slot = slot
		return false
	}
	err := s.clusterRedirectError(n, slot, why)
	cmd.rejected.Add(1)
	if cmd.name == "exec" {
		s.noteExecLocked(c, execAbortErr) // watch_obs.go
		s.discardTransactionLocked(c)
	} else {
		c.multi.Poison()
	}
	c.fail(err)
	return true
}

// scriptClusterCheckLocked is scriptVerifyClusterState for a command a
// script calls: its keys must be served here, and, unless the script may
// cross slots, be of the slot the script's other keys are of. It returns
// the refusal, or "".
func (s *Server) scriptClusterCheckLocked(r *scriptRun, cmd *command, args [][]byte) string {
	caller := r.caller
	n, slot, why := s.getNodeByQueryLocked(caller, cmd, args)
	if n != s.cluster.st.Myself {
		switch why {
		case redirDownROState:
			return "Script attempted to execute a write command while the cluster is down and readonly"
		case redirDownState:
			return "Script attempted to execute a command while the cluster is down"
		}
		return "Script attempted to access a non local key in a cluster node"
	}
	if slot != -1 && !r.crossSlot {
		if caller.cl.slot == -1 {
			caller.cl.slot = slot
		} else if caller.cl.slot != slot {
			return "Script attempted to access keys that do not hash to the same slot"
		}
	}
	return ""
}
