package script

import (
	"math"
	"strings"

	"github.com/miniwatchd/miniwatchd/protocol"
	lua "github.com/yuin/gopher-lua"
)

// The cjson library (Lua CJSON 2.1.0, deps/lua/src/lua_cjson.c) with its
// texts, its number format ("%.14g") and its settings, which live as long
// as the Lua state (SCRIPT FLUSH resets them).

// cjsonConfig is json_config_t.
type cjsonConfig struct {
	sparseConvert  int
	sparseRatio    int
	sparseSafe     int
	encodeMaxDepth int
	decodeMaxDepth int
	encodeInvalid  int // 0 off, 1 on, 2 null
	decodeInvalid  int
	keepBuffer     int
	precision      int
}

func newCJSONConfig() *cjsonConfig {
	return &cjsonConfig{sparseRatio: 2, sparseSafe: 10, encodeMaxDepth: 1000, decodeMaxDepth: 1000,
		decodeInvalid: 1, keepBuffer: 1, precision: 14}
}

func (vm *VM) cjsonLib() *lua.LTable { return vm.cjsonModule(vm.shared.cjson) }

// cjsonModule builds a cjson table bound to cfg (lua_cjson_new).
func (vm *VM) cjsonModule(cfg *cjsonConfig) *lua.LTable {
	L := vm.L
	t := L.NewTable()
	for name, fn := range map[string]lua.LGFunction{
		"encode": func(L *lua.LState) int { return vm.jsonEncode(L, cfg) },
		"decode": func(L *lua.LState) int { return vm.jsonDecode(L, cfg) },
		"encode_sparse_array": func(L *lua.LState) int {
			jsonArgInit(L, 3)
			jsonEnumOption(L, 1, &cfg.sparseConvert, nil)
			jsonIntOption(L, 2, &cfg.sparseRatio, 0, math.MaxInt32)
			jsonIntOption(L, 3, &cfg.sparseSafe, 0, math.MaxInt32)
			return 3
		},
		"encode_max_depth": func(L *lua.LState) int {
			jsonArgInit(L, 1)
			return jsonIntOption(L, 1, &cfg.encodeMaxDepth, 1, math.MaxInt32)
		},
		"decode_max_depth": func(L *lua.LState) int {
			jsonArgInit(L, 1)
			return jsonIntOption(L, 1, &cfg.decodeMaxDepth, 1, math.MaxInt32)
		},
		"encode_number_precision": func(L *lua.LState) int {
			jsonArgInit(L, 1)
			return jsonIntOption(L, 1, &cfg.precision, 1, 14)
		},
		"encode_keep_buffer": func(L *lua.LState) int {
			jsonArgInit(L, 1)
			return jsonEnumOption(L, 1, &cfg.keepBuffer, nil)
		},
		"encode_invalid_numbers": func(L *lua.LState) int {
			jsonArgInit(L, 1)
			return jsonEnumOption(L, 1, &cfg.encodeInvalid, []string{"off", "on", "null"})
		},
		"decode_invalid_numbers": func(L *lua.LState) int {
			jsonArgInit(L, 1)
			return jsonEnumOption(L, 1, &cfg.decodeInvalid, nil)
		},
		"new": func(L *lua.LState) int {
			L.Push(vm.cjsonModule(newCJSONConfig()))
			return 1
		},
	} {
		t.RawSetString(name, L.NewFunction(fn))
	}
	t.RawSetString("null", vm.shared.null)
	t.RawSetString("_NAME", lua.LString("cjson"))
	t.RawSetString("_VERSION", lua.LString("2.1.0"))
	return t
}

// jsonArgInit is json_arg_init: at most n arguments.
func jsonArgInit(L *lua.LState, n int) {
	if L.GetTop() > n {
		argError(L, n+1, "found too many arguments")
	}
	for L.GetTop() < n {
		L.Push(lua.LNil)
	}
}

func jsonIntOption(L *lua.LState, i int, setting *int, min, max int) int {
	if L.Get(i) != lua.LNil {
		v := int(int32(checkInteger(L, i)))
		if v < min || v > max {
			argError(L, 1, "expected integer between "+itoa(min)+" and "+itoa(max))
		}
		*setting = v
	}
	L.Push(lua.LNumber(*setting))
	return 1
}

