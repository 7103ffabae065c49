package config

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// cfgFileCase is config text and either the values CONFIG GET must then
// report (name, value pairs) or the error it must give.
type cfgFileCase struct {
	text string
	get  []string
	err  *Error
}

// configFileCases are checked against ParseConfig here and, for the
// errors, against redis-server 7.0.15 in TestConfigFileMatchesRedis.
var configFileCases = []cfgFileCase{
	{text: "maxmemory 10mb\n# comment\n\n   port 7000  \r\n\t# indented comment\n",
		get: []string{"maxmemory", "10485760", "port", "7000"}},
	{text: "MAXMEMORY-POLICY allkeys-lru\nlua-time-limit 100\nslaveof 127.0.0.1 1\n",
		get: []string{"maxmemory-policy", "allkeys-lru", "busy-reply-threshold", "100", "replicaof", "127.0.0.1 1"}},
	{text: "save 900 1\nsave 300 10\n", get: []string{"save", "900 1 300 10"}},
	{text: "save \"\"\n", get: []string{"save", ""}},
	{text: "save 900 1\nsave \"\"\nsave 60 5\n", get: []string{"save", "60 5"}},
	{text: "save\n", get: []string{"save", ""}},
	{text: "save \"100 2\"\n", get: []string{"save", "100 2"}},
	{text: "save \" 100  2 \"\n", get: []string{"save", "100 2"}},
	{text: "save \"\\\"a\"\n", get: []string{"save", ""}},
	{text: "client-output-buffer-limit \"pubsub 1 2 3\"\noom-score-adj-values '1 2 3'\n",
		get: []string{"client-output-buffer-limit", "normal 0 0 0 slave 268435456 67108864 60 pubsub 1 2 3", "oom-score-adj-values", "1 2 3"}},
	{text: "bind 127.0.0.1 ::1\nclient-output-buffer-limit normal 1 2 3 pubsub 4 5 6\n",
		get: []string{"bind", "127.0.0.1 ::1", "client-output-buffer-limit", "normal 1 2 3 slave 268435456 67108864 60 pubsub 4 5 6"}},
	{text: "shutdown-on-sigterm now force\nnotify-keyspace-events \"KEA\"\nrequirepass 'a b'\n",
		get: []string{"shutdown-on-sigterm", "now force", "notify-keyspace-events", "AKE", "requirepass", "a b"}},
	{text: "unixsocketperm 700\nreplicaof no one\nhz 1000\n",
		get: []string{"unixsocketperm", "700", "replicaof", "", "hz", "500"}},
	{text: "daemonize yes\n", get: []string{"daemonize", "yes"}},
	{text: "list-max-ziplist-entries 5\nlua-replicate-commands yes\nsentinel\n", get: []string{"maxmemory", "0"}},
	{text: "", get: []string{"port", "6379"}},

	{text: "port 1 2\n", err: &Error{1, "port 1 2", "wrong number of arguments"}},
	{text: "\n\nfoo bar\n", err: &Error{3, "foo bar", "Bad directive or wrong number of arguments"}},
	{text: "save 1\n", err: &Error{1, "save 1", "Invalid save parameters"}},
	{text: "maxmemory \"10mb\n", err: &Error{1, "maxmemory \"10mb", "Unbalanced quotes in configuration line"}},
	{text: "maxmemory \"10mb\"x\n", err: &Error{1, "maxmemory \"10mb\"x", "Unbalanced quotes in configuration line"}},
	{text: "appendonly maybe\n", err: &Error{1, "appendonly maybe", "argument must be 'yes' or 'no'"}},
	{text: "notify-keyspace-events Q\n", err: &Error{1, "notify-keyspace-events Q", "Invalid event class character. Use 'Ag$lshzxeKEtmdn'."}},
	{text: "notify-keyspace-events\n", err: &Error{1, "notify-keyspace-events", "wrong number of arguments"}},
	{text: "replicaof 127.0.0.1 port\n", err: &Error{1, "replicaof 127.0.0.1 port", "Invalid master port"}},
	{text: "replicaof 127.0.0.1\n", err: &Error{1, "replicaof 127.0.0.1", "wrong number of arguments"}},
	{text: "unixsocketperm 800\n", err: &Error{1, "unixsocketperm 800", "argument couldn't be parsed as an octal number"}},
	{text: "unixsocketperm 1000\n", err: &Error{1, "unixsocketperm 1000", "argument must be between 0 and 777 inclusive"}},
	{text: "dir /nonexistent-dir\n", err: &Error{1, "dir /nonexistent-dir", "No such file or directory"}},
	{text: "oom-score-adj-values 1 2\n", err: &Error{1, "oom-score-adj-values 1 2", "wrong number of arguments"}},
	{text: "shutdown-on-sigint\n", err: &Error{1, "shutdown-on-sigint", "argument(s) must be one of the following: default, save, nosave, now, force"}},
	{text: "bind 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17\n", err: &Error{1, "bind 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17", "Too many bind addresses specified."}},
	{text: "list-max-ziplist-entries\n", err: &Error{1, "list-max-ziplist-entries", "Bad directive or wrong number of arguments"}},
	{text: "include\n", err: &Error{1, "include", "Bad directive or wrong number of arguments"}},
	{text: "sentinel monitor x\n", err: &Error{1, "sentinel monitor x", "sentinel directive while not in sentinel mode"}},
	{text: "mymodule.opt\n", err: &Error{1, "mymodule.opt", "Module config specified without value"}},
	{text: "logfile /nonexistent-dir/x.log\n", err: &Error{0, "", "Can't open the log file: No such file or directory"}},
	{text: "cluster-enabled yes\nreplicaof 127.0.0.1 6379\n", err: &Error{0, "", "replicaof directive not allowed in cluster mode"}},
	{text: "maxmemory 1mb\x00\nfoo\n", get: []string{"maxmemory", "1048576"}},
	// miniwatchd-only refusals (Redis accepts these).
	{text: "rename-command FLUSHALL \"\"\n", err: &Error{1, "rename-command FLUSHALL \"\"", "rename-command is not supported by miniwatchd"}},
	// user directives: a name given twice is refused here; the rules are
	// checked by the server's CheckUser (test/acl_file_test.go).
	{text: "user alice on\nuser bob\n", get: []string{"port", "6379"}},
	{text: "user alice on\nuser alice off\n", err: &Error{2, "user alice off", "Error in user declaration 'alice': Duplicate user found. A user can only be defined once in config files"}},
}

