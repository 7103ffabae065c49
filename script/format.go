package script

import (
	"math"
	"strconv"
	"strings"

	"github.com/miniwatchd/miniwatchd/protocol"
	lua "github.com/yuin/gopher-lua"
)

// strFormat is Lua 5.1's string.format, with C printf's conversions
// (glibc's output for %e %f %g %x ..., which Go's fmt does not share).
func (vm *VM) strFormat(L *lua.LState) int {
	fmtStr := checkString(L, 1)
	arg := 1
	var b []byte
	for i := 0; i < len(fmtStr); i++ {
		if int64(len(b)) > maxLuaString {
			vm.memoryError(L)
		}
		c := fmtStr[i]
		if c != '%' {
			b = append(b, c)
			continue
		}
		i++
		if i < len(fmtStr) && fmtStr[i] == '%' {
			b = append(b, '%')
			continue
		}
		// Flags, width and precision (scanformat).
		start := i
		for i < len(fmtStr) && strings.IndexByte("-+ #0", fmtStr[i]) >= 0 {
			i++
		}
		if i-start > 5 {
			luaError(L, "invalid format (repeated flags)")
		}
		var spec fmtSpec
		for _, f := range fmtStr[start:i] {
			switch f {
			case '-':
				spec.left = true
			case '+':
				spec.plus = true
			case ' ':
				spec.space = true
			case '#':
				spec.alt = true
			case '0':
				spec.zero = true
			}
		}
		wStart := i
		for i < len(fmtStr) && isDigit(fmtStr[i]) {
			i++
		}
		if i-wStart > 2 {
			luaError(L, "invalid format (width or precision too long)")
		}
		spec.width, _ = strconv.Atoi(fmtStr[wStart:i])
		spec.prec = -1
		if i < len(fmtStr) && fmtStr[i] == '.' {
			i++
			pStart := i
			for i < len(fmtStr) && isDigit(fmtStr[i]) {
				i++
			}
			if i-pStart > 2 {
				luaError(L, "invalid format (width or precision too long)")
			}
			spec.prec, _ = strconv.Atoi(fmtStr[pStart:i])
		}
		if i >= len(fmtStr) {
			luaError(L, "invalid option '%' to 'format'")
		}
		conv := fmtStr[i]
		arg++
		if arg > L.GetTop() {
			argError(L, arg, "no value")
		}
		switch conv {
		case 'c':
			b = spec.pad(b, []byte{byte(checkNumber(L, arg))}, false)
		case 'd', 'i':
			b = spec.formatInt(b, doubleToInt64(checkNumber(L, arg)))
		case 'o', 'u', 'x', 'X':
			b = spec.formatUint(b, doubleToUint64(checkNumber(L, arg)), conv)
		case 'e', 'E', 'f', 'g', 'G':
			b = spec.formatFloat(b, checkNumber(L, arg), conv)
		case 'q':
			b = appendQuoted(b, checkString(L, arg))
		case 's':
			s := checkString(L, arg)
			if spec.prec < 0 && len(s) >= 100 {
				b = append(b, s...)
				break
			}
			s = cString(s)
			if spec.prec >= 0 && len(s) > spec.prec {
				s = s[:spec.prec]
			}
			b = spec.pad(b, []byte(s), false)
		default:
			luaError(L, "invalid option '%"+string(conv)+"' to 'format'")
		}
	}
	vm.checkAlloc(L, int64(len(b)))
	L.Push(lua.LString(b))
	return 1
}

// fmtSpec is one parsed printf conversion.
type fmtSpec struct {
	left, plus, space, alt, zero bool
	width, prec                  int
}

// pad appends s justified to the field width; zero pads with '0' after the
// sign (numeric conversions only).
func (s fmtSpec) pad(b, body []byte, numeric bool) []byte {
	n := s.width - len(body)
	if n <= 0 {
		return append(b, body...)
	}
	if s.left {
		b = append(b, body...)
		return append(b, strings.Repeat(" ", n)...)
	}
	if s.zero && numeric {
		sign := 0
		if len(body) > 0 && (body[0] == '-' || body[0] == '+' || body[0] == ' ') {
			sign = 1
		}
		if len(body) > sign+1 && body[sign] == '0' && (body[sign+1]|0x20) == 'x' {
			sign += 2
		}
		b = append(b, body[:sign]...)
		b = append(b, strings.Repeat("0", n)...)
		return append(b, body[sign:]...)
	}
	b = append(b, strings.Repeat(" ", n)...)
	return append(b, body...)
}

func (s fmtSpec) sign(neg bool) string {
	switch {
	case neg:
		return "-"
	case s.plus:
		return "+"
	case s.space:
		return " "
	}
	return ""
}