// jsonEnumOption is json_enum_option with bool_true 1: booleans or one of
// options (default "off", "on").
func jsonEnumOption(L *lua.LState, i int, setting *int, options []string) int {
	if options == nil {
		options = []string{"off", "on"}
	}
	if v := L.Get(i); v != lua.LNil {
		if b, ok := v.(lua.LBool); ok {
			*setting = 0
			if b {
				*setting = 1
			}
		} else {
			name := checkString(L, i)
			found := false
			for j, o := range options {
				if o == name {
					*setting, found = j, true
					break
				}
			}
			if !found {
				argError(L, i, "invalid option '"+name+"'")
			}
		}
	}
	if *setting == 0 || *setting == 1 {
		L.Push(lua.LBool(*setting == 1))
	} else {
		L.Push(lua.LString(options[*setting]))
	}
	return 1
}

// jsonEncoder serialises Lua values.
type jsonEncoder struct {
	vm    *VM
	L     *lua.LState
	cfg   *cjsonConfig
	b     []byte
	slots int // Lua stack slots the C encoder would hold (lua_checkstack)
}

func (vm *VM) jsonEncode(L *lua.LState, cfg *cjsonConfig) int {
	if L.GetTop() != 1 {
		argError(L, 1, "expected 1 argument")
	}
	e := &jsonEncoder{vm: vm, L: L, cfg: cfg, slots: 1}
	e.value(L.Get(1), 0)
	L.Push(lua.LString(e.b))
	return 1
}

func (e *jsonEncoder) fail(v lua.LValue, reason string) {
	luaError(e.L, "Cannot serialise "+v.Type().String()+": "+reason)
}

// json escapes (char2escape).
var jsonEscapes = func() (t [256]string) {
	for i := 0; i < 32; i++ {
		t[i] = "\\u00" + string("0123456789abcdef"[i>>4]) + string("0123456789abcdef"[i&15])
	}
	t['\b'], t['\t'], t['\n'], t['\f'], t['\r'] = "\\b", "\\t", "\\n", "\\f", "\\r"
	t['"'], t['\\'], t['/'], t[127] = "\\\"", "\\\\", "\\/", "\\u007f"
	return t
}()

func (e *jsonEncoder) str(s string) {
	e.b = append(e.b, '"')
	for i := 0; i < len(s); i++ {
		if esc := jsonEscapes[s[i]]; esc != "" {
			e.b = append(e.b, esc...)
		} else {
			e.b = append(e.b, s[i])
		}
	}
	e.b = append(e.b, '"')
}

func (e *jsonEncoder) number(v lua.LNumber) {
	f := float64(v)
	if math.IsInf(f, 0) || math.IsNaN(f) {
		switch e.cfg.encodeInvalid {
		case 0:
			e.fail(v, "must not be NaN or Inf")
		case 1:
			if math.IsNaN(f) {
				e.b = append(e.b, "nan"...)
				return
			}
		default:
			e.b = append(e.b, "null"...)
			return
		}
	}
	e.b = appendG(e.b, f, e.cfg.precision)
}

