// Package config is miniwatchd's configuration: Redis 7.0.15's parameter
// table with its parsing, printing and validity rules, the redis.conf and
// command line readers, and the registry that serves CONFIG GET and CONFIG
// SET. It does not import the server: the server owns a Config and a
// Registry over it and registers apply callbacks for the parameters it
// acts on.
//
// Files:
//   - config.go: Config (typed fields the server acts on, Params for the
//     rest), DefaultConfig and its small helpers; notify.go: the
//     notify-keyspace-events flags.
//   - table.go: the row type of the table and its constructors;
//     params_basic.go (bool, string, enum), params_numeric.go and
//     params_special.go (TLS and the special parameters with their own
//     parsers and printers) hold the rows, in Redis's static_configs order.
//   - parse.go: a value into a Config (Redis's interface.set per type);
//     print.go: a Config's value as CONFIG GET prints it (interface.get);
//     validate.go: the checks of single values.
//   - registry.go: the name index, CONFIG GET's pattern rules, CONFIG SET
//     with its error texts, apply phase and rollback, and Params (the
//     table for documentation).
//   - file.go: ParseConfig (redis.conf, include); cmdline.go:
//     ParseCommandLine and LoadConfig (redis-server's main).
//
// Numbers are parsed with protocol's Redis number parsers (ParseInt,
// ParseFloat, Strtoll, ParseMemory); errno texts come from
// protocol.Strerror.
//
// Contracts: every reply text and error reason is Redis 7.0.15's for the
// same input; a Config's Params holds only values that differ from the
// default; ParseConfig never changes its base. Apply callbacks run after
// every value of one CONFIG SET is stored, once each, in the order their
// parameters were given; a failing one rolls back every value and runs
// the callbacks again.
//
// Locking: none inside. A Registry and the Config it serves belong to the
// server's engine lock: call its methods, and read or write the Config,
// only while holding it.
package config
