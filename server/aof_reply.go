package server

import (
	"os"

	"github.com/miniwatchd/miniwatchd/aof"
	"github.com/miniwatchd/miniwatchd/protocol"
)

// What stands between a write and its reply while the AOF is on: a
// client's batch of replies leaves only once the log says its writes (and
// every write the replies could reveal) are written, and fsynced under
// appendfsync always (Redis writes the AOF in beforeSleep, before it sends
// any reply); and while the log is failing, write commands are refused
// with Redis's MISCONF error.

// aofBarrierLocked is called at the end of a client's batch of commands,
// under the engine lock: when the replies may reveal writes that are not
// yet as safe as appendfsync promises, it holds the client's output and
// returns the log and offset to wait for (nil otherwise).
func (s *Server) aofBarrierLocked(c *client) (*aof.Log, int64) {
	if !s.aof.prop.on {
		return nil, 0 // inlined: the whole cost with appendonly no
	}
	return s.aofBarrierSlowLocked(c)
}

func (s *Server) aofBarrierSlowLocked(c *client) (*aof.Log, int64) {
	l := s.aof.log
	if l == nil {
		return nil, 0
	}
	off, durable := l.Barrier()
	if durable {
		return nil, 0
	}
	c.out.hold(true)
	return l, off
}

// aofAwait waits, without the engine lock, until the batch's writes are
// safe, then releases the client's output. If they cannot be made durable
// (appendfsync always and a failed write or fsync), the replies are
// dropped, the client gets a MISCONF error instead and false is returned:
// the connection must close, nothing was acknowledged.
func (s *Server) aofAwait(c *client, l *aof.Log, off int64) bool {
	err := l.Wait(off)
	if err == nil {
		c.out.hold(false)
		return true
	}
	c.out.replace([]byte("-" + string(aofWriteError(err)) + "\r\n"))
	c.out.hold(false)
	c.out.flush(c.conn)
	s.log.Warn("Closing a client: its writes could not be made durable in the AOF", "id", c.id, "err", err)
	return false
}

// aofWriteError is Redis's MISCONF reply for an AOF write error.
func aofWriteError(err error) protocol.Error {
	return protocol.Error("MISCONF Errors writing to the AOF file: " + strerror(err))
}

// aofDiskCheck is processCommand's MISCONF step for the AOF: while the last
// write or fsync failed, write commands (and PING, and EXEC of a
// transaction with writes) are refused.
func aofDiskCheck(s *Server, c *client, cmd *command) protocol.Error {
	l := s.aof.log
	if l == nil || !l.Failed() {
		return ""
	}
	if !cmd.has(flagWrite) && cmd.name != "ping" && !(cmd.name == "exec" && c.multi.HasWrite()) {
		return ""
	}
	err := l.Err()
	if err == nil {
		return ""
	}
	return aofWriteError(err)
}

// hold stops (true) or allows again (false) writing the client's pending
// output, while its replies wait for the AOF. Messages pushed meanwhile
// queue behind them.
func (o *outbuf) hold(on bool) {
	o.mu.Lock()
	o.held = on
	o.mu.Unlock()
}

// replace drops the client's pending output and queues b instead.
func (o *outbuf) replace(b []byte) {
	o.mu.Lock()
	o.pending = append(o.pending[:0], b...)
	o.mu.Unlock()
}

// aofFileHook, when set (tests only), wraps every incremental file the log
// writes to, to inject write and fsync failures or delays.
var aofFileHook func(f aof.File) aof.File

func wrapAOFFile(f *os.File) aof.File {
	if aofFileHook != nil {
		return aofFileHook(aof.OSFile(f))
	}
	return aof.OSFile(f)
}