func (e *jsonEncoder) value(v lua.LValue, depth int) {
	switch x := v.(type) {
	case lua.LString:
		e.str(string(x))
	case lua.LNumber:
		e.number(x)
	case lua.LBool:
		if x {
			e.b = append(e.b, "true"...)
		} else {
			e.b = append(e.b, "false"...)
		}
	case *lua.LNilType:
		e.b = append(e.b, "null"...)
	case *lua.LTable:
		depth++
		if depth > e.cfg.encodeMaxDepth || e.slots+3 > luaMaxCStack {
			luaError(e.L, "Cannot serialise, excessive nesting ("+itoa(depth)+")")
		}
		t := e.vm.unwrap(x)
		n := e.arrayLength(x, t)
		if n > 0 {
			e.b = append(e.b, '[')
			e.slots++ // the element lua_rawgeti pushes
			for i := 1; i <= n; i++ {
				if i > 1 {
					e.b = append(e.b, ',')
				}
				e.value(t.RawGetInt(i), depth)
			}
			e.slots--
			e.b = append(e.b, ']')
			return
		}
		e.b = append(e.b, '{')
		e.slots += 2 // the key and value lua_next pushes
		defer func() { e.slots -= 2 }()
		first := true
		for k, val := t.Next(lua.LNil); k != lua.LNil; k, val = t.Next(k) {
			if !first {
				e.b = append(e.b, ',')
			}
			first = false
			switch kk := k.(type) {
			case lua.LNumber:
				e.b = append(e.b, '"')
				e.number(kk)
				e.b = append(e.b, '"', ':')
			case lua.LString:
				e.str(string(kk))
				e.b = append(e.b, ':')
			default:
				e.fail(k, "table key must be a number or string")
			}
			e.value(val, depth)
		}
		e.b = append(e.b, '}')
	case *lua.LUserData:
		if x == e.vm.shared.null {
			e.b = append(e.b, "null"...)
			return
		}
		e.fail(v, "type not supported")
	default:
		e.fail(v, "type not supported")
	}
}

// arrayLength is lua_array_length: the largest index when every key is a
// positive integer, -1 otherwise (and for excessively sparse arrays when
// conversion is on).
func (e *jsonEncoder) arrayLength(orig, t *lua.LTable) int {
	max, items := 0.0, 0
	for k, _ := t.Next(lua.LNil); k != lua.LNil; k, _ = t.Next(k) {
		n, ok := k.(lua.LNumber)
		f := float64(n)
		if !ok || f == 0 || math.Floor(f) != f || f < 1 {
			return -1
		}
		if f > max {
			max = f
		}
		items++
	}
	if e.cfg.sparseRatio > 0 && max > float64(items*e.cfg.sparseRatio) && max > float64(e.cfg.sparseSafe) {
		if e.cfg.sparseConvert == 0 {
			e.fail(orig, "excessively sparse array")
		}
		return -1
	}
	return int(doubleToInt32(max))
}

// JSON decoding (json_next_token and friends).

type jsonTokenType int

const (
	tObjBegin jsonTokenType = iota
	tObjEnd
	tArrBegin
	tArrEnd
	tString
	tNumber
	tBoolean
	tNull
	tColon
	tComma
	tEnd
	tWhitespace
	tError
	tUnknown
)

var jsonTokenNames = []string{"T_OBJ_BEGIN", "T_OBJ_END", "T_ARR_BEGIN", "T_ARR_END", "T_STRING",
	"T_NUMBER", "T_BOOLEAN", "T_NULL", "T_COLON", "T_COMMA", "T_END", "T_WHITESPACE", "T_ERROR", "T_UNKNOWN"}

type jsonToken struct {
	typ   jsonTokenType
	index int
	str   string // T_STRING value, or the T_ERROR message
	num   float64
	b     bool
}

type jsonDecoder struct {
	vm    *VM
	L     *lua.LState
	cfg   *cjsonConfig
	data  string // the input cut at its first NUL, as C sees it
	pos   int
	depth int
	slots int // Lua stack slots the C decoder would hold (lua_checkstack)
}

func (vm *VM) jsonDecode(L *lua.LState, cfg *cjsonConfig) int {
	if L.GetTop() != 1 {
		argError(L, 1, "expected 1 argument")
	}
	s := checkString(L, 1)
	if len(s) >= 2 && (s[0] == 0 || s[1] == 0) {
		luaError(L, "JSON parser does not support UTF-16 or UTF-32")
	}
	d := &jsonDecoder{vm: vm, L: L, cfg: cfg, data: cString(s), slots: 1}
	var tok jsonToken
	d.next(&tok)
	v := d.value(&tok)
	d.next(&tok)
	if tok.typ != tEnd {
		d.parseError("the end", &tok)
	}
	L.Push(v)
	return 1
}

func (d *jsonDecoder) at(i int) byte {
	if i < len(d.data) {
		return d.data[i]
	}
	return 0
}