// redisUnsafe marks the file cases not to run with redis-server: the ones
// Redis accepts but miniwatchd refuses, and daemonize (the test could not
// stop the daemon).
func redisUnsafe(tc cfgFileCase) bool {
	return strings.HasPrefix(tc.text, "rename-command") ||
		strings.Contains(tc.text, "daemonize")
}

func TestParseConfig(t *testing.T) {
	for _, tc := range configFileCases {
		cfg, err := ParseConfig(tc.text, DefaultConfig())
		if tc.err != nil {
			var ce *Error
			if !errors.As(err, &ce) || *ce != *tc.err {
				t.Errorf("ParseConfig(%q) error = %#v, want %#v", tc.text, err, tc.err)
			}
			continue
		}
		if err != nil {
			t.Errorf("ParseConfig(%q): %v", tc.text, err)
			continue
		}
		r := newTestParams(cfg)
		for i := 0; i < len(tc.get); i += 2 {
			if got := cfgGet(r, tc.get[i]); got != tc.get[i+1] {
				t.Errorf("ParseConfig(%q): %s = %q, want %q", tc.text, tc.get[i], got, tc.get[i+1])
			}
		}
	}
}

func TestParseConfigKeepsBase(t *testing.T) {
	base := DefaultConfig()
	base.Params = map[string]string{"protected-mode": "no"}
	cfg, err := ParseConfig("protected-mode yes\nbind 10.0.0.1\ntcp-keepalive 5\n", base)
	if err != nil {
		t.Fatal(err)
	}
	if base.Params["protected-mode"] != "no" || base.Bind[0] != "127.0.0.1" {
		t.Errorf("base changed: %v %v", base.Params, base.Bind)
	}
	if _, ok := cfg.Params["protected-mode"]; ok || cfg.Params["tcp-keepalive"] != "5" {
		t.Errorf("result Params %v", cfg.Params)
	}
	if _, err := ParseConfig("port x\n", base); err == nil {
		t.Error("error not reported")
	}
}

