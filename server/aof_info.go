package server

import (
	"strings"
	"time"

	"github.com/miniwatchd/miniwatchd/aof"
)

// infoAOF writes INFO persistence's AOF fields, in Redis 7.0's order.
func (s *Server) infoAOF(b *strings.Builder) {
	a := &s.aof
	field(b, "aof_enabled", b2i(a.mode != aofOff))
	field(b, "aof_rewrite_in_progress", b2i(a.rw != nil))
	field(b, "aof_rewrite_scheduled", b2i(a.scheduled))
	field(b, "aof_last_rewrite_time_sec", a.lastRewriteSecs)
	cur := int64(-1)
	if a.rw != nil {
		cur = int64(time.Since(a.rw.start) / time.Second)
	}
	field(b, "aof_current_rewrite_time_sec", cur)
	field(b, "aof_last_bgrewrite_status", okErr(a.lastRewriteOK))
	field(b, "aof_rewrites", a.rewrites)
	field(b, "aof_rewrites_consecutive_failures", a.failures)
	var st aof.Stats
	st.WriteOK = true
	if a.log != nil {
		st = a.log.Stats()
	}
	field(b, "aof_last_write_status", okErr(st.WriteOK))
	field(b, "aof_last_cow_size", 0)
	field(b, "module_fork_in_progress", 0)
	field(b, "module_fork_last_cow_size", 0)
	if a.mode == aofOff {
		return
	}
	field(b, "aof_current_size", s.aofCurrentSizeLocked())
	field(b, "aof_base_size", a.rewriteBaseSize)
	field(b, "aof_pending_rewrite", b2i(a.scheduled))
	field(b, "aof_buffer_length", st.Pending)
	field(b, "aof_pending_bio_fsync", b2i(st.SyncInProgress))
	field(b, "aof_delayed_fsync", 0)
}

func okErr(ok bool) string {
	if ok {
		return "ok"
	}
	return "err"
}
