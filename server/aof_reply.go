package server

import (
	"os"

	"github.com/miniwatchd/miniwatchd/aof"
	"github.com/miniwatchd/miniwatchd/protocol"
)

// What stands between a write and its reply while the AOF is on. As in
// Redis, the event loop writes no reply before the end of its round
// (it never does), and the end of the round first writes the
// log — and fsyncs it under appendfsync always — so every reply of the
// round, and every reply that could reveal one of its writes, leaves after
// the bytes are safe; all clients of a round share one fsync (group commit).
// While the log is failing, write commands are refused with Redis's MISCONF
// error.

// aofBeforeSleepLocked writes (and under always fsyncs) what the round
// logged, before the round's replies are written. If the bytes cannot be
// made durable (appendfsync always and a failed write or fsync), the
// clients waiting to be answered get a MISCONF error instead of their
// replies and are disconnected: nothing they wrote was acknowledged.
func (s *Server) aofBeforeSleepLocked() {
	if !s.aof.prop.aofOn {
		return
	}
	l := s.aof.log
	if l == nil {
		return
	}
	if _, durable := l.Barrier(); durable {
		return
	}
	err := l.Flush(false) // fsyncs under always
	if err == nil || l.Policy() != aof.FsyncAlways {
		return // everysec and no answer anyway; Err refuses new writes
	}
	s.log.Warn("Closing clients: their writes could not be made durable in the AOF", "err", err)
	reply := []byte("-" + string(aofWriteError(err)) + "\r\n")
	for _, c := range s.loop.writes {
		if c == nil || !s.loop.registered(c) {
			continue
		}
		c.w.Buf = append(c.w.Buf[:c.wpos], reply...)
		c.closeAfterRply = true
	}
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

// wrapAOFFile makes f an aof.File, wrapped by the aofFile test seam when
// a test set one.
func (s *Server) wrapAOFFile(f *os.File) aof.File {
	if s.hooks.aofFile != nil {
		return s.hooks.aofFile(aof.OSFile(f))
	}
	return aof.OSFile(f)
}
