package config

import (
	"os"
	"strconv"
	"strings"
	"syscall"

	"github.com/miniwatchd/miniwatchd/protocol"
	"path/filepath"
)

// The TLS and special rows of the parameter table, and the parsers and
// printers of the special parameters (Redis's createSpecialConfig rows).

// tlsParams are the TLS configs (server/tls.go acts on those of the TLS
// port; the client-side, DH and session-cache-size ones are kept only).
var tlsParams = []paramDef{
	intParam("tls-port", "", 0, 0, 65535, 0).acted(),
	intParam("tls-session-cache-size", "", 0, 0, cIntMax, 20*1024),
	intParam("tls-session-cache-timeout", "", 0, 0, cIntMax, 300),
	boolParam("tls-cluster", "", 0, false),
	boolParam("tls-replication", "", 0, false),
	enumParam("tls-auth-clients", "", 0, "yes", "no", "yes", "optional").acted(),
	boolParam("tls-prefer-server-ciphers", "", 0, false),
	boolParam("tls-session-caching", "", 0, true).acted(),
	stringParam("tls-cert-file", "", 0, "").acted(),
	stringParam("tls-key-file", "", 0, "").acted(),
	stringParam("tls-key-file-pass", "", 0, "").acted(),
	stringParam("tls-client-cert-file", "", 0, ""),
	stringParam("tls-client-key-file", "", 0, ""),
	stringParam("tls-client-key-file-pass", "", 0, ""),
	stringParam("tls-dh-params-file", "", 0, ""),
	stringParam("tls-ca-cert-file", "", 0, "").acted(),
	stringParam("tls-ca-cert-dir", "", 0, "").acted(),
	stringParam("tls-protocols", "", 0, "").acted(),
	stringParam("tls-ciphers", "", 0, "").acted(),
	stringParam("tls-ciphersuites", "", 0, "").acted(),
}

// specialParams are the parameters with their own parser and printer.
var specialParams = []paramDef{
	specialDef("dir", "", fProt|fDenyL, &dirParam).typed(nil),
	specialDef("save", "", fMulti, &saveParam).acted(),
	specialDef("client-output-buffer-limit", "", fMulti, &outputBufferParam).typed(nil),
	specialDef("oom-score-adj-values", "", fMulti, &oomValuesParam),
	specialDef("notify-keyspace-events", "", 0, &notifyParam).typed(nil),
	specialDef("bind", "", fMulti, &bindParam).typed(nil),
	specialDef("replicaof", "slaveof", fImm|fMulti, &replicaofParam).acted(),
	specialDef("latency-tracking-info-percentiles", "", fMulti, &percentilesParam).acted(),
}

var dirParam = specialParam{
	set: func(c *Config, args []string, _ *setContext) string {
		if len(args) != 1 {
			return "wrong number of arguments"
		}
		dir, err := resolveDir(c, cstr(args[0]))
		if err != "" {
			return err
		}
		c.Dir = dir
		return ""
	},
	get: currentDir,
}

// currentDir is the CONFIG GET text of dir: c.Dir, or the process's working
// directory when c.Dir is empty ("" if that is unknown, as getcwd fails).
func currentDir(c *Config) string {
	if c.Dir != "" {
		return c.Dir
	}
	wd, err := os.Getwd()
	if err != nil {
		return ""
	}
	return wd
}

// resolveDir checks that p (relative to the current dir) is a directory
// chdir(2) would enter and returns its absolute, symlink-free path (what
// getcwd(3) returns there). Redis changes its working directory; miniwatchd
// only records it. The error is strerror's text.
func resolveDir(c *Config, p string) (string, string) {
	if p == "" {
		return "", protocol.Strerror(syscall.ENOENT)
	}
	if !filepath.IsAbs(p) {
		p = filepath.Join(currentDir(c), p)
	}
	fi, err := os.Stat(p)
	if err != nil {
		return "", protocol.Strerror(err)
	}
	if !fi.IsDir() {
		return "", protocol.Strerror(syscall.ENOTDIR)
	}
	if err := syscall.Access(p, 1 /* X_OK */); err != nil {
		return "", protocol.Strerror(err)
	}
	if real, err := filepath.EvalSymlinks(p); err == nil {
		p = real
	}
	return filepath.Clean(p), ""
}

var saveParam = specialParam{
	set: func(c *Config, args []string, ctx *setContext) string {
		if len(args) == 1 && cstr(args[0]) == "" {
			// save "": no save points, even after other save lines.
			c.Save = nil
			args = nil
		}
		const invalid = "Invalid save parameters"
		if len(args)%2 != 0 {
			return invalid
		}
		for j, a := range args {
			v, end, _ := protocol.Strtoll([]byte(a), 10)
			if len(end) != 0 || (j%2 == 0 && v < 1) || (j%2 == 1 && v < 0) {
				return invalid
			}
		}
		// CONFIG SET replaces the save points; in a config file the first
		// "save" line replaces the defaults and later ones add to it.
		if !ctx.file || !ctx.saveLoaded {
			ctx.saveLoaded = ctx.file
			c.Save = nil
		}
		for j := 0; j < len(args); j += 2 {
			secs, _, _ := protocol.Strtoll([]byte(args[j]), 10)
			changes, _, _ := protocol.Strtoll([]byte(args[j+1]), 10)
			c.Save = append(c.Save, SaveParam{Seconds: secs, Changes: int(int32(changes))})
		}
		return ""
	},
	get: func(c *Config) string {
		var b []byte
		for i, p := range c.Save {
			if i > 0 {
				b = append(b, ' ')
			}
			b = strconv.AppendInt(b, p.Seconds, 10)
			b = append(b, ' ')
			b = strconv.AppendInt(b, int64(p.Changes), 10)
		}
		return string(b)
	},
}

