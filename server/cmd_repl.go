package server

import "github.com/miniwatchd/miniwatchd/protocol"

// The replication commands: ROLE (repl_info.go), WAIT (repl_wait.go),
// REPLICAOF and SLAVEOF (repl_replica.go), and the ones replicas send to a
// master, SYNC, PSYNC and REPLCONF (repl_master.go).

var replCommands = append([]commandDef{
	{"role", cmdRole},
	{"wait", cmdWait},
	{"replicaof", cmdReplicaOf},
	{"slaveof", cmdReplicaOf},
}, replMasterCommands...)

var (
	errNoReplicas        = protocol.Error("NOREPLICAS Not enough good replicas to write.")
	errInvalidMasterPort = protocol.Error("ERR Invalid master port")
)

// replIDLocked is the replication ID (master_replid): the run id until a
// replica attaches or DEBUG CHANGE-REPL-ID gives a new one, the master's
// on a replica.
func (s *Server) replIDLocked() string {
	if s.ops.replID != "" {
		return s.ops.replID
	}
	return s.runID
}
