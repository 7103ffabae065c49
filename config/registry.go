package config

import (
	"errors"
	"log/slog"
	"strings"

	"github.com/miniwatchd/miniwatchd/glob"
	"github.com/miniwatchd/miniwatchd/protocol"
)

// The registry: the table indexed by name, CONFIG GET and CONFIG SET.

// paramEntry is a name CONFIG GET/SET knows: a primary name or an alias.
// Like Redis, the alias is an entry of its own (CONFIG SET of both names in
// one command is not a duplicate; a glob lists both).
type paramEntry struct {
	name  string // lower case, as registered
	nameb []byte // name, for glob matching
	alias bool
	def   *paramDef
}

// paramIndex is the table indexed once: entries in table order (each
// primary followed by its alias) and by lower-case name.
var paramIndex = buildParamIndex()

type paramIndexT struct {
	entries []*paramEntry
	byName  map[string]*paramEntry
	defs    map[string]*paramDef // by primary name
}

func buildParamIndex() *paramIndexT {
	ix := &paramIndexT{byName: make(map[string]*paramEntry), defs: make(map[string]*paramDef)}
	for i := range paramTable {
		d := &paramTable[i]
		ix.defs[d.name] = d
		for _, n := range []string{d.name, d.alias} {
			if n == "" {
				continue
			}
			e := &paramEntry{name: n, nameb: []byte(n), alias: n == d.alias, def: d}
			ix.entries = append(ix.entries, e)
			ix.byName[n] = e
		}
	}
	return ix
}

// lookupParam finds a parameter by name, ignoring ASCII case.
func lookupParam(name []byte) *paramEntry {
	return paramIndex.byName[asciiLower(string(name))]
}

// ApplyFunc reacts to a changed parameter. It runs with the engine lock
// held, after every value of a CONFIG SET has been stored; a non-nil error
// rolls the whole command back and its text becomes the reason of the
// reply ("Unable to listen on this port. Check server logs.").
type ApplyFunc func() error

// Registry serves CONFIG GET and CONFIG SET over one Config, with the apply
// steps its owner (the server) registers. Its methods expect the engine
// lock held.
type Registry struct {
	cfg   *Config
	log   *slog.Logger // warns when a rollback's apply step fails; may be nil
	hooks []ApplyFunc
	byDef map[*paramDef][]int // hooks of each parameter, by index in hooks
}

// NewRegistry returns the registry of *cfg, which it reads and writes in
// place (CONFIG SET's rollback assigns *cfg). It gives *cfg its own copy
// of the slices and map it shares with other Configs, and registers the
// apply steps that are part of a parameter's meaning (hz is clamped to
// 1..500; TLS for replication and the cluster cannot be turned on).
func NewRegistry(cfg *Config, log *slog.Logger) *Registry {
	*cfg = cfg.Clone()
	r := &Registry{cfg: cfg, log: log, byDef: make(map[*paramDef][]int)}
	r.OnApply(func() error {
		cfg.Hz = clampHz(cfg.Hz)
		return nil
	}, "hz")
	r.OnApply(func() error { return applyTLS(cfg) }, tlsApplyParams...)
	return r
}

// clampHz keeps hz within Redis's CONFIG_MIN_HZ..CONFIG_MAX_HZ.
func clampHz(hz int) int {
	return min(max(hz, 1), 500)
}

// applyTLS fails as Redis does when TLS cannot be configured: miniwatchd
// has no replication and no cluster bus to run TLS on.
func applyTLS(c *Config) error {
	if c.Params["tls-replication"] == "yes" || c.Params["tls-cluster"] == "yes" {
		return errors.New("Unable to update TLS configuration. Check server logs.")
	}
	return nil
}

// OnApply registers fn to run after a CONFIG SET changed any of the named
// parameters (primary names). fn runs once per command however many of
// them changed, in the order the parameters were given.
func (r *Registry) OnApply(fn ApplyFunc, names ...string) {
	id := len(r.hooks)
	r.hooks = append(r.hooks, fn)
	for _, n := range names {
		if d := paramIndex.defs[n]; d != nil {
			r.byDef[d] = append(r.byDef[d], id)
		}
	}
}

// Get runs CONFIG GET with Redis 7.0's rules: a pattern without glob
// characters ([, *, ?) is looked up as a name (aliases and hidden
// parameters included) and reported as spelled; other patterns match every
// name but hidden ones, ignoring case. Each name is reported once. emit is
// called in the order found.
func (r *Registry) Get(patterns [][]byte, emit func(name, value string)) {
	type match struct {
		key string
		def *paramDef
	}
	var found []match
	seen := make(map[string]bool)
	for _, p := range patterns {
		if !strings.ContainsAny(string(p), "[*?") {
			key := asciiLower(string(p))
			if seen[key] {
				continue
			}
			if e := paramIndex.byName[key]; e != nil {
				seen[key] = true
				found = append(found, match{string(p), e.def})
			}
			continue
		}
		for _, e := range paramIndex.entries {
			if e.def.flags&paramHidden != 0 || seen[e.name] {
				continue
			}
			if glob.MatchFold(p, e.nameb) {
				seen[e.name] = true
				found = append(found, match{e.name, e.def})
			}
		}
	}
	for _, m := range found {
		emit(m.key, m.def.value(r.cfg))
	}
}