func (d *jsonDecoder) parseError(exp string, tok *jsonToken) {
	found := ""
	if tok.typ == tError {
		found = tok.str
	} else {
		found = jsonTokenNames[tok.typ]
	}
	luaError(d.L, "Expected "+exp+" but found "+found+" at character "+itoa(tok.index+1))
}

func (d *jsonDecoder) setError(tok *jsonToken, msg string) {
	tok.typ = tError
	tok.index = d.pos
	tok.str = msg
}

func jsonCharToken(c byte) jsonTokenType {
	switch c {
	case '{':
		return tObjBegin
	case '}':
		return tObjEnd
	case '[':
		return tArrBegin
	case ']':
		return tArrEnd
	case ',':
		return tComma
	case ':':
		return tColon
	case 0:
		return tEnd
	case ' ', '\t', '\n', '\r':
		return tWhitespace
	case 'f', 'i', 'I', 'n', 'N', 't', '"', '+', '-', '0', '1', '2', '3', '4', '5', '6', '7', '8', '9':
		return tUnknown
	}
	return tError
}

func (d *jsonDecoder) next(tok *jsonToken) {
	var c byte
	for {
		c = d.at(d.pos)
		tok.typ = jsonCharToken(c)
		if tok.typ != tWhitespace {
			break
		}
		d.pos++
	}
	tok.index = d.pos
	switch tok.typ {
	case tError:
		d.setError(tok, "invalid token")
		return
	case tEnd:
		return
	case tUnknown:
	default:
		d.pos++
		return
	}
	rest := d.data[d.pos:]
	switch {
	case c == '"':
		d.stringToken(tok)
	case c == '-' || isDigit(c):
		if d.cfg.decodeInvalid == 0 && d.invalidNumber() {
			d.setError(tok, "invalid number")
			return
		}
		d.numberToken(tok)
	case strings.HasPrefix(rest, "true"):
		tok.typ, tok.b = tBoolean, true
		d.pos += 4
	case strings.HasPrefix(rest, "false"):
		tok.typ, tok.b = tBoolean, false
		d.pos += 5
	case strings.HasPrefix(rest, "null"):
		tok.typ = tNull
		d.pos += 4
	case d.cfg.decodeInvalid != 0 && d.invalidNumber():
		d.numberToken(tok)
	default:
		d.setError(tok, "invalid token")
	}
}

// invalidNumber is json_is_invalid_number: numbers strict JSON refuses
// but strtod would take (leading '+', hex, leading zeros, inf, nan).
func (d *jsonDecoder) invalidNumber() bool {
	p := d.pos
	if d.at(p) == '+' {
		return true
	}
	if d.at(p) == '-' {
		p++
	}
	if d.at(p) == '0' {
		c2 := d.at(p + 1)
		return c2|0x20 == 'x' || isDigit(c2)
	} else if d.at(p) <= '9' {
		return false
	}
	rest := d.data[min(p, len(d.data)):]
	return hasPrefixFold(rest, "inf") || hasPrefixFold(rest, "nan")
}

func (d *jsonDecoder) numberToken(tok *jsonToken) {
	tok.typ = tNumber
	f, n := strtod(d.data[d.pos:])
	if n == 0 {
		d.setError(tok, "invalid number")
		return
	}
	tok.num = f
	d.pos += n
}

func (d *jsonDecoder) stringToken(tok *jsonToken) {
	d.pos++ // skip "
	var b []byte
	for {
		c := d.at(d.pos)
		if c == '"' {
			break
		}
		if c == 0 {
			d.setError(tok, "unexpected end of string")
			return
		}
		if c == '\\' {
			switch esc := d.at(d.pos + 1); esc {
			case 'u':
				var ok bool
				if b, ok = d.unicodeEscape(b); !ok {
					d.setError(tok, "invalid unicode escape code")
					return
				}
				continue
			case '"', '\\', '/':
				c = esc
			case 'b':
				c = '\b'
			case 't':
				c = '\t'
			case 'n':
				c = '\n'
			case 'f':
				c = '\f'
			case 'r':
				c = '\r'
			default:
				d.setError(tok, "invalid escape code")
				return
			}
			d.pos++
		}
		b = append(b, c)
		d.pos++
	}
	d.pos++ // final "
	tok.typ = tString
	tok.str = string(b)
}

