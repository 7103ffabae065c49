// Package test holds miniwatchd's black-box tests: they build
// ./cmd/miniwatchd once, start it and a real redis-server 7.0.15 on free
// loopback ports, and talk to both over TCP. Nothing here imports the
// server's packages.
//
// The pieces, one file each:
//
//   - main_test.go: the binary is built once, by the first test that needs
//     it (with -race when the tests run with -race), in a way that keeps go
//     test's result cache honest; TestMain stops every process at the end.
//   - servers_test.go, pool_test.go: starting and stopping miniwatchd and
//     redis-server, and a pool that hands each test a server reset by
//     FLUSHALL. Differential tests skip when redis-server is missing, unless
//     the environment variable CI is set: then they fail.
//   - resp_test.go, resp_render_test.go, conn_test.go: a raw RESP client
//     that sends multibulk commands (or raw bytes) and reads exactly one
//     reply frame of any RESP2/RESP3 type, as raw bytes and as a tree.
//   - diffpair_test.go, compare_test.go: the Go API for differential tests,
//     p := newDiffPair(t); p.Conn("A").Do("SET", "k", "v"), comparing the
//     raw reply bytes of both servers (or sorted, by shape, or not at all).
//   - scenario_parse_test.go, scenario_run_test.go: the scenario files in
//     testdata/diff/*.txt (format described in testdata/diff/README.md),
//     each run in RESP2 and in RESP3 against both servers.
//   - writecases_test.go and writecases_<family>_test.go: the
//     write-breaks-WATCH meta-test and its registry of cases, one file per
//     command family.
//
// Run everything with `go test -race ./...` from the repository root.
package test
