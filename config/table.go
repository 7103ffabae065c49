package config

import (
	"slices"
	"strconv"
)

// This file is the shape of Redis 7.0.15's parameter table (src/config.c
// static_configs plus what 7.0.15 added: propagation-error-behavior,
// replica-ignore-disk-write-errors, shutdown-on-sigint/sigterm,
// socket-mark-id, lua-enable-deprecated-api): the row type, its flags and
// the constructors the rows in params_*.go are written with.

// paramFlags are Redis's *_CONFIG flags.
type paramFlags uint16

const (
	paramImmutable   paramFlags = 1 << iota // CONFIG SET refuses it
	paramSensitive                          // value redacted from SLOWLOG/MONITOR
	paramHidden                             // CONFIG GET patterns skip it
	paramProtected                          // settable only per enable-protected-configs
	paramDenyLoading                        // refused while loading (never here)
	paramDebug                              // listed in crash reports (no effect here)
	paramMultiArg                           // value is several words
)

// paramKind is the value type of a parameter.
type paramKind uint8

const (
	kindBool    paramKind = iota // yes / no
	kindString                   // createStringConfig / createSDSConfig
	kindEnum                     // one name of a list (or several, paramMultiArg)
	kindNumeric                  // integer, memory, percent or octal value
	kindSpecial                  // save, bind, dir, ...: own parser and printer
)

// numFlags are Redis's numeric config flags.
type numFlags uint8

const (
	numMemory  numFlags = 1 << iota // 1gb, 10mb, 4k ... (memtoull)
	numPercent                      // "50%" stored as -50
	numOctal                        // unixsocketperm
)

// enumItem is one name of an enum parameter and its value.
type enumItem struct {
	name string
	val  int
}

// Accessors binding a parameter to a typed Config field.
type (
	boolField   func(*Config) *bool
	intField    func(*Config) *int
	int64Field  func(*Config) *int64
	uint64Field func(*Config) *uint64
	stringField func(*Config) *string
)

// specialParam parses and prints a parameter of kindSpecial. set returns
// Redis's error text, "" on success.
type specialParam struct {
	set func(c *Config, args []string, ctx *setContext) string
	get func(c *Config) string
}

// setContext carries what a set needs to know about where it comes from.
type setContext struct {
	file       bool // reading a config file (no CONFIG SET)
	saveLoaded bool // a "save" line of this file already replaced the defaults
}

// paramDef is one row of the parameter table.
type paramDef struct {
	name, alias string
	kind        paramKind
	flags       paramFlags
	def         string // CONFIG GET text of the default (not kindSpecial)

	// kindNumeric: bounds as C long long; unsigned compares them as
	// unsigned long long (ULONG_LONG, UINT and SIZE_T configs).
	min, max int64
	unsigned bool
	num      numFlags

	enum      []enumItem         // kindEnum; paramMultiArg makes it a set of bit flags
	validEnum func(v int) string // optional check of an enum value

	binary bool                  // kindString: sds config, NUL bytes kept
	valid  func(v string) string // optional check of a bool/string value

	field   any // typed Config field accessor; nil = kept in Config.Params
	special *specialParam

	// effect is true when the server acts on the value (reads its typed
	// field). The others are accepted, checked and reported only, some
	// through a typed field for INFO (appendonly, save, ...).
	effect bool
}

// Integer limits of the C types used by the bounds.
const (
	cIntMin   = -1 << 31
	cIntMax   = 1<<31 - 1
	cUintMax  = 1<<32 - 1
	cLongMax  = 1<<63 - 1
	cULLMax   = -1 // ULLONG_MAX as a long long
	cSSizeMax = 1<<63 - 1
)

func boolParam(name, alias string, flags paramFlags, def bool) paramDef {
	d := paramDef{name: name, alias: alias, kind: kindBool, flags: flags, def: "no"}
	if def {
		d.def = "yes"
	}
	return d
}

func stringParam(name, alias string, flags paramFlags, def string) paramDef {
	return paramDef{name: name, alias: alias, kind: kindString, flags: flags, def: def}
}

func enumParam(name, alias string, flags paramFlags, def string, names ...string) paramDef {
	items := make([]enumItem, len(names))
	for i, n := range names {
		items[i] = enumItem{n, i}
	}
	return paramDef{name: name, alias: alias, kind: kindEnum, flags: flags, def: def, enum: items}
}

// intParam is a signed integer parameter (int, long, long long, time_t,
// off_t, ssize_t and, as Redis checks them, unsigned long).
func intParam(name, alias string, flags paramFlags, lo, hi, def int64) paramDef {
	return paramDef{name: name, alias: alias, kind: kindNumeric, flags: flags,
		min: lo, max: hi, def: strconv.FormatInt(def, 10)}
}

// uintParam is an unsigned integer parameter (unsigned int, size_t,
// unsigned long long).
func uintParam(name, alias string, flags paramFlags, lo, hi, def int64) paramDef {
	d := intParam(name, alias, flags, lo, hi, def)
	d.unsigned = true
	return d
}

func (d paramDef) memory() paramDef                      { d.num |= numMemory; return d }
func (d paramDef) percent() paramDef                     { d.num |= numPercent; return d }
func (d paramDef) octal() paramDef                       { d.num |= numOctal; return d }
func (d paramDef) sds() paramDef                         { d.binary = true; return d }
func (d paramDef) check(fn func(string) string) paramDef { d.valid = fn; return d }

// typed binds d to a Config field the server acts on.
func (d paramDef) typed(field any) paramDef { d.field = field; d.effect = true; return d }

// acted marks a parameter without a typed field that the server acts on
// all the same, reading its text through the registry (the README's
// parameter lists).
func (d paramDef) acted() paramDef { d.effect = true; return d }

// reported binds d to a Config field that is only reported (no effect).
func (d paramDef) reported(field any) paramDef { d.field = field; return d }

func specialDef(name, alias string, flags paramFlags, sp *specialParam) paramDef {
	return paramDef{name: name, alias: alias, kind: kindSpecial, flags: flags, special: sp}
}

const (
	fImm   = paramImmutable
	fSens  = paramSensitive
	fHide  = paramHidden
	fProt  = paramProtected
	fDenyL = paramDenyLoading
	fDebug = paramDebug
	fMulti = paramMultiArg
)

// paramTable is every Redis 7.0.15 parameter in static_configs order.

// paramTable is every Redis 7.0.15 parameter in static_configs order: the
// groups of params_basic.go, params_numeric.go and params_special.go.
var paramTable = slices.Concat(boolParams, stringParams, enumParams, numericParams, tlsParams, specialParams, ourParams)

// Primary names of the TLS parameters miniwatchd cannot turn on (TLS for
// replication and the cluster bus, which it has not); the server's own
// apply steps (server/tls.go) configure the TLS port.
var tlsApplyParams = []string{"tls-cluster", "tls-replication"}
