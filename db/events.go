package db

// Event is a keyspace notification: the class letter that
// notify-keyspace-events uses to select it, and its name.
type Event struct {
	Class byte
	Name  string
}

// Notification classes, as Redis's NOTIFY_* flags and their letters.
const (
	ClassGeneric byte = 'g'
	ClassString  byte = '$'
	ClassList    byte = 'l'
	ClassSet     byte = 's'
	ClassHash    byte = 'h'
	ClassZSet    byte = 'z'
	ClassExpired byte = 'x'
	ClassEvicted byte = 'e'
	ClassStream  byte = 't'
	ClassKeyMiss byte = 'm'
	ClassModule  byte = 'd'
	ClassNew     byte = 'n'
)

// Events raised by the generic and string families and by expiry/eviction.
// Other families declare theirs beside their operations.
var (
	EvNew         = Event{ClassNew, "new"}
	EvExpired     = Event{ClassExpired, "expired"}
	EvEvicted     = Event{ClassEvicted, "evicted"}
	EvKeyMiss     = Event{ClassKeyMiss, "keymiss"}
	EvDel         = Event{ClassGeneric, "del"}
	EvExpire      = Event{ClassGeneric, "expire"}
	EvPersist     = Event{ClassGeneric, "persist"}
	EvRenameFrom  = Event{ClassGeneric, "rename_from"}
	EvRenameTo    = Event{ClassGeneric, "rename_to"}
	EvMoveFrom    = Event{ClassGeneric, "move_from"}
	EvMoveTo      = Event{ClassGeneric, "move_to"}
	EvCopyTo      = Event{ClassGeneric, "copy_to"}
	EvSet         = Event{ClassString, "set"}
	EvSetRange    = Event{ClassString, "setrange"}
	EvIncrBy      = Event{ClassString, "incrby"}
	EvIncrByFloat = Event{ClassString, "incrbyfloat"}
	EvAppend      = Event{ClassString, "append"}
)
