package resptest

import "errors"

// Nil is how Value reports a null (a null bulk or array, RESP3's _), so
// that a test compares it with == and prints it as redis-cli does.
const Nil = "<nil>"

// Value converts a frame to plain Go values: a status, bulk, verbatim
// (with its "txt:" prefix), double or big number becomes a string, an
// integer an int64, a boolean a bool, an error (simple or blob) an error
// whose text is the reply's, an array, set, push or map (keys and values in
// turn) a []any, and every null Nil.
func (n Node) Value() any {
	return n.Convert(Nil, func(text string) any { return errors.New(text) })
}

// Convert is Value with the caller's choices for the two replies that
// have no one Go form: null stands for every null, and errf(text) for an
// error reply of that text (the embedding package's Do uses nil and its
// own error type).
func (n Node) Convert(null any, errf func(text string) any) any {
	switch {
	case n.Null:
		return null
	case n.IsError():
		return errf(n.Str)
	}
	switch n.Kind {
	case ':':
		return n.Int
	case '#':
		return n.Bool
	case '*', '~', '>', '%':
		out := make([]any, len(n.Elems))
		for i, e := range n.Elems {
			out[i] = e.Convert(null, errf)
		}
		return out
	}
	return n.Str
}

// DoValue sends a command and returns its reply as Value gives it, or the
// transport error.
func (c *Conn) DoValue(args ...string) any {
	n, err := c.Do(args...)
	if err != nil {
		return err
	}
	return n.Value()
}

// DoArgsValue is DoValue with binary arguments.
func (c *Conn) DoArgsValue(args [][]byte) any {
	if err := c.SendRaw(AppendArgs(nil, args...)); err != nil {
		return err
	}
	n, err := c.Read(ReplyTimeout)
	if err != nil {
		return err
	}
	return n.Value()
}
