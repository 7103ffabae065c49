package test

// Write-breaks-WATCH cases for the stream family. In Redis 7.0.15 only
// XADD, XDEL and XTRIM (and XGROUP CREATE ... MKSTREAM, which creates the
// key) call signalModifiedKey; XSETID, the XGROUP subcommands, XACK,
// XCLAIM, XAUTOCLAIM and XREADGROUP change the stream's metadata, groups
// and PELs (they are propagated and count as changes) without touching
// watchers, which the redis-server side of these cases proves. The no-ops
// are the forms Redis does not signal: XDEL of missing IDs, XTRIM that
// removes nothing, an XADD that fails.

const streamNoSignal = "Redis 7.0.15 does not signalModifiedKey for this stream write"

func init() {
	s := [][]string{{"XADD", "k", "1-0", "f", "v"}, {"XADD", "k", "2-0", "f", "v"}, {"XGROUP", "CREATE", "k", "g", "0"}}
	read := append(s[:3:3], []string{"XREADGROUP", "GROUP", "g", "c", "STREAMS", "k", ">"})
	addWriteCases("xadd",
		writeCase{Setup: s, Write: []string{"XADD", "k", "3-0", "f", "v"}, NoOp: []string{"XADD", "k", "1-0", "f", "v"}},
		writeCase{Name: "creates", Write: []string{"XADD", "k", "1-0", "f", "v"}, NoOp: []string{"XADD", "k", "NOMKSTREAM", "*", "f", "v"}},
		writeCase{Name: "trims", Setup: s, Write: []string{"XADD", "k", "MAXLEN", "1", "3-0", "f", "v"}, NoOp: []string{"XADD", "k", "MAXLEN", "1", "2-0", "f", "v"}},
	)
	addWriteCases("xdel", writeCase{Setup: s, Write: []string{"XDEL", "k", "9-0", "1-0"}, NoOp: []string{"XDEL", "k", "9-0"}})
	addWriteCases("xtrim",
		writeCase{Setup: s, Write: []string{"XTRIM", "k", "MAXLEN", "1"}, NoOp: []string{"XTRIM", "k", "MAXLEN", "5"}},
		writeCase{Name: "minid", Setup: s, Write: []string{"XTRIM", "k", "MINID", "2"}, NoOp: []string{"XTRIM", "k", "MINID", "~", "2"}},
	)
	addWriteCases("xsetid", writeCase{Setup: s, Write: []string{"XSETID", "k", "5-0"}, NeverTouches: streamNoSignal})
	addWriteCases("xack", writeCase{Setup: read, Write: []string{"XACK", "k", "g", "1-0"}, NeverTouches: streamNoSignal})
	addWriteCases("xclaim",
		writeCase{Setup: read, Write: []string{"XCLAIM", "k", "g", "c2", "0", "1-0"}, NeverTouches: streamNoSignal},
		writeCase{Name: "justid", Setup: read, Write: []string{"XCLAIM", "k", "g", "c2", "0", "1-0", "JUSTID"}, NeverTouches: streamNoSignal},
	)
	addWriteCases("xautoclaim", writeCase{Setup: read, Write: []string{"XAUTOCLAIM", "k", "g", "c2", "0", "0"}, NeverTouches: streamNoSignal})
	addWriteCases("xreadgroup",
		writeCase{Setup: s, Write: []string{"XREADGROUP", "GROUP", "g", "c", "STREAMS", "k", ">"}, NeverTouches: streamNoSignal},
		writeCase{Name: "noack", Setup: s, Write: []string{"XREADGROUP", "GROUP", "g", "c", "NOACK", "STREAMS", "k", ">"}, NeverTouches: streamNoSignal},
	)
	addWriteCases("xgroup|create",
		writeCase{Setup: s, Write: []string{"XGROUP", "CREATE", "k", "g2", "0"}, NeverTouches: streamNoSignal},
		writeCase{Name: "mkstream", Write: []string{"XGROUP", "CREATE", "k", "g", "$", "MKSTREAM"}, NoOp: []string{"XGROUP", "CREATE", "k", "g", "$"}},
	)
	addWriteCases("xgroup|createconsumer", writeCase{Setup: s, Write: []string{"XGROUP", "CREATECONSUMER", "k", "g", "c"}, NeverTouches: streamNoSignal})
	addWriteCases("xgroup|delconsumer", writeCase{Setup: read, Write: []string{"XGROUP", "DELCONSUMER", "k", "g", "c"}, NeverTouches: streamNoSignal})
	addWriteCases("xgroup|destroy", writeCase{Setup: s, Write: []string{"XGROUP", "DESTROY", "k", "g"}, NeverTouches: streamNoSignal})
	addWriteCases("xgroup|setid", writeCase{Setup: s, Write: []string{"XGROUP", "SETID", "k", "g", "1-0"}, NeverTouches: streamNoSignal})
}