func (d *jsonDecoder) hex4(p int) int {
	v := 0
	for i := 0; i < 4; i++ {
		h := hexVal(d.at(p + i))
		if h < 0 {
			return -1
		}
		v = v<<4 | h
	}
	return v
}

// unicodeEscape decodes \uXXXX (and a surrogate pair) at d.pos as UTF-8.
func (d *jsonDecoder) unicodeEscape(b []byte) ([]byte, bool) {
	cp := d.hex4(d.pos + 2)
	if cp < 0 {
		return b, false
	}
	escLen := 6
	if cp&0xF800 == 0xD800 {
		if cp&0x400 != 0 {
			return b, false
		}
		if d.at(d.pos+6) != '\\' || d.at(d.pos+7) != 'u' {
			return b, false
		}
		low := d.hex4(d.pos + 8)
		if low < 0 || low&0xFC00 != 0xDC00 {
			return b, false
		}
		cp = ((cp&0x3FF)<<10 | low&0x3FF) + 0x10000
		escLen = 12
	}
	switch {
	case cp <= 0x7F:
		b = append(b, byte(cp))
	case cp <= 0x7FF:
		b = append(b, byte(cp>>6|0xC0), byte(cp&0x3F|0x80))
	case cp <= 0xFFFF:
		b = append(b, byte(cp>>12|0xE0), byte(cp>>6&0x3F|0x80), byte(cp&0x3F|0x80))
	default:
		b = append(b, byte(cp>>18|0xF0), byte(cp>>12&0x3F|0x80), byte(cp>>6&0x3F|0x80), byte(cp&0x3F|0x80))
	}
	d.pos += escLen
	return b, true
}

// descend enters an array (need 2 slots, keeps 1: the table) or an object
// (need 3, keeps 2: the table and the key being read), as
// json_decode_descend checks them with lua_checkstack.
func (d *jsonDecoder) descend(need int) {
	d.depth++
	if d.depth > d.cfg.decodeMaxDepth || d.slots+need > luaMaxCStack {
		luaError(d.L, "Found too many nested data structures ("+itoa(d.depth)+") at character "+itoa(d.pos))
	}
}

func (d *jsonDecoder) value(tok *jsonToken) lua.LValue {
	switch tok.typ {
	case tString:
		return lua.LString(tok.str)
	case tNumber:
		return lua.LNumber(tok.num)
	case tBoolean:
		return lua.LBool(tok.b)
	case tNull:
		return d.vm.shared.null
	case tObjBegin:
		d.descend(3)
		d.slots += 2
		defer func() { d.slots -= 2 }()
		t := d.L.NewTable()
		d.next(tok)
		if tok.typ == tObjEnd {
			d.depth--
			return t
		}
		for {
			if tok.typ != tString {
				d.parseError("object key string", tok)
			}
			key := tok.str
			d.next(tok)
			if tok.typ != tColon {
				d.parseError("colon", tok)
			}
			d.next(tok)
			t.RawSetString(key, d.value(tok))
			d.next(tok)
			if tok.typ == tObjEnd {
				d.depth--
				return t
			}
			if tok.typ != tComma {
				d.parseError("comma or object end", tok)
			}
			d.next(tok)
		}
	case tArrBegin:
		d.descend(2)
		d.slots++
		defer func() { d.slots-- }()
		t := d.L.NewTable()
		d.next(tok)
		if tok.typ == tArrEnd {
			d.depth--
			return t
		}
		for i := 1; ; i++ {
			t.RawSetInt(i, d.value(tok))
			d.next(tok)
			if tok.typ == tArrEnd {
				d.depth--
				return t
			}
			if tok.typ != tComma {
				d.parseError("comma or array end", tok)
			}
			d.next(tok)
		}
	}
	d.parseError("value", tok)
	return lua.LNil
}

// appendG is C's "%.<prec>g".
func appendG(b []byte, f float64, prec int) []byte { return protocol.AppendG(b, f, prec) }
