package config

import (
	"strconv"
	"strings"
)

// Printing a value of a Config: Redis's interface.get of each parameter
// type (what CONFIG GET and CONFIG REWRITE show).

// value returns the parameter's CONFIG GET text in c.
func (d *paramDef) value(c *Config) string {
	if d.kind == kindSpecial {
		return d.special.get(c)
	}
	switch f := d.field.(type) {
	case boolField:
		if *f(c) {
			return "yes"
		}
		return "no"
	case stringField:
		return *f(c)
	case intField:
		return d.formatNumber(int64(*f(c)))
	case int64Field:
		return d.formatNumber(*f(c))
	case uint64Field:
		return d.formatNumber(int64(*f(c)))
	}
	if v, ok := c.Params[d.name]; ok {
		return v
	}
	return d.def
}

// formatNumber is Redis's numericConfigGet.
func (d *paramDef) formatNumber(v int64) string {
	switch {
	case d.num&numPercent != 0 && v < 0:
		return strconv.FormatInt(-v, 10) + "%"
	case d.num&numMemory != 0:
		return strconv.FormatUint(uint64(v), 10)
	case d.num&numOctal != 0:
		return strconv.FormatUint(uint64(v), 8)
	}
	return strconv.FormatInt(v, 10)
}

// enumValue is Redis's configEnumGetValue: one name, or with bitflags

// with bitflags the names of the bits of v, "unknown" if none fits.
func enumName(items []enumItem, v int, bitflags bool) string {
	var names []string
	unmatched := v
	for _, it := range items {
		if v == it.val {
			return it.name
		}
		if bitflags && it.val != 0 && it.val == unmatched&it.val {
			names = append(names, it.name)
			unmatched &^= it.val
		}
	}
	if names == nil || unmatched != 0 {
		return "unknown"
	}
	return strings.Join(names, " ")
}

// enumError is the reason Redis gives for a name not in items (cut to its

// ParamOr returns the CONFIG GET text of a parameter without typed field,
// name being its primary name: c.Params[name], or def when it is absent
// (the parameter has its default value).
func (c *Config) ParamOr(name, def string) string {
	if v, ok := c.Params[name]; ok {
		return v
	}
	return def
}

// trimDouble is Redis's trimDoubleString: drop the trailing zeros of a
// fraction, then a trailing '.'.
func trimDouble(s string) string {
	if strings.IndexByte(s, '.') < 0 {
		return s
	}
	s = strings.TrimRight(s, "0")
	return strings.TrimSuffix(s, ".")
}
