package protocol

// Error is an error whose text is a complete Redis error reply line without
// the leading '-' (for example "ERR syntax error"). Packages below the server
// return these so the server can reply with err.Error() unchanged.
type Error string

func (e Error) Error() string { return string(e) }

// Error replies shared by many commands, with Redis 7.0.15's exact texts
// (server.c createSharedObjects and the addReplyError calls of each command).
const (
	ErrSyntax          Error = "ERR syntax error"
	ErrWrongType       Error = "WRONGTYPE Operation against a key holding the wrong kind of value"
	ErrNotInteger      Error = "ERR value is not an integer or out of range"
	ErrNotFloat        Error = "ERR value is not a valid float"
	ErrNoSuchKey       Error = "ERR no such key"
	ErrOutOfRange      Error = "ERR index out of range"
	ErrSameObject      Error = "ERR source and destination objects are the same"
	ErrDBIndex         Error = "ERR DB index is out of range"
	ErrIncrOverflow    Error = "ERR increment or decrement would overflow"
	ErrNaNOrInf        Error = "ERR increment would produce NaN or Infinity"
	ErrStringTooLong   Error = "ERR string exceeds maximum allowed size (proto-max-bulk-len)"
	ErrOffsetRange     Error = "ERR offset is out of range"
	ErrNotPositive     Error = "ERR value is out of range, must be positive"
	ErrExecAbort       Error = "EXECABORT Transaction discarded because of previous errors."
	ErrExecNoMulti     Error = "ERR EXEC without MULTI"
	ErrDiscardNoMulti  Error = "ERR DISCARD without MULTI"
	ErrMultiNested     Error = "ERR MULTI calls can not be nested"
	ErrWatchInMulti    Error = "ERR WATCH inside MULTI is not allowed"
	ErrNoMulti         Error = "ERR Command not allowed inside a transaction"
	ErrOOM             Error = "OOM command not allowed when used memory > 'maxmemory'."
	ErrBusy            Error = "BUSY Redis is busy running a script. You can only call SCRIPT KILL or SHUTDOWN NOSAVE."
	ErrNoAuth          Error = "NOAUTH Authentication required."
	ErrWrongPass       Error = "WRONGPASS invalid username-password pair or user is disabled."
	ErrNoScript        Error = "NOSCRIPT No matching script. Please use EVAL."
	ErrTimeoutNegative Error = "ERR timeout is negative"
	ErrTimeoutInvalid  Error = "ERR timeout is not a float or out of range"
	ErrTimeoutOutRange Error = "ERR timeout is out of range"
)

// ErrWrongArity returns the arity error for cmd (lower case; subcommands as
// "container|sub").
func ErrWrongArity(cmd string) Error {
	return Error("ERR wrong number of arguments for '" + cmd + "' command")
}

// ErrUnknownSubcommand returns Redis's unknown-subcommand error for cmd
// (upper case in the hint, as Redis prints it).
func ErrUnknownSubcommand(sub []byte, cmd string) Error {
	return Error("ERR unknown subcommand '" + truncForError(sub) + "'. Try " + cmd + " HELP.")
}

// ErrInvalidExpire returns the error for an invalid TTL given to cmd.
func ErrInvalidExpire(cmd string) Error {
	return Error("ERR invalid expire time in '" + cmd + "' command")
}

// truncForError mirrors the 128-byte cut Redis applies when it quotes user
// input in unknown-command/subcommand errors (sdscatrepr is not used there).
func truncForError(b []byte) string {
	b = cstr(b)
	if len(b) > 128 {
		b = b[:128]
	}
	return string(b)
}

// cstr cuts b at its first NUL byte, as C's "%s" stops there.
func cstr(b []byte) []byte {
	for i, c := range b {
		if c == 0 {
			return b[:i]
		}
	}
	return b
}

// ErrUnknownCommand builds Redis's unknown-command error: the name (cut to
// 128 bytes), then the arguments quoted one by one while the text stays
// under 128 bytes, with CR and LF turned into spaces by the writer.
func ErrUnknownCommand(args [][]byte) Error {
	name := cstr(args[0])
	if len(name) > 128 {
		name = name[:128]
	}
	b := make([]byte, 0, 64)
	b = append(b, "ERR unknown command '"...)
	b = append(b, name...)
	b = append(b, "', with args beginning with: "...)
	b = append(b, QuoteArgs(args[1:])...)
	return Error(b)
}

// QuoteArgs renders arguments as Redis's unknown-command and
// unknown-subcommand errors do: "'arg' " each, stopping once 128 bytes of
// arguments were written (each argument cut to 128 bytes first).
func QuoteArgs(args [][]byte) []byte {
	var b []byte
	for _, a := range args {
		if len(b) >= 128 {
			break
		}
		a = cstr(a)
		if len(a) > 128-len(b) {
			a = a[:128-len(b)]
		}
		b = append(b, '\'')
		b = append(b, a...)
		b = append(b, '\'', ' ')
	}
	return b
}
