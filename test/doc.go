// Package test holds miniwatchd's black-box tests: they build
// ./cmd/miniwatchd once, start it and a real redis-server 7.0.15 on free
// loopback ports, and talk to both over TCP. Nothing here imports the
// server's packages; the shared RESP client (internal/resptest) parses
// replies itself and encodes requests with protocol's encoder only.
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
//   - internal/resptest (outside this package, shared with the server's and
//     the AOF's tests): the raw RESP client, which sends multibulk commands
//     (or raw bytes) and reads exactly one reply frame of any RESP2/RESP3
//     type, as raw bytes and as a tree. conn_test.go and respframe_test.go
//     give it its names here (respConn, node); respframe_check_test.go
//     tests the reader, resprender_test.go renders a frame as redis-cli.
//   - diffpair_test.go, compare_test.go: the Go API for differential tests,
//     p := newDiffPair(t); p.Conn("A").Do("SET", "k", "v"), comparing the
//     raw reply bytes of both servers (or sorted, by shape, or not at all).
//   - scenario_parse_test.go, scenario_run_test.go: the scenario files in
//     testdata/diff/*.txt (format described in testdata/diff/README.md),
//     each run in RESP2 and in RESP3 against both servers.
//   - writecases_test.go and writecases_<family>_test.go: the
//     write-breaks-WATCH meta-test and its registry of cases, one file per
//     command family.
//   - diff_<family>_test.go, model_types_test.go, setmatrix_test.go,
//     typescases_test.go: differential and model tests of the value types.
//   - pubsub_helper_test.go, scriptdiff_helper_test.go: the two-server
//     drivers of the pub/sub and scripting differential tests, used by
//     pubsub_*_test.go and script_*_test.go.
//   - goredis_*_test.go, rueidis_test.go, rediscli_test.go: real clients
//     (go-redis, rueidis, redis-cli) against both servers.
//   - the rest, one file per subject (arity, client, command, config, info,
//     malformed input, pipelining, expiry, eviction, scan): black-box checks
//     named after what they cover.
//
// Run them with `go test -race ./test/` (or one subject with -run) from the
// repository root.
package test