func (s fmtSpec) formatInt(b []byte, v int64) []byte {
	neg := v < 0
	u := uint64(v)
	if neg {
		u = -u
	}
	digits := strconv.FormatUint(u, 10)
	if s.prec >= 0 {
		if s.prec == 0 && u == 0 {
			digits = ""
		}
		for len(digits) < s.prec {
			digits = "0" + digits
		}
	}
	body := []byte(s.sign(neg) + digits)
	zs := s
	zs.zero = s.zero && s.prec < 0
	return zs.pad(b, body, true)
}

func (s fmtSpec) formatUint(b []byte, u uint64, conv byte) []byte {
	var digits, prefix string
	switch conv {
	case 'o':
		digits = strconv.FormatUint(u, 8)
	case 'u':
		digits = strconv.FormatUint(u, 10)
	case 'x':
		digits = strconv.FormatUint(u, 16)
		if s.alt && u != 0 {
			prefix = "0x"
		}
	case 'X':
		digits = strings.ToUpper(strconv.FormatUint(u, 16))
		if s.alt && u != 0 {
			prefix = "0X"
		}
	}
	if s.prec >= 0 {
		if s.prec == 0 && u == 0 {
			digits = ""
		}
		for len(digits) < s.prec {
			digits = "0" + digits
		}
	}
	if conv == 'o' && s.alt && (len(digits) == 0 || digits[0] != '0') {
		digits = "0" + digits
	}
	zs := s
	zs.zero = s.zero && s.prec < 0
	return zs.pad(b, []byte(prefix+digits), true)
}

func (s fmtSpec) formatFloat(b []byte, f float64, conv byte) []byte {
	upper := conv == 'E' || conv == 'G'
	neg := math.Signbit(f)
	if math.IsInf(f, 0) || math.IsNaN(f) {
		txt := "inf"
		if math.IsNaN(f) {
			txt = "nan"
		}
		if upper || conv == 'F' {
			txt = strings.ToUpper(txt)
		}
		zs := s
		zs.zero = false
		return zs.pad(b, []byte(s.sign(neg)+txt), true)
	}
	a := math.Abs(f)
	prec := s.prec
	if prec < 0 {
		prec = 6
	}
	var body []byte
	switch conv {
	case 'f':
		body = strconv.AppendFloat(nil, a, 'f', prec, 64)
		if s.alt && prec == 0 {
			body = append(body, '.')
		}
	case 'e', 'E':
		body = strconv.AppendFloat(nil, a, 'e', prec, 64)
		if s.alt && prec == 0 {
			i := strings.IndexByte(string(body), 'e')
			body = append(body[:i], append([]byte{'.'}, body[i:]...)...)
		}
	case 'g', 'G':
		if prec == 0 {
			prec = 1
		}
		if s.alt {
			body = appendGAlt(nil, a, prec)
		} else {
			body = protocol.AppendG(nil, a, prec)
		}
	}
	if upper {
		body = []byte(strings.ToUpper(string(body)))
	}
	return s.pad(b, append([]byte(s.sign(neg)), body...), true)
}

// appendGAlt is "%#.<prec>g": like %g but trailing zeros are kept.
func appendGAlt(b []byte, f float64, prec int) []byte {
	e := strconv.AppendFloat(nil, f, 'e', prec-1, 64)
	ei := strings.IndexByte(string(e), 'e')
	exp, _ := strconv.Atoi(string(e[ei+1:]))
	if exp < -4 || exp >= prec {
		if !strings.Contains(string(e[:ei]), ".") {
			e = append(e[:ei], append([]byte{'.'}, e[ei:]...)...)
		}
		return append(b, e...)
	}
	fx := strconv.AppendFloat(nil, f, 'f', prec-1-exp, 64)
	if !strings.Contains(string(fx), ".") {
		fx = append(fx, '.')
	}
	return append(b, fx...)
}

// doubleToUint64 is gcc's x86-64 conversion of a double to unsigned long.
func doubleToUint64(f float64) uint64 {
	if f >= 9223372036854775808.0 {
		if f >= 18446744073709551616.0 || f != f {
			return 1 << 63
		}
		return uint64(int64(f-9223372036854775808.0)) ^ 1<<63
	}
	return uint64(doubleToInt64(f))
}

// appendQuoted is %q: a string Lua can read back.
func appendQuoted(b []byte, s string) []byte {
	b = append(b, '"')
	for i := 0; i < len(s); i++ {
		switch c := s[i]; c {
		case '"', '\\', '\n':
			b = append(b, '\\', c)
		case '\r':
			b = append(b, '\\', 'r')
		case 0:
			b = append(b, '\\', '0', '0', '0')
		default:
			b = append(b, c)
		}
	}
	return append(b, '"')
}