func TestParseConfigInclude(t *testing.T) {
	dir := t.TempDir()
	write := func(name, text string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	write("a.conf", "maxmemory 1mb\ninclude "+filepath.Join(dir, "b.conf")+"\n")
	write("b.conf", "port 7001\n")
	os.Mkdir(filepath.Join(dir, "conf.d"), 0o755)
	write("conf.d/1.conf", "save 10 1\n")
	write("conf.d/2.conf", "save 20 2\n")
	write("bad.conf", "\n\nport 99999\n")

	cfg, err := ParseConfig("include "+filepath.Join(dir, "a.conf")+"\nhz 20\n", DefaultConfig())
	if err != nil {
		t.Fatal(err)
	}
	if cfg.MaxMemory != 1<<20 || cfg.Port != 7001 || cfg.Hz != 20 {
		t.Errorf("include: maxmemory %d port %d hz %d", cfg.MaxMemory, cfg.Port, cfg.Hz)
	}
	// Globs: every match in name order, none is fine; relative to dir.
	cfg, err = ParseConfig("dir "+dir+"\ninclude conf.d/*.conf\ninclude none/*.conf\n", DefaultConfig())
	if err != nil {
		t.Fatal(err)
	}
	if got := newTestParams(cfg); cfgGet(got, "save") != "10 1 20 2" {
		t.Errorf("glob include: save %q", cfgGet(got, "save"))
	}
	// An error in an included file names its line there.
	_, err = ParseConfig("port 1\ninclude "+filepath.Join(dir, "bad.conf")+"\n", DefaultConfig())
	want := &Error{3, "port 99999", "argument must be between 0 and 65535 inclusive"}
	var ce *Error
	if !errors.As(err, &ce) || *ce != *want {
		t.Errorf("error in include: %v", err)
	}
	// A missing file is a FileError.
	_, err = ParseConfig("include "+filepath.Join(dir, "missing.conf")+"\n", DefaultConfig())
	var fe *FileError
	if !errors.As(err, &fe) || fe.Error() != "Fatal error, can't open config file '"+filepath.Join(dir, "missing.conf")+"': No such file or directory" {
		t.Errorf("missing include: %v", err)
	}
	// Self-inclusion stops.
	self := write("self.conf", "include "+filepath.Join(dir, "self.conf")+"\n")
	if _, err := ParseConfig("include "+self+"\n", DefaultConfig()); err == nil {
		t.Error("self include accepted")
	}
}

func TestConfigErrorReport(t *testing.T) {
	e := &Error{3, "foo bar", "Bad directive or wrong number of arguments"}
	want := "\n*** FATAL CONFIG FILE ERROR (Redis 7.0.15) ***\nReading the configuration file, at line 3\n>>> 'foo bar'\nBad directive or wrong number of arguments\n"
	if e.Report() != want {
		t.Errorf("Report() = %q", e.Report())
	}
	e = &Error{Reason: "replicaof directive not allowed in cluster mode"}
	if e.Report() != "\n*** FATAL CONFIG FILE ERROR (Redis 7.0.15) ***\nreplicaof directive not allowed in cluster mode\n" {
		t.Errorf("Report() = %q", e.Report())
	}
}

func TestConfigCommandLine(t *testing.T) {
	wd, _ := os.Getwd()
	cases := []struct {
		args []string
		want CommandLine
	}{
		{nil, CommandLine{NoArgs: true}},
		{[]string{"-v"}, CommandLine{Version: true}},
		{[]string{"--version", "x"}, CommandLine{Version: true}},
		{[]string{"-h"}, CommandLine{Help: true}},
		{[]string{"--help"}, CommandLine{Help: true}},
		{[]string{"--test-memory", "10"}, CommandLine{Unsupported: "--test-memory"}},
		{[]string{"--port", "7000", "--sentinel"}, CommandLine{Unsupported: "--sentinel"}},
		{[]string{"--port", "7000"}, CommandLine{Options: `port "7000" `}},
		{[]string{"--port", "7000", "--bind", "a", "b"}, CommandLine{Options: "port \"7000\" \nbind \"a\" \"b\" "}},
		{[]string{"--port 7000", "--hz", "5"}, CommandLine{Options: "port 7000 \nhz \"5\" "}},
		{[]string{"--save", "--port", "1"}, CommandLine{Options: "save \"\"\nport \"1\" "}},
		{[]string{"--port", "1", "--save"}, CommandLine{Options: "port \"1\" \nsave \"\""}},
		{[]string{"--SAVE"}, CommandLine{Options: "SAVE \"\""}},
		{[]string{"--port", "--hz"}, CommandLine{Options: "port \"--hz\" "}},
		{[]string{"--requirepass", "a \"b\"\n\x01"}, CommandLine{Options: `requirepass "a \"b\"\n\x01" `}},
		{[]string{"redis.conf", "--port", "1", "-"}, CommandLine{ConfigFile: filepath.Join(wd, "redis.conf"), Stdin: true, Options: `port "1" `}},
		{[]string{"-", "--port", "1"}, CommandLine{Stdin: true, Options: `port "1" `}},
		{[]string{"--port", "-", "1"}, CommandLine{Options: `port "-" "1" `}},
		{[]string{"--port", "1", "extra"}, CommandLine{Options: `port "1" "extra" `}},
		{[]string{"x.conf", "word"}, CommandLine{ConfigFile: filepath.Join(wd, "x.conf"), Options: `"word" `}},
	}
	for _, tc := range cases {
		if got := ParseCommandLine(tc.args); got != tc.want {
			t.Errorf("ParseCommandLine(%q) = %+v, want %+v", tc.args, got, tc.want)
		}
	}
}

func TestLoadConfig(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "m.conf")
	if err := os.WriteFile(file, []byte("port 7000\nmaxmemory 1mb\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	cl := ParseCommandLine([]string{file, "--maxmemory", "2mb", "-"})
	cfg, err := LoadConfig(cl, strings.NewReader("hz 20\nmaxmemory 3mb"))
	if err != nil {
		t.Fatal(err)
	}
	if cfg.Port != 7000 || cfg.Hz != 20 || cfg.MaxMemory != 2<<20 {
		t.Errorf("port %d hz %d maxmemory %d", cfg.Port, cfg.Hz, cfg.MaxMemory)
	}
	// Options come after a blank line: their first line is line 2.
	_, err = LoadConfig(ParseCommandLine([]string{"--port", "x"}), nil)
	want := &Error{2, `port "x"`, "argument couldn't be parsed into an integer"}
	var ce *Error
	if !errors.As(err, &ce) || *ce != *want {
		t.Errorf("option error: %v", err)
	}
	_, err = LoadConfig(ParseCommandLine([]string{filepath.Join(dir, "none.conf")}), nil)
	var fe *FileError
	if !errors.As(err, &fe) {
		t.Errorf("missing file: %v", err)
	}
}

func TestConfigQuoteRepr(t *testing.T) {
	cases := []struct{ in, want string }{
		{"", `""`}, {"abc", `"abc"`}, {"a b", `"a b"`}, {`"\`, `"\"\\"`},
		{"\n\r\t\a\b", `"\n\r\t\a\b"`}, {"\x00\x7f\xff", `"\x00\x7f\xff"`}, {"é", `"\xc3\xa9"`},
	}
	for _, tc := range cases {
		if got := quoteRepr(tc.in); got != tc.want {
			t.Errorf("quoteRepr(%q) = %s, want %s", tc.in, got, tc.want)
		}
	}
}

// runRedisServer runs redis-server with args in dir and returns its
// standard error and output; it must exit by itself (a config error).
func runRedisServer(t *testing.T, bin, dir string, args ...string) (stderr, stdout string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, args...)
	cmd.Dir = dir
	var se, so strings.Builder
	cmd.Stderr, cmd.Stdout = &se, &so
	err := cmd.Run()
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() != 1 {
		t.Errorf("redis-server %q: exit %v, want status 1", args, err)
	}
	return se.String(), so.String()
}

// TestConfigFileMatchesRedis runs redis-server 7.0.15 with each file of
// configFileCases (plus --port): where we report an error it must print
// the same report and exit 1, otherwise it must start with the same CONFIG
// GET values as ours. Then a few command lines and a missing file.
func TestConfigFileMatchesRedis(t *testing.T) {
	bin := redisServerPath(t)
	dir := t.TempDir()
	for i, tc := range configFileCases {
		if redisUnsafe(tc) {
			continue
		}
		file := filepath.Join(dir, "c"+strconv.Itoa(i)+".conf")
		if err := os.WriteFile(file, []byte(tc.text), 0o644); err != nil {
			t.Fatal(err)
		}
		port := cfgFreePort(t)
		args := []string{file, "--port", strconv.Itoa(port)}
		cfg, err := LoadConfig(ParseCommandLine(args), nil)
		if err != nil {
			var ce *Error
			if !errors.As(err, &ce) {
				t.Fatalf("config %q: %v", tc.text, err)
			}
			if got, _ := runRedisServer(t, bin, dir, args...); got != ce.Report() {
				t.Errorf("config %q: Redis printed %q, we print %q", tc.text, got, ce.Report())
			}
			continue
		}
		rc := startRedisWith(t, port, args...)
		if cfg.RequirePass != "" {
			rc.do(t, "AUTH", cfg.RequirePass)
		}
		ours := map[string]string{}
		newTestParams(cfg).Get(cfgArgs("*"), func(n, v string) { ours[n] = v })
		for n, v := range redisConfigGet(t, rc, "*") {
			if n == "dir" || n == "enable-debug-command" || n == "bind" && !strings.Contains(tc.text, "bind") {
				continue
			}
			if ours[n] != v {
				t.Errorf("config %q: %s ours %q, Redis %q", tc.text, n, ours[n], v)
			}
		}
		rc.c.Close()
	}
	port := strconv.Itoa(cfgFreePort(t))
	lines := [][]string{
		{"--port", port, "--maxmemory", "1mb", "2mb"},
		{"--port", port, "--save", "--appendonly", "maybe"},
		{"--port", port, "--port"},
		{"--port", port, "--hz", "--x"},
		{"--port", port, "--loglevel", "a\x01\"b"},
		{"--port", port, "--foo bar", "baz"},
		{"--port", port, "--notify-keyspace-events", "Q", "-"},
	}
	for _, args := range lines {
		got, _ := runRedisServer(t, bin, dir, args...)
		_, err := LoadConfig(ParseCommandLine(args), strings.NewReader(""))
		var ce *Error
		if !errors.As(err, &ce) {
			t.Errorf("command line %q: no config error (%v)", args, err)
			continue
		}
		if want := ce.Report(); got != want {
			t.Errorf("command line %q: Redis printed %q, we print %q", args, got, want)
		}
	}
	// A config file that cannot be read is logged, then Redis exits 1.
	missing := filepath.Join(dir, "missing.conf")
	_, out := runRedisServer(t, bin, dir, missing)
	_, err := LoadConfig(ParseCommandLine([]string{missing}), nil)
	if err == nil || !strings.HasSuffix(out, " # "+err.Error()+"\n") {
		t.Errorf("missing file: Redis logged %q, we report %v", out, err)
	}
}
