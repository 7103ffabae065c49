package test

// Write-breaks-WATCH cases for the geo commands (geo.c): GEOADD is a ZADD;
// the STORE forms write their destination like ZRANGESTORE.

func init() {
	pos := [][]string{{"GEOADD", "k", "13.361389", "38.115556", "Palermo"}}
	src := [][]string{{"GEOADD", "src", "13.361389", "38.115556", "Palermo", "15.087269", "37.502669", "Catania"}}
	addWriteCases("geoadd",
		writeCase{Name: "new member", Setup: pos, Write: []string{"GEOADD", "k", "15.087269", "37.502669", "Catania"},
			NoOp: []string{"GEOADD", "k", "13.361389", "38.115556", "Palermo"}},
		writeCase{Name: "moved", Setup: pos, Write: []string{"GEOADD", "k", "CH", "13", "38", "Palermo"},
			NoOp: []string{"GEOADD", "k", "NX", "13", "38", "Palermo"}},
		writeCase{Name: "create", Write: []string{"GEOADD", "k", "1", "1", "a"}, NoOp: []string{"GEOADD", "k", "XX", "1", "1", "a"}},
		writeCase{Name: "invalid position", Setup: pos, Write: []string{"GEOADD", "k", "1", "1", "a"},
			NoOp: []string{"GEOADD", "k", "1", "1", "a", "200", "1", "b"}},
	)
	addWriteCases("georadius",
		writeCase{Name: "STORE", Setup: src, Write: []string{"GEORADIUS", "src", "15", "37", "200", "km", "STORE", "k"},
			NoOp: []string{"GEORADIUS", "src", "15", "37", "200", "km"}},
		writeCase{Name: "STOREDIST, empty result deletes", Setup: append(src, []string{"SET", "k", "v"}),
			Write: []string{"GEORADIUS", "src", "0", "0", "1", "m", "STOREDIST", "k"},
			NoOp:  []string{"GEORADIUS", "src", "0", "0", "1", "m", "STOREDIST", "nokey"}},
		writeCase{Name: "missing source deletes", Setup: [][]string{{"SET", "k", "v"}},
			Write: []string{"GEORADIUS", "nosrc", "0", "0", "1", "m", "STORE", "k"},
			NoOp:  []string{"GEORADIUS", "nosrc", "0", "0", "1", "m", "STORE", "other"}},
	)
	addWriteCases("georadiusbymember",
		writeCase{Name: "STORE", Setup: src, Write: []string{"GEORADIUSBYMEMBER", "src", "Palermo", "200", "km", "STORE", "k"},
			NoOp: []string{"GEORADIUSBYMEMBER", "src", "Palermo", "200", "km", "WITHDIST"}},
		writeCase{Name: "STOREDIST", Setup: src, Write: []string{"GEORADIUSBYMEMBER", "src", "Catania", "1", "km", "STOREDIST", "k"},
			NoOp: []string{"GEORADIUSBYMEMBER", "src", "nope", "1", "km", "STOREDIST", "k"}},
	)
	addWriteCases("geosearchstore",
		writeCase{Setup: src, Write: []string{"GEOSEARCHSTORE", "k", "src", "FROMLONLAT", "15", "37", "BYRADIUS", "200", "km"},
			NoOp: []string{"GEOSEARCHSTORE", "k", "src", "FROMLONLAT", "15", "37", "BYRADIUS", "200", "km", "WITHDIST"}},
		writeCase{Name: "STOREDIST BYBOX", Setup: src, Write: []string{"GEOSEARCHSTORE", "k", "src", "FROMMEMBER", "Palermo", "BYBOX", "10", "10", "km", "STOREDIST"},
			NoOp: []string{"GEOSEARCHSTORE", "k", "src", "FROMMEMBER", "nope", "BYBOX", "10", "10", "km"}},
		writeCase{Name: "empty result deletes", Setup: append(src, []string{"SET", "k", "v"}),
			Write: []string{"GEOSEARCHSTORE", "k", "src", "FROMLONLAT", "0", "0", "BYRADIUS", "1", "m"},
			NoOp:  []string{"GEOSEARCHSTORE", "nokey", "src", "FROMLONLAT", "0", "0", "BYRADIUS", "1", "m"}},
		writeCase{Name: "source only", Setup: [][]string{{"GEOADD", "k", "1", "1", "a"}},
			Write:        []string{"GEOSEARCHSTORE", "dst", "k", "FROMLONLAT", "1", "1", "BYRADIUS", "1", "km"},
			NeverTouches: "the watched key is only the source"},
	)
}