// Value returns the CONFIG GET text of the parameter called name.
func (r *Registry) Value(name string) (string, bool) {
	e := paramIndex.byName[asciiLower(name)]
	if e == nil {
		return "", false
	}
	return e.def.value(r.cfg), true
}

// Sensitive reports whether the value of parameter name must be redacted
// from SLOWLOG and MONITOR.
func (r *Registry) Sensitive(name []byte) bool {
	e := lookupParam(name)
	return e != nil && e.def.flags&paramSensitive != 0
}

// Set runs CONFIG SET name value [name value ...] (args are the words
// after SET) with Redis 7.0's rules and error texts. local
// tells whether the client is connected over loopback or a unix socket,
// which enable-protected-configs "local" allows to set dir and dbfilename.
// All values are checked and stored before the apply steps run; if any
// value or apply step fails, every parameter gets its previous value back
// (and the apply steps run again) and the error names the parameter.
func (r *Registry) Set(args [][]byte, local bool) error {
	if len(args) < 2 {
		return protocol.ErrWrongArity("config|set") // arity -4, checked first
	}
	if len(args)%2 != 0 {
		return protocol.ErrSyntax
	}
	n := len(args) / 2
	entries := make([]*paramEntry, n)
	var unknown, errArg, reason string
	invalid := false
	for i := 0; i < n; i++ {
		name := args[2*i]
		e := lookupParam(name)
		if e == nil {
			if !invalid {
				unknown, invalid = cstr(string(name)), true
			}
			continue
		}
		if invalid {
			continue
		}
		f := e.def.flags
		if f&paramImmutable != 0 || f&paramProtected != 0 && !r.protectedAllowed(local) {
			reason = "can't set protected config"
			if f&paramImmutable != 0 {
				reason = "can't set immutable config"
			}
			errArg, invalid = string(name), true
			continue
		}
		for j := 0; j < i; j++ {
			if entries[j] == e {
				reason, errArg, invalid = "duplicate parameter", string(name), true
				break
			}
		}
		entries[i] = e
	}
	if unknown != "" {
		return protocol.Error("ERR Unknown option or number of arguments for CONFIG SET - '" + unknown + "'")
	}
	if invalid {
		return setFailed(errArg, reason)
	}

	old := r.cfg.Clone()
	ctx := &setContext{}
	var pending []int             // hooks to run, in order of first change
	owner := make(map[int]string) // hook -> name of the parameter that queued it
	for i, e := range entries {
		value := string(args[2*i+1])
		words := []string{value}
		if e.def.flags&paramMultiArg != 0 {
			words = splitValue(value)
		}
		changed, reason := e.def.setValue(r.cfg, words, ctx)
		if reason != "" {
			*r.cfg = old
			return setFailed(e.name, reason)
		}
		if !changed {
			continue
		}
		for _, h := range r.byDef[e.def] {
			if _, ok := owner[h]; !ok {
				owner[h] = e.name
				pending = append(pending, h)
			}
		}
	}
	for _, h := range pending {
		if err := r.hooks[h](); err != nil {
			if r.log != nil {
				r.log.Warn("Failed applying new configuration. Possibly related to new " + owner[h] +
					" setting. Restoring previous settings.")
			}
			*r.cfg = old
			for _, h2 := range pending {
				if err2 := r.hooks[h2](); err2 != nil && r.log != nil {
					r.log.Warn("Failed applying restored failed CONFIG SET command: " + err2.Error())
				}
			}
			return setFailed(owner[h], err.Error())
		}
	}
	return nil
}

// setFailed is Redis's "CONFIG SET failed" error for parameter name.
func setFailed(name, reason string) error {
	msg := "ERR CONFIG SET failed (possibly related to argument '" + cstr(name) + "')"
	if reason != "" {
		msg += " - " + reason
	}
	return protocol.Error(msg)
}

// protectedAllowed is Redis's allowProtectedAction for
// enable-protected-configs.
func (r *Registry) protectedAllowed(local bool) bool {
	switch r.cfg.ParamOr("enable-protected-configs", "no") {
	case "yes":
		return true
	case "local":
		return local
	}
	return false
}

// ParamInfo describes one parameter for documentation (README).
type ParamInfo struct {
	Name      string
	Alias     string // "" if none
	Default   string // CONFIG GET text in a fresh miniwatchd ("" for dir: the working directory)
	HasEffect bool   // false: accepted, checked and reported only
	Immutable bool   // CONFIG SET refuses it (config file and command line only)
	Hidden    bool   // not listed by CONFIG GET patterns
}

// Params lists every parameter in table order.
func Params() []ParamInfo {
	def := DefaultConfig()
	out := make([]ParamInfo, 0, len(paramTable))
	for i := range paramTable {
		d := &paramTable[i]
		info := ParamInfo{Name: d.name, Alias: d.alias, HasEffect: d.effect,
			Immutable: d.flags&paramImmutable != 0, Hidden: d.flags&paramHidden != 0}
		if d.name != "dir" {
			info.Default = d.value(&def)
		}
		out = append(out, info)
	}
	return out
}
