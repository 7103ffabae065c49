package server

import (
	"strconv"

	"github.com/miniwatchd/miniwatchd/db"
)

// Keyspace notifications (Redis 7.0 notify.c). db raises every event once,
// from its write choke point, its removal path (expired, evicted), dbAdd
// (new) and read lookups (keymiss); this hook turns the ones that
// notify-keyspace-events selects into Pub/Sub messages:
//
//	__keyspace@<db>__:<key>    with the event name as message (K)
//	__keyevent@<db>__:<event>  with the key as message        (E)

// notifyKeyspaceEvent is the observer hook for keyspace events. It runs
// under the engine lock.
func notifyKeyspaceEvent(s *Server, d *db.DB, ev db.Event, key string) {
	f := s.cfg.NotifyKeyspaceEvents
	if f&(NotifyKeyspace|NotifyKeyevent) == 0 || !f.Class(ev.Class) || !s.hasSubscribersLocked() {
		return
	}
	ps := &s.ps
	if f&NotifyKeyspace != 0 {
		ch := appendEventChannel(ps.chanBuf[:0], "__keyspace@", d.ID(), key)
		msg := append(ps.msgBuf[:0], ev.Name...)
		ps.chanBuf, ps.msgBuf = ch, msg
		s.publishLocked(ch, msg, false)
	}
	if f&NotifyKeyevent != 0 {
		ch := appendEventChannel(ps.chanBuf[:0], "__keyevent@", d.ID(), ev.Name)
		msg := append(ps.msgBuf[:0], key...)
		ps.chanBuf, ps.msgBuf = ch, msg
		s.publishLocked(ch, msg, false)
	}
}

// appendEventChannel appends "<prefix><db>__:<suffix>".
func appendEventChannel(b []byte, prefix string, dbID int, suffix string) []byte {
	b = append(b, prefix...)
	b = strconv.AppendInt(b, int64(dbID), 10)
	b = append(b, "__:"...)
	return append(b, suffix...)
}
