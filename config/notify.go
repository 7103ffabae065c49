package config

// NotifyFlags is the set of keyspace notifications notify-keyspace-events
// selects (Redis's NOTIFY_* bits).
type NotifyFlags uint32

// Notification flags, with the letter notify-keyspace-events uses for each.
const (
	NotifyKeyspace NotifyFlags = 1 << iota // K: __keyspace@<db>__ channels
	NotifyKeyevent                         // E: __keyevent@<db>__ channels
	NotifyGeneric                          // g
	NotifyString                           // $
	NotifyList                             // l
	NotifySet                              // s
	NotifyHash                             // h
	NotifyZSet                             // z
	NotifyExpired                          // x
	NotifyEvicted                          // e
	NotifyStream                           // t
	NotifyKeyMiss                          // m
	notifyLoaded                           // modules only, no letter
	NotifyModule                           // d
	NotifyNew                              // n

	// NotifyAll is what 'A' selects: every class but m and n.
	NotifyAll = NotifyGeneric | NotifyString | NotifyList | NotifySet |
		NotifyHash | NotifyZSet | NotifyExpired | NotifyEvicted |
		NotifyStream | NotifyModule
)

// notifyLetter maps a class letter to its flag ('A' to NotifyAll).
func notifyLetter(c byte) NotifyFlags {
	switch c {
	case 'A':
		return NotifyAll
	case 'g':
		return NotifyGeneric
	case '$':
		return NotifyString
	case 'l':
		return NotifyList
	case 's':
		return NotifySet
	case 'h':
		return NotifyHash
	case 'z':
		return NotifyZSet
	case 'x':
		return NotifyExpired
	case 'e':
		return NotifyEvicted
	case 'K':
		return NotifyKeyspace
	case 'E':
		return NotifyKeyevent
	case 't':
		return NotifyStream
	case 'm':
		return NotifyKeyMiss
	case 'd':
		return NotifyModule
	case 'n':
		return NotifyNew
	}
	return 0
}

// ParseNotifyFlags parses a notify-keyspace-events value as Redis's
// keyspaceEventsStringToFlags does; ok is false if a byte is not a class
// letter. The value ends at its first NUL byte, as a C string does.
func ParseNotifyFlags(s string) (f NotifyFlags, ok bool) {
	for i := 0; i < len(s) && s[i] != 0; i++ {
		bit := notifyLetter(s[i])
		if bit == 0 {
			return 0, false
		}
		f |= bit
	}
	return f, true
}

// String returns the flags as CONFIG GET prints them (Redis's
// keyspaceEventsFlagsToString): "A" stands for all of NotifyAll and then
// hides n, as in Redis.
func (f NotifyFlags) String() string {
	var b []byte
	if f&NotifyAll == NotifyAll {
		b = append(b, 'A')
	} else {
		for _, c := range []byte("g$lshzxetdn") {
			if f&notifyLetter(c) != 0 {
				b = append(b, c)
			}
		}
	}
	for _, c := range []byte("KEm") {
		if f&notifyLetter(c) != 0 {
			b = append(b, c)
		}
	}
	return string(b)
}

// Class reports whether events of class letter c (db.Class*: 'g', '$',
// 'x', 'n', ...) are selected. Whether they go to keyspace and/or keyevent
// channels is f&NotifyKeyspace and f&NotifyKeyevent.
func (f NotifyFlags) Class(c byte) bool {
	if c == 'A' {
		return false
	}
	bit := notifyLetter(c)
	return bit != 0 && f&bit != 0
}