// outputBufferClass is Redis's getClientTypeByName for the classes
// client-output-buffer-limit accepts; -1 for others (master included).
func outputBufferClass(name string) int {
	switch name = cstr(name); {
	case strings.EqualFold(name, "normal"):
		return OutputBufferNormal
	case strings.EqualFold(name, "slave"), strings.EqualFold(name, "replica"):
		return OutputBufferReplica
	case strings.EqualFold(name, "pubsub"):
		return OutputBufferPubSub
	}
	return -1
}

var outputBufferParam = specialParam{
	set: func(c *Config, args []string, _ *setContext) string {
		if len(args)%4 != 0 {
			return "Wrong number of arguments in buffer limit configuration."
		}
		limits := c.ClientOutputBufferLimit
		for j := 0; j < len(args); j += 4 {
			class := outputBufferClass(args[j])
			if class < 0 {
				return "Invalid client class specified in buffer limit configuration."
			}
			hard, hardOK := protocol.ParseMemory([]byte(args[j+1]))
			soft, softOK := protocol.ParseMemory([]byte(args[j+2]))
			secs, end, _ := protocol.Strtoll([]byte(args[j+3]), 10)
			secs32 := int32(secs) // soft_seconds is an int in Redis
			if !hardOK || !softOK || secs32 < 0 || len(end) != 0 {
				return "Error in hard, soft or soft_seconds setting in buffer limit configuration."
			}
			limits[class] = OutputBufferLimit{Hard: hard, Soft: soft, SoftSeconds: int64(secs32)}
		}
		c.ClientOutputBufferLimit = limits
		return ""
	},
	get: func(c *Config) string {
		var b []byte
		for i, name := range []string{"normal", "slave", "pubsub"} {
			l := c.ClientOutputBufferLimit[i]
			if i > 0 {
				b = append(b, ' ')
			}
			b = append(b, name...)
			b = append(b, ' ')
			b = strconv.AppendUint(b, l.Hard, 10)
			b = append(b, ' ')
			b = strconv.AppendUint(b, l.Soft, 10)
			b = append(b, ' ')
			b = strconv.AppendInt(b, l.SoftSeconds, 10)
		}
		return string(b)
	},
}

const oomValuesDefault = "0 200 800"

var oomValuesParam = specialParam{
	set: func(c *Config, args []string, _ *setContext) string {
		if len(args) != 3 {
			return "wrong number of arguments"
		}
		vals := make([]string, 3)
		for i, a := range args {
			v, end, _ := protocol.Strtoll([]byte(a), 10)
			if len(end) != 0 || v < -2000 || v > 2000 {
				return "Invalid oom-score-adj-values, elements must be between -2000 and 2000."
			}
			vals[i] = strconv.FormatInt(v, 10)
		}
		setParam(c, "oom-score-adj-values", strings.Join(vals, " "), oomValuesDefault)
		return ""
	},
	get: func(c *Config) string { return c.ParamOr("oom-score-adj-values", oomValuesDefault) },
}

var notifyParam = specialParam{
	set: func(c *Config, args []string, _ *setContext) string {
		if len(args) != 1 {
			return "wrong number of arguments"
		}
		f, ok := ParseNotifyFlags(args[0])
		if !ok {
			return "Invalid event class character. Use 'Ag$lshzxeKEtmdn'."
		}
		c.NotifyKeyspaceEvents = f
		return ""
	},
	get: func(c *Config) string { return c.NotifyKeyspaceEvents.String() },
}

var bindParam = specialParam{
	set: func(c *Config, args []string, _ *setContext) string {
		if len(args) > 16 {
			return "Too many bind addresses specified."
		}
		if len(args) == 1 && args[0] == "" {
			args = nil
		}
		addrs := make([]string, len(args))
		for i, a := range args {
			addrs[i] = cstr(a)
		}
		c.Bind = addrs
		return ""
	},
	get: func(c *Config) string { return strings.Join(c.Bind, " ") },
}

var replicaofParam = specialParam{
	set: func(c *Config, args []string, _ *setContext) string {
		if len(args) != 2 {
			return "wrong number of arguments"
		}
		host, port := cstr(args[0]), cstr(args[1])
		setParam(c, "replicaof", "", "")
		if strings.EqualFold(host, "no") && strings.EqualFold(port, "one") {
			return ""
		}
		p, end, overflow := protocol.Strtoll([]byte(port), 10)
		if overflow || p < 0 || p > 65535 || len(end) != 0 {
			return "Invalid master port"
		}
		setParam(c, "replicaof", host+" "+strconv.FormatInt(p, 10), "")
		return ""
	},
	get: func(c *Config) string { return c.Params["replicaof"] },
}

const percentilesDefault = "50 99 99.9"

var percentilesParam = specialParam{
	set: func(c *Config, args []string, _ *setContext) string {
		if len(args) == 1 && args[0] == "" {
			args = nil
		}
		vals := make([]string, len(args))
		for i, a := range args {
			f, ok := protocol.ParseFloat([]byte(a))
			if !ok {
				return "Invalid latency-tracking-info-percentiles parameters"
			}
			if f > 100 || f < 0 {
				return "latency-tracking-info-percentiles parameters should sit between [0.0,100.0]"
			}
			vals[i] = trimDouble(strconv.FormatFloat(f, 'f', 6, 64))
		}
		setParam(c, "latency-tracking-info-percentiles", strings.Join(vals, " "), percentilesDefault)
		return ""
	},
	get: func(c *Config) string {
		return c.ParamOr("latency-tracking-info-percentiles", percentilesDefault)
	},
}
