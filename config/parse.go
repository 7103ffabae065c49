package config

import (
	"strconv"
	"strings"

	"github.com/miniwatchd/miniwatchd/protocol"
)

// Parsing a value into a Config: Redis's interface.set of each parameter
// type, and the C string rules the parsers share.

// setValue parses args (the words of the value) into c as Redis's
// interface.set does. changed reports whether the value differs from the
// previous one (Redis's "return 2"); errText is Redis's reason on failure.
func (d *paramDef) setValue(c *Config, args []string, ctx *setContext) (changed bool, errText string) {
	if d.kind == kindSpecial {
		if e := d.special.set(c, args, ctx); e != "" {
			return false, e
		}
		return true, ""
	}
	var text string
	switch d.kind {
	case kindBool:
		yes, ok := yesNo(args[0])
		if !ok {
			return false, "argument must be 'yes' or 'no'"
		}
		text = "no"
		if yes {
			text = "yes"
		}
		if d.valid != nil {
			if e := d.valid(text); e != "" {
				return false, e
			}
		}
	case kindString:
		v := args[0]
		if !d.binary {
			v = cstr(v)
		}
		if d.valid != nil {
			if e := d.valid(cstr(v)); e != "" {
				return false, e
			}
		}
		text = v
	case kindEnum:
		bitflags := d.flags&paramMultiArg != 0
		v, ok := enumValue(d.enum, args, bitflags)
		if !ok {
			return false, enumError(d.enum)
		}
		if d.validEnum != nil {
			if e := d.validEnum(v); e != "" {
				return false, e
			}
		}
		text = enumName(d.enum, v, bitflags)
	case kindNumeric:
		v, e := d.parseNumber(args[0])
		if e != "" {
			return false, e
		}
		if e := d.checkBounds(v); e != "" {
			return false, e
		}
		text = d.formatNumber(v)
		if d.field != nil {
			prev := d.value(c)
			d.storeNumber(c, v)
			return prev != text, ""
		}
	}
	prev := d.value(c)
	d.store(c, text)
	return prev != text, ""
}

// store keeps text, the CONFIG GET form of a bool, string or enum value.
func (d *paramDef) store(c *Config, text string) {
	switch f := d.field.(type) {
	case boolField:
		*f(c) = text == "yes"
		return
	case stringField:
		*f(c) = text
		return
	}
	setParam(c, d.name, text, d.def)
}

// storeNumber keeps v in the typed field of a numeric parameter.
func (d *paramDef) storeNumber(c *Config, v int64) {
	switch f := d.field.(type) {
	case intField:
		*f(c) = int(v)
	case int64Field:
		*f(c) = v
	case uint64Field:
		*f(c) = uint64(v)
	}
}

// setParam records a value of a parameter without typed field; values equal
// to the default are removed so Params lists only what differs.
func setParam(c *Config, name, text, def string) {
	if text == def {
		if _, ok := c.Params[name]; ok {
			delete(c.Params, name)
		}
		return
	}
	if c.Params == nil {
		c.Params = make(map[string]string)
	}
	c.Params[name] = text
}

// parseNumber is Redis's numericParseString.
func (d *paramDef) parseNumber(v string) (int64, string) {
	if d.num&numMemory != 0 {
		if u, ok := protocol.ParseMemory([]byte(v)); ok {
			return int64(u), ""
		}
	}
	if d.num&numPercent != 0 && len(v) > 1 && v[len(v)-1] == '%' {
		if n, ok := protocol.ParseInt([]byte(v[:len(v)-1])); ok && n >= 0 {
			return -n, ""
		}
	}
	if d.num&numOctal != 0 {
		n, end, overflow := protocol.Strtoll([]byte(v), 8)
		if !overflow && len(end) == 0 {
			return n, ""
		}
	}
	if d.num == 0 {
		if n, ok := protocol.ParseInt([]byte(v)); ok {
			return n, ""
		}
	}
	switch {
	case d.num&numMemory != 0 && d.num&numPercent != 0:
		return 0, "argument must be a memory or percent value"
	case d.num&numMemory != 0:
		return 0, "argument must be a memory value"
	case d.num&numOctal != 0:
		return 0, "argument couldn't be parsed as an octal number"
	}
	return 0, "argument couldn't be parsed into an integer"
}

// checkBounds is Redis's numericBoundaryCheck.
func (d *paramDef) checkBounds(v int64) string {
	if d.unsigned {
		u, lo, hi := uint64(v), uint64(d.min), uint64(d.max)
		if u > hi || u < lo {
			if d.num&numOctal != 0 {
				return "argument must be between " + strconv.FormatUint(lo, 8) + " and " +
					strconv.FormatUint(hi, 8) + " inclusive"
			}
			return "argument must be between " + strconv.FormatUint(lo, 10) + " and " +
				strconv.FormatUint(hi, 10) + " inclusive"
		}
		return ""
	}
	if d.num&numPercent != 0 && v < 0 {
		if v < d.min {
			return "percentage argument must be less or equal to " + strconv.FormatInt(-d.min, 10)
		}
		return ""
	}
	if v > d.max || v < d.min {
		return "argument must be between " + strconv.FormatInt(d.min, 10) + " and " +
			strconv.FormatInt(d.max, 10) + " inclusive"
	}
	return ""
}

// several names whose values are or-ed. Names compare case-insensitively.
func enumValue(items []enumItem, args []string, bitflags bool) (int, bool) {
	if len(args) == 0 || (!bitflags && len(args) != 1) {
		return 0, false
	}
	v := 0
	for _, a := range args {
		a = cstr(a)
		matched := false
		for _, it := range items {
			if strings.EqualFold(a, it.name) && isASCII(a) {
				v |= it.val
				matched = true
			}
		}
		if !matched {
			return 0, false
		}
	}
	return v, true
}

// enumName is Redis's configEnumGetName: the first name with value v, or

// 256-byte buffer).
func enumError(items []enumItem) string {
	var b strings.Builder
	b.WriteString("argument(s) must be one of the following: ")
	for i, it := range items {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(it.name)
	}
	s := b.String()
	if len(s) > 255 {
		s = s[:255]
	}
	return s
}

// C string and number helpers with glibc's semantics.

// cstr cuts s at its first NUL byte, as a C string ends there.
func cstr(s string) string {
	if i := strings.IndexByte(s, 0); i >= 0 {
		return s[:i]
	}
	return s
}

func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= 0x80 {
			return false
		}
	}
	return true
}

// yesNo is Redis's yesnotoi.
func yesNo(s string) (yes, ok bool) {
	switch s = cstr(s); {
	case strings.EqualFold(s, "yes") && isASCII(s):
		return true, true
	case strings.EqualFold(s, "no") && isASCII(s):
		return false, true
	}
	return false, false
}

// asciiLower lower-cases the ASCII letters of s (C's tolower in the C
// locale; strings.ToLower would also fold non-ASCII letters).
func asciiLower(s string) string {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c >= 'A' && c <= 'Z' {
			b := []byte(s)
			for j := i; j < len(b); j++ {
				if b[j] >= 'A' && b[j] <= 'Z' {
					b[j] += 'a' - 'A'
				}
			}
			return string(b)
		}
	}
	return s
}

// splitValue splits a CONFIG SET value of a multi-word parameter on single
// spaces as Redis's sdssplitlen does ("" has no words, "a  b" has three).
func splitValue(v string) []string {
	if v == "" {
		return nil
	}
	return strings.Split(v, " ")
}
