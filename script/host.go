package script

// Host is what a running script asks of the server. The server implements it
// with its script client: commands go through the same lookup, arity,
// no-script, read-only and out-of-memory checks as the network path and then
// through the server's call, so script writes reach db's choke point.
type Host interface {
	// Call runs a command for redis.call and redis.pcall; proto is the RESP
	// version the script selected with redis.setresp (2 or 3). It returns the
	// reply the command wrote, or a refusal: the error raised instead of
	// running the command, either a bare message ("Unknown Redis command
	// called from script") or a message with its own code ("-OOM ...").
	Call(args [][]byte, proto int) (reply []byte, refusal string)
	// ACLCheckCmd is redis.acl_check_cmd: whether args name a command,
	// and whether the user running the script may run it with these
	// arguments (ACLCheckAllUserCommandPerm; nothing is logged).
	ACLCheckCmd(args [][]byte) (exists, allowed bool)
	// Interrupt is called every HookPeriod VM instructions while the script
	// runs (Redis's luaMaskCountHook). It returns "" to let the script go on,
	// or the message of the error that kills it.
	Interrupt() string
	// Log writes a redis.log message at level (0 debug .. 3 warning) if the
	// server's verbosity lets it through.
	Log(level int, msg string)
}

// Result tells the caller what kind of reply a run wrote.
type Result struct {
	// Err is set when the reply is an error.
	Err bool
	// CountErr is set when that error was raised by the script itself and
	// must be counted in the error statistics; errors that a command already
	// counted when it replied inside the script are not counted twice.
	CountErr bool
}
