package test

import "testing"

// Keyspace events and client-side caching invalidations of the stream
// family, compared with redis-server: xadd, xtrim, xdel, xsetid and the
// xgroup-* events with the flags that select them ("t" is the stream
// class), and the invalidations, which only the writes Redis signals
// (XADD, XDEL, XTRIM) send.

const streamEventCommands = `
W: XADD s 1-0 a 1
W: XADD s 2-0 a 2
W: XADD s MAXLEN 1 3-0 a 3
W: XADD s MAXLEN 5 4-0 a 4
W: XDEL s 9-0
W: XDEL s 3-0
W: XTRIM s MAXLEN 5
W: XTRIM s MAXLEN 0
W: XSETID s 9-0
W: XGROUP CREATE s g $
W: XGROUP CREATE s2 g $ MKSTREAM
W: XGROUP CREATECONSUMER s g c
W: XGROUP SETID s g 0
W: XADD s 10-0 a 10
W: XREADGROUP GROUP g c2 STREAMS s >
W: XACK s g 10-0
W: XCLAIM s g c3 0 10-0
W: XAUTOCLAIM s g c4 0 0
W: XGROUP DELCONSUMER s g c
W: XGROUP DESTROY s g
W: XGROUP DESTROY s g
W: DEL s s2
`

func TestStreamKeyspaceNotifications(t *testing.T) {
	redis, ours := psDiffPair(t)
	for _, flags := range []string{"KEA", "Kt", "Et", "Kg", "AKEmn"} {
		t.Run(flags, func(t *testing.T) {
			psReset(t, redis, ours)
			psDiff(t, redis, ours, "S: PSUBSCRIBE __key*__:*\n"+
				"W: CONFIG SET notify-keyspace-events "+flags+"\n"+streamEventCommands)
		})
	}
}

func TestStreamTracking(t *testing.T) {
	redis, ours := psDiffPair(t)
	psReset(t, redis, ours)
	psDiff(t, redis, ours, `
A: HELLO 3
A: CLIENT TRACKING on
W: XADD s 1-0 a 1
W: XGROUP CREATE s g 0
A: XRANGE s - +
W: XADD s 2-0 a 2
A: XLEN s
W: XREADGROUP GROUP g c STREAMS s >
W: XACK s g 1-0
W: XGROUP SETID s g 0
W: XSETID s 5-0
A: XINFO STREAM s
W: XDEL s 1-0
A: XRANGE s - +
W: XTRIM s MAXLEN 0
A: XLEN s
W: XGROUP CREATE s g2 0
A: PING
`)
}
