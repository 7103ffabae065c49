package test

// Write-breaks-WATCH cases for SORT (Redis 7.0 sort.c): SORT ... STORE
// writes its destination (deleting it for an empty result); SORT without
// STORE writes nothing.

func init() {
	list := [][]string{{"RPUSH", "src", "3", "1", "2"}}
	addWriteCases("sort",
		writeCase{Setup: list, Write: []string{"SORT", "src", "STORE", "k"}, NoOp: []string{"SORT", "src"}},
		writeCase{Name: "empty result deletes", Setup: [][]string{{"SET", "k", "v"}}, Write: []string{"SORT", "nosuch", "STORE", "k"}, NoOp: []string{"SORT", "k", "STORE", "other"}},
		writeCase{Name: "missing destination stays missing", Setup: list, Write: []string{"SORT", "src", "LIMIT", "0", "1", "STORE", "k"}, NoOp: []string{"SORT", "src", "LIMIT", "0", "0", "STORE", "k"}},
		writeCase{Name: "watched source", Key: "src", Setup: list, Write: []string{"SORT", "src", "STORE", "src"}, NoOp: []string{"SORT", "src", "STORE", "k"}},
	)
}
