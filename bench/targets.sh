#!/usr/bin/env bash
# targets.sh - miniwatchd's performance targets, measured side by side with
# redis-server on this machine, one PASS/FAIL/SKIP line per target.
#
# usage: bench/targets.sh [--quick] [--rounds N] [--only GROUPS] [--out DIR]
#
#   --quick       3 rounds, half the requests, 2 s watchbench runs (about 3
#                 minutes instead of 6; each newly implemented command family
#                 adds about a minute to a full run)
#   --rounds N    rounds of every throughput and contention workload
#   --only GROUPS comma list of: P1, P16, EVALSHA, BITSORT, HLLGEO, WATCH,
#                 MEMORY, STREAM, RDB, CONTEND, EFFIC, CONNS, STARTUP,
#                 WSCALE
#                 (default all)
#   --out DIR     where the raw results go (default: a new /tmp/miniwatchd-targets.*)
#
# What it does: builds miniwatchd and watchbench from this checkout, starts
# miniwatchd and redis-server on free ports of 127.0.0.1, and runs every
# workload on both servers back to back, in the order mw,redis in odd rounds
# and redis,mw in even ones. A target's ratio is the median over rounds of
# the per-round ratio miniwatchd/redis, so both sides of a ratio ran within
# seconds of each other. Workloads miniwatchd does not implement yet
# (COMMAND INFO <cmd> is empty) print SKIP with the reason; they run as soon
# as the commands exist.
#
#   redis-benchmark -c 50 -r 100000, -P 1 and -P 16:
#     SET GET INCR LPUSH LPOP SADD HSET ZADD MSET(10)   >= 1.0x at -P 1, >= 0.8x at -P 16
#     EVALSHA of "return redis.call('INCR', KEYS[1])"    >= 0.8x
#     BITSORT: SETBIT and BITCOUNT (1 kB) -P 16 >= 1.0x, SORT of 1,000 numbers -P 1 >= 0.8x
#   HLLGEO (-P 1): PFADD of random elements, PFCOUNT of one key (10,000
#     elements, cached cardinality) >= 1.0x; GEOSEARCH BYRADIUS 100 km ASC
#     over 100,000 random positions >= 0.8x
#   watchbench -mode watch-hot (WATCH/GET/MULTI/SET/EXEC on one hot key)
#     commits/s at 1, 8, 32, 128 clients                >= 1.0x, counter check every run
#   memory: (RSS after 1,000,000 SETs of small strings - RSS empty) / keys
#                                                       <= 1.5x redis-server's
#   streams: XADD -P 1 >= 1.0x, XADD -P 16 >= 0.9x, XRANGE of 100 entries
#     >= 0.9x (redis-benchmark); XREADGROUP+XACK loop (streambench, 8
#     clients) >= 1.0x; (RSS after 1,000,000 XADDs of one small field - RSS
#     empty) / entries <= 1.5x redis-server's
#   RDB: MEM_KEYS small keys (the memory workload's SETs) written by
#     commands, then SAVE (seconds, as the client sees it) <= 1.5x and the
#     load at start (the server's "DB loaded from disk" seconds) <= 1.5x
#     redis-server's; miniwatchd's own RSS after that load / its RSS after
#     the same keys written by commands <= 1.2 (RSS row: redis's side is 1)
#   CONTEND: with one CPU-bound busy loop per CPU (nproc) running beside
#     both servers, the WATCH loop at 1, 8, 32, 128 clients and SET -P 1
#     (redis-benchmark -c 50)                           >= 1.0x
#   EFFIC: server CPU (user+sys, /proc/PID/stat) per request of SET and GET
#     -P 1 at 1 and at 50 clients (N_EFFIC requests), and per commit of the
#     WATCH loop at 1 client                            <= 1.0x redis-server's
#   CONNS: fresh servers (--maxclients CONNS_N+100, ulimit -n raised) hold
#     CONNS_N (10,000) idle clients (cmd/connbench -mode idle: one PING
#     each, then idle; RSS read CONNS_SETTLE (12) s after the last one
#     connected): (RSS with them - RSS before) / clients <= 1.5x;
#     SET -P 1 (redis-benchmark -c 50) beside them     >= 1.0x; then
#     CONNS_N fresh connections, CONNS_WORKERS (8) at a time, each connect,
#     PING, PONG, close (connbench -mode acceptping): connections/s >= 1.0x
#   STARTUP: process start to first PONG (cmd/startbench -mode process,
#     median of STARTUP_RUNS (9) starts per round)     <= 1.0x; the Go
#     embedding API's start to first PONG (startbench -mode embed) <= 5 ms
#   WSCALE (watchscale, fresh servers with --maxclients 10100, keys absent):
#     1,000 clients each WATCH 1,000 distinct keys: (RSS after - RSS with the
#     connections open) / 1,000,000 records <= 1.0x; all 1,000 close at once
#     until INFO connected_clients is 1 <= 1.0x; one SET of a key 10,000
#     clients watch (median of 9, re-WATCHed before each) <= 1.0x
#
# Exit status: 0 no FAIL, 1 at least one FAIL, 2 setup error.
# Environment: REDIS_SERVER (redis-server), PORT_MW, PORT_REDIS (free ports),
#   CLIENTS (50), KEYSPACE (100000), MEM_KEYS (1000000), WATCH_CLIENTS ("1 8 32 128"),
#   N_P1 / N_P16 (requests per run), WATCH_DUR (watchbench run length),
#   N_EFFIC (requests per EFFIC run), CONNS_N (10000), CONNS_WORKERS (8),
#   CONNS_SETTLE (seconds between the idle clients' READY and the RSS reading),
#   STARTUP_RUNS (starts per STARTUP round), WSCALE_ROUNDS (3), WSCALE_CLIENTS,
#   WSCALE_KEYS, WSCALE_WATCHERS.
# Only processes this script started are stopped, by PID.
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)

QUICK=0
ROUNDS=
ONLY=P1,P16,EVALSHA,BITSORT,HLLGEO,WATCH,MEMORY,STREAM,RDB,CONTEND,EFFIC,CONNS,STARTUP,WSCALE
OUT=
while (($#)); do
	case $1 in
	--quick) QUICK=1 ;;
	--rounds) ROUNDS=${2:?--rounds needs a number}; shift ;;
	--only) ONLY=${2:?--only needs a list}; shift ;;
	--out) OUT=${2:?--out needs a directory}; shift ;;
	-h | --help) sed -n '2,/^set -euo/{/^set -euo/d; s/^# \{0,1\}//; p}' "$0"; exit 0 ;;
	*) echo "targets.sh: unknown argument $1 (see --help)" >&2; exit 2 ;;
	esac
	shift
done
if ((QUICK)); then
	: "${ROUNDS:=3}" "${N_P1:=50000}" "${N_P16:=300000}" "${WATCH_DUR:=2s}" "${N_EFFIC:=50000}" "${WSCALE_ROUNDS:=1}"
else
	: "${ROUNDS:=5}" "${N_P1:=100000}" "${N_P16:=600000}" "${WATCH_DUR:=5s}" "${N_EFFIC:=100000}"
fi
[[ $ROUNDS =~ ^[1-9][0-9]*$ ]] || { echo "targets.sh: --rounds must be a positive integer" >&2; exit 2; }
REDIS_SERVER=${REDIS_SERVER:-redis-server}
CLIENTS=${CLIENTS:-50}
KEYSPACE=${KEYSPACE:-100000}
MEM_KEYS=${MEM_KEYS:-1000000}
WATCH_CLIENTS=${WATCH_CLIENTS:-1 8 32 128}
CONNS_N=${CONNS_N:-10000}
CONNS_WORKERS=${CONNS_WORKERS:-8}
CONNS_SETTLE=${CONNS_SETTLE:-12}
STARTUP_RUNS=${STARTUP_RUNS:-9}
SCRIPT="return redis.call('INCR', KEYS[1])"
OUT=${OUT:-$(mktemp -d /tmp/miniwatchd-targets.XXXXXX)}
mkdir -p "$OUT/logs"

say() { printf '[%s] %s\n' "$(date +%H:%M:%S)" "$*" >&2; }
fatal() { say "ERROR: $*"; exit 2; }
wants() { [[ ,$ONLY, == *,$1,* ]]; }

for tool in redis-benchmark redis-cli go awk "$REDIS_SERVER"; do
	command -v "$tool" >/dev/null || fatal "$tool not found (redis-tools and redis-server 7.0.15 are needed)"
done

# ------------------------------------------------------------------ servers
declare -A PID PORT
SIDES=(mw redis)
declare -A LABEL=([mw]=miniwatchd [redis]=redis)

port_in_use() { (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }

# free_port picks a port nobody listens on, below the ephemeral range (a
# port used by an outgoing connection accepts no connection but cannot be
# bound either).
free_port() {
	local p i lo=32768
	read -r lo _ </proc/sys/net/ipv4/ip_local_port_range 2>/dev/null || true
	((lo > 12000)) || lo=32768
	for ((i = 0; i < 500; i++)); do
		p=$((10000 + RANDOM % (lo - 10000)))
		[[ $p == "${PORT[mw]:-}" || $p == "${PORT[redis]:-}" ]] && continue
		port_in_use "$p" || { echo "$p"; return 0; }
	done
	return 1
}

cli() { redis-cli -h 127.0.0.1 -p "${PORT[$1]}" "${@:2}"; }

# Servers run in their own session (setsid), as a service does: in the
# benchmark's session, Linux's autogroup scheduling would make each server
# share one CPU slice with the clients' threads (measured with watchbench
# -clients 32: both servers lose a third of their commits that way).
DETACH=()
command -v setsid >/dev/null && DETACH=(setsid)

start_server() { # start_server SIDE [extra server arguments]
	local side=$1 log=$OUT/logs/$1-server.log i
	case $side in
	mw) "${DETACH[@]}" "$BIN/miniwatchd" --port "${PORT[mw]}" --bind 127.0.0.1 --save "" --appendonly no "${@:2}" >>"$log" 2>&1 & ;;
	redis) "${DETACH[@]}" "$REDIS_SERVER" --port "${PORT[redis]}" --bind 127.0.0.1 --save "" --appendonly no "${@:2}" >>"$log" 2>&1 & ;;
	esac
	PID[$side]=$!
	for ((i = 0; i < 300; i++)); do
		[[ $(cli "$side" PING 2>/dev/null) == PONG ]] && return 0
		kill -0 "${PID[$side]}" 2>/dev/null || { tail -5 "$log" >&2; fatal "${LABEL[$side]} exited at start (log $log)"; }
		sleep 0.1
	done
	fatal "${LABEL[$side]} did not answer PING on port ${PORT[$side]}"
}

stop_server() { # stop_server SIDE
	local pid=${PID[$1]:-} i
	[[ -n $pid ]] || return 0
	kill -TERM "$pid" 2>/dev/null || true
	for ((i = 0; i < 100; i++)); do
		kill -0 "$pid" 2>/dev/null || break
		sleep 0.1
	done
	kill -KILL "$pid" 2>/dev/null || true
	wait "$pid" 2>/dev/null || true
	unset "PID[$1]"
}

stop_servers() { local s; for s in "${SIDES[@]}"; do stop_server "$s"; done; }

# Helper processes the script started besides the servers (the CONTEND
# group's CPU hogs, a connbench holding idle clients): stopped by PID.
HOGS=()
CONNBENCH_PID=

# start_hogs: one CPU-bound busy loop per CPU, each in its own session as
# the servers are (so the scheduler weighs them like any other process).
start_hogs() {
	local i n
	n=$(nproc)
	for ((i = 0; i < n; i++)); do
		"${DETACH[@]}" sh -c 'while :; do :; done' </dev/null >/dev/null 2>&1 &
		HOGS+=("$!")
	done
	say "started $n CPU hogs (PIDs ${HOGS[*]})"
}

stop_hogs() {
	local p
	((${#HOGS[@]})) || return 0
	for p in "${HOGS[@]}"; do kill -KILL "$p" 2>/dev/null || true; done
	for p in "${HOGS[@]}"; do wait "$p" 2>/dev/null || true; done
	HOGS=()
}

stop_connbench() {
	[[ -n $CONNBENCH_PID ]] || return 0
	kill -TERM "$CONNBENCH_PID" 2>/dev/null || true
	wait "$CONNBENCH_PID" 2>/dev/null || true
	CONNBENCH_PID=
}

cleanup() { stop_hogs; stop_connbench; stop_servers; }
trap cleanup EXIT
trap 'exit 130' INT TERM

# cpu_ticks PID: user+system CPU of the process so far, in clock ticks
cpu_ticks() { awk '{ sub(/^.*\) /, ""); print $12 + $13 }' "/proc/$1/stat" 2>/dev/null || echo 0; }
rss_kb() { awk '$1 == "VmRSS:" { print $2 }' "/proc/$1/status"; }
TICK=$(getconf CLK_TCK)

# has_cmds SIDE CMD...: every command is in the server's COMMAND INFO
has_cmds() {
	local side=$1 c
	shift
	for c; do
		[[ $(cli "$side" COMMAND INFO "$c" | head -1) == "$c" ]] || return 1
	done
}

# ------------------------------------------------------------------ workloads
# A workload id is NAME/Pn. NEEDS lists the commands miniwatchd must have.
declare -A TEST NEEDS
TEST=([SET]=set [GET]=get [INCR]=incr [LPUSH]=lpush [LPOP]=lpop [SADD]=sadd [HSET]=hset [ZADD]=zadd [MSET]=mset)
NEEDS=([SET]=set [GET]="set get" [INCR]=incr [LPUSH]=lpush [LPOP]="lpop lpush llen" [SADD]=sadd
	[HSET]=hset [ZADD]=zadd [MSET]=mset [EVALSHA]="evalsha script")
NAMES=(SET GET INCR LPUSH LPOP SADD HSET ZADD MSET)
# Workloads given as a whole command line (redis-benchmark's __rand_int__
# is zero-padded, so it can only stand in keys, not in integer arguments).
declare -A CMDLINE=(
	[SETBIT]="setbit bits:__rand_int__ 7 1"
	[BITCOUNT]="bitcount bigbits"
	[SORT]="sort sortnums"
	[PFADD]="pfadd hll:bench element:__rand_int__"
	[PFCOUNT]="pfcount hll:count"
	[GEOSEARCH]="geosearch geo:100k fromlonlat 13.361389 38.115556 byradius 100 km asc"
)
NEEDS+=([PFADD]=pfadd [PFCOUNT]="pfadd pfcount eval" [GEOSEARCH]="geoadd geosearch zcard")
GEO_MEMBERS=100000

RUNS=$OUT/runs.tsv      # id side round value p50_ms p99_ms cpu_us_per_op abort_ratio status
TARGETS=$OUT/targets.tsv # id label op want (op: ge or le)
SKIPS=$OUT/skips.tsv     # id reason
: >"$RUNS"
: >"$TARGETS"
: >"$SKIPS"
SHA=

# A workload id is [GROUP/]NAME/Pn[/cN] (WATCH/cN for the WATCH loop): the
# group prefix (CONTEND, EFFIC, CONNS) runs the same workload in another
# setting, /cN overrides CLIENTS. id_parts ID sets W_NAME, W_P and W_C.
id_parts() {
	local f parts
	IFS=/ read -ra parts <<<"$1"
	W_NAME='' W_P=1 W_C=$CLIENTS
	for f in "${parts[@]}"; do
		case $f in
		P[0-9]*) W_P=${f#P} ;;
		c[0-9]*) W_C=${f#c} ;;
		*) W_NAME=$f ;; # the last other field: a group prefix comes first
		esac
	done
}

# cpu_per_op ID C0 C1 N: server CPU in microseconds per operation between
# two cpu_ticks readings ("-" without operations). An EFFIC run, whose
# value this is, warns when it spent under a second of CPU (the ticks are
# 10 ms: below 100 of them the value is coarse; raise N_EFFIC/WATCH_DUR).
cpu_per_op() {
	if [[ $1 == EFFIC/* ]] && (($3 - $2 < TICK)); then
		say "warning: $1 spent $(($3 - $2)) clock ticks of server CPU, under 1 s: raise N_EFFIC (or WATCH_DUR)"
	fi
	awk -v a="$2" -v b="$3" -v t="$TICK" -v n="$4" 'BEGIN { if (n > 0) printf "%.2f", (b - a) / t * 1e6 / n; else print "-" }'
}

# prepare SIDE ID N: untimed setup so every run starts from the same state
prepare() {
	local side=$1 name n=$3 len W_NAME W_P W_C
	id_parts "$2"
	name=$W_NAME
	case $name in
	LPUSH) cli "$side" DEL mylist >/dev/null ;;
	LPOP)
		cli "$side" DEL mylist >/dev/null
		redis-benchmark -h 127.0.0.1 -p "${PORT[$side]}" -c 4 -P 64 -n "$n" -t lpush -q >/dev/null
		len=$(cli "$side" LLEN mylist)
		((len >= n)) || say "warning: LPOP prefill on ${LABEL[$side]} left $len elements, want $n"
		;;
	SADD) cli "$side" DEL myset >/dev/null ;;
	HSET) cli "$side" DEL myhash >/dev/null ;;
	ZADD) cli "$side" DEL myzset >/dev/null ;;
	BITCOUNT) cli "$side" SETBIT bigbits 8191 1 >/dev/null ;;
	SORT)
		cli "$side" DEL sortnums >/dev/null
		# shellcheck disable=SC2046
		cli "$side" RPUSH sortnums $(awk 'BEGIN { srand(19); for (i = 0; i < 1000; i++) printf "%d ", int(rand() * 1000000) }') >/dev/null ;;
	PFADD) cli "$side" DEL hll:bench >/dev/null ;;
	PFCOUNT)
		cli "$side" DEL hll:count >/dev/null
		cli "$side" EVAL "for i = 1, 10000 do redis.call('PFADD', KEYS[1], i) end" 1 hll:count >/dev/null
		cli "$side" PFCOUNT hll:count >/dev/null
		;;
	GEOSEARCH)
		if [[ $(cli "$side" ZCARD geo:100k) != "$GEO_MEMBERS" ]]; then
			cli "$side" DEL geo:100k >/dev/null
			redis-cli -h 127.0.0.1 -p "${PORT[$side]}" --pipe <"$(geo_file)" >/dev/null
		fi
		;;
	XADD) cli "$side" DEL bench:stream >/dev/null ;;
	XRANGE)
		cli "$side" DEL bench:range >/dev/null
		for ((len = 0; len < 100; len++)); do echo "XADD bench:range * field value:$len"; done | cli "$side" >/dev/null
		;;
	esac
}

# geo_file writes (once) and names the GEOADD commands of GEO_MEMBERS
# positions spread over the indexable area, the same for both servers.
geo_file() {
	local f=${TMPDIR:-/tmp}/miniwatchd-bench-geo-$GEO_MEMBERS.resp
	if [[ ! -s $f ]]; then
		awk -v n="$GEO_MEMBERS" 'BEGIN { ORS = ""; srand(19)
			for (i = 0; i < n; i += 100) {
				printf "*%d\r\n$6\r\nGEOADD\r\n$8\r\ngeo:100k\r\n", 2 + 300
				for (j = i; j < i + 100; j++) {
					lon = sprintf("%.6f", rand() * 360 - 180); lat = sprintf("%.6f", rand() * 170 - 85)
					m = "m" j
					printf "$%d\r\n%s\r\n$%d\r\n%s\r\n$%d\r\n%s\r\n", length(lon), lon, length(lat), lat, length(m), m
				}
			} }' >"$f.$$"
		mv "$f.$$" "$f"
	fi
	echo "$f"
}

# bench_run SIDE ID ROUND: one redis-benchmark run, appended to RUNS
bench_run() {
	local side=$1 id=$2 r=$3 name p c n args out err c0 c1 line status=ok W_NAME W_P W_C
	id_parts "$id"
	name=$W_NAME p=$W_P c=$W_C
	n=$N_P1
	((p > 1)) && n=$N_P16
	[[ $id == EFFIC/* ]] && n=$N_EFFIC
	[[ $name == MSET ]] && n=$((n / 2))
	[[ $name == SORT ]] && n=$((n / 10))
	prepare "$side" "$id" "$n"
	if [[ $name == EVALSHA ]]; then
		args=(evalsha "$SHA" 1 "counter:__rand_int__")
	elif [[ -n ${CMDLINE[$name]:-} ]]; then
		read -ra args <<<"${CMDLINE[$name]}"
	elif [[ $name == XADD ]]; then
		args=(xadd bench:stream '*' field __rand_int__)
	elif [[ $name == XRANGE ]]; then
		args=(xrange bench:range - +)
	else
		args=(-t "${TEST[$name]}")
	fi
	out=$OUT/logs/r$r-${id//\//-}-$side.csv
	err=$OUT/logs/r$r-${id//\//-}-$side.err
	c0=$(cpu_ticks "${PID[$side]}")
	timeout 600 redis-benchmark -h 127.0.0.1 -p "${PORT[$side]}" -c "$c" -n "$n" -r "$KEYSPACE" \
		-P "$p" --csv "${args[@]}" >"$out" 2>"$err" || status=err # it exits on an error reply
	c1=$(cpu_ticks "${PID[$side]}")
	line=$(tail -1 "$out" | tr -d '"')
	local rps p50 p99
	IFS=, read -r _ rps _ _ p50 _ p99 _ <<<"$line"
	[[ $rps =~ ^[0-9.]+$ ]] || { status=err; rps=0 p50=- p99=-; }
	local cpu
	cpu=$(cpu_per_op "$id" "$c0" "$c1" "$n")
	printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t-\t%s\n' "$id" "$side" "$r" "$rps" "$p50" "$p99" "$cpu" "$status" >>"$RUNS"
	say "round $r $id ${LABEL[$side]}: $rps rps, p50 $p50 ms, p99 $p99 ms, server ${cpu} us/req${status/ok/}"
}

# watch_run SIDE ID ROUND: one watchbench run ([GROUP/]WATCH/cN), appended to RUNS
watch_run() {
	local side=$1 id=$2 r=$3 c=${2##*/c} lid=${2//\//-} out rc=0 c0 c1 status
	out=$OUT/logs/r$r-${lid,,}-$side.txt # r1-watch-c8-mw.txt
	c0=$(cpu_ticks "${PID[$side]}")
	"$BIN/watchbench" -addr "127.0.0.1:${PORT[$side]}" -clients "$c" -duration "$WATCH_DUR" \
		-mode watch-hot -prefix targets >"$out" 2>&1 || rc=$?
	c1=$(cpu_ticks "${PID[$side]}")
	case $rc in 0) status=ok ;; 1) status=lost ;; *) status=err ;; esac
	local f
	f=$(awk '/^RESULT / { for (i = 2; i <= NF; i++) { split($i, kv, "="); v[kv[1]] = kv[2] }
		printf "%s %s %.3f %.3f %s", v["commits_per_s"], v["abort_ratio"], v["p50_us"] / 1000, v["p99_us"] / 1000, v["commits"] }' "$out")
	local cps ar p50 p99 commits cpu
	read -r cps ar p50 p99 commits <<<"${f:-0 - - - 0}"
	cpu=$(cpu_per_op "$id" "$c0" "$c1" "$commits")
	printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$id" "$side" "$r" "${cps:-0}" "$p50" "$p99" "$cpu" "$ar" "$status" >>"$RUNS"
	say "round $r $id ${LABEL[$side]}: $cps commits/s, abort ratio $ar, p99 $p99 ms, check ${status}"
}

# group_run SIDE ID ROUND: one streambench run (XREADGROUP+XACK loop, ID
# XGROUP/c8), appended to RUNS
group_run() {
	local side=$1 id=$2 r=$3 out rc=0 c0 c1 status=ok
	out=$OUT/logs/r$r-xgroup-$side.txt
	c0=$(cpu_ticks "${PID[$side]}")
	"$BIN/streambench" -addr "127.0.0.1:${PORT[$side]}" -clients 8 -duration "$WATCH_DUR" -prefill "$GROUP_PREFILL" >"$out" 2>&1 || rc=$?
	c1=$(cpu_ticks "${PID[$side]}")
	((rc == 0)) || status=err
	local lps loops cpu
	read -r lps loops <<<"$(awk '/^RESULT / { for (i = 2; i <= NF; i++) { split($i, kv, "="); v[kv[1]] = kv[2] } print v["loops_per_s"], v["loops"] }' "$out")"
	cpu=$(cpu_per_op "$id" "$c0" "$c1" "${loops:-0}")
	printf '%s	%s	%s	%s	-	-	%s	-	%s
' "$id" "$side" "$r" "${lps:-0}" "$cpu" "$status" >>"$RUNS"
	say "round $r $id ${LABEL[$side]}: ${lps:-0} loops/s, server ${cpu} us/loop${status/ok/}"
}

# each_round FN ID...: every round runs FN SIDE ID ROUND for each ID on both
# servers back to back, in the order mw,redis in odd rounds and redis,mw in
# even ones.
each_round() {
	local fn=$1 r id side order
	shift
	for ((r = 1; r <= ROUNDS; r++)); do
		order=(mw redis)
		((r % 2)) || order=(redis mw)
		for id; do
			for side in "${order[@]}"; do "$fn" "$side" "$id" "$r"; done
		done
	done
}

# result_field FILE KEY: the value of KEY in the last RESULT line of FILE
result_field() {
	awk -v k="$2" '/^RESULT / { v = ""; for (i = 2; i <= NF; i++) if (index($i, k "=") == 1) v = substr($i, length(k) + 2) } END { print v }' "$1"
}

# wait_line FILE WORD PID: wait until a line of FILE starts with WORD;
# fails when PID exits first or after 300 s
wait_line() {
	local i
	for ((i = 0; i < 3000; i++)); do
		grep -q "^$2 " "$1" 2>/dev/null && return 0
		kill -0 "$3" 2>/dev/null || return 1
		sleep 0.1
	done
	return 1
}

# raise_nofile NEED: make the soft open-files limit at least NEED (for
# this script and what it starts), within the hard limit
raise_nofile() {
	local soft hard
	soft=$(ulimit -Sn) hard=$(ulimit -Hn)
	[[ $soft == unlimited ]] || ((soft >= $1)) && return 0
	[[ $hard == unlimited ]] || ((hard >= $1)) || return 1
	ulimit -Sn "$1"
}

# conns_run SIDE CONNS ROUND: a fresh server with room for CONNS_N more
# clients; RSS before and with CONNS_N idle clients (connbench -mode idle),
# SET -P 1 beside them (bench_run, row CONNS/SET/P1), then CONNS_N
# connect+PING+close (connbench -mode acceptping). Appends CONNS/RSS and
# CONNS/ACCEPT to RUNS.
conns_run() {
	local side=$1 r=$3 log=$OUT/logs/$1-server.log lines r0 r1 per out rc=0 alive rate c0 c1 status=ok
	lines=$(wc -l <"$log" 2>/dev/null || echo 0)
	start_server "$side" --maxclients $((CONNS_N + 100))
	if tail -n +$((lines + 1)) "$log" | grep -q 'maxclients has been reduced'; then
		say "warning: ${LABEL[$side]} reduced maxclients (see $log): ulimit -n is $(ulimit -Sn)"
		status=err
	fi
	sleep 1
	r0=$(rss_kb "${PID[$side]}")
	out=$OUT/logs/r$r-conns-idle-$side.txt
	"$BIN/connbench" -addr "127.0.0.1:${PORT[$side]}" -mode idle -conns "$CONNS_N" -workers "$CONNS_WORKERS" >"$out" 2>&1 &
	CONNBENCH_PID=$!
	wait_line "$out" READY "$CONNBENCH_PID" || status=err
	sleep "$CONNS_SETTLE" # both servers shrink idle clients' buffers after 2 s, then return the pages
	r1=$(rss_kb "${PID[$side]}")
	bench_run "$side" CONNS/SET/P1 "$r"
	kill -TERM "$CONNBENCH_PID" 2>/dev/null || true
	wait "$CONNBENCH_PID" || rc=$?
	CONNBENCH_PID=
	alive=$(result_field "$out" alive)
	[[ $rc == 0 && $alive == "$CONNS_N" ]] || { status=err; say "connbench -mode idle on ${LABEL[$side]}: exit $rc, ${alive:-no} clients alive (see $out)"; }
	per=$(awk -v a="$r0" -v b="$r1" -v k="$CONNS_N" 'BEGIN { printf "%.1f", (b - a) * 1024 / k }')
	printf 'CONNS/RSS\t%s\t%s\t%s\t-\t-\t-\t-\t%s\n' "$side" "$r" "$per" "$status" >>"$RUNS"
	say "round $r CONNS ${LABEL[$side]}: RSS ${r0} kB -> ${r1} kB with $CONNS_N idle clients, $per B each${status/ok/}"
	out=$OUT/logs/r$r-conns-accept-$side.txt
	status=ok
	c0=$(cpu_ticks "${PID[$side]}")
	"$BIN/connbench" -addr "127.0.0.1:${PORT[$side]}" -mode acceptping -conns "$CONNS_N" -workers "$CONNS_WORKERS" >"$out" 2>&1 || status=err
	c1=$(cpu_ticks "${PID[$side]}")
	rate=$(result_field "$out" conns_per_s)
	[[ -n $rate ]] || { rate=0 status=err; }
	printf 'CONNS/ACCEPT\t%s\t%s\t%s\t-\t-\t%s\t-\t%s\n' "$side" "$r" "$rate" "$(cpu_per_op CONNS/ACCEPT "$c0" "$c1" "$CONNS_N")" "$status" >>"$RUNS"
	say "round $r CONNS ${LABEL[$side]}: $rate connections/s (connect+PING+close, $CONNS_WORKERS workers)${status/ok/}"
	stop_server "$side"
}

# startup_run SIDE ID ROUND: STARTUP_RUNS starts of a server process to its
# first PONG (cmd/startbench -mode process; median wall time in us), or,
# for STARTUP/EMBED on the mw side, the Go embedding API's start to its
# first PONG (startbench -mode embed), judged against a 5 ms bar written as
# the redis side's value. Appends to RUNS; the cpu column is the median CPU
# time of the process's threads up to its first PONG, in us.
startup_run() {
	local side=$1 id=$2 r=$3 out med cpu status=ok
	out=$OUT/logs/startup-${id//\//-}-$side-$r.txt
	if [[ $id == STARTUP/EMBED ]]; then
		if [[ $side == redis ]]; then
			printf '%s\tredis\t%s\t5000\t-\t-\t-\t-\tok\n' "$id" "$r" >>"$RUNS"
			return
		fi
		"$BIN/startbench" -mode embed -runs "$STARTUP_RUNS" >"$out" 2>&1 || status=err
	else
		local exe=$BIN/miniwatchd
		[[ $side == redis ]] && exe=$(command -v "$REDIS_SERVER")
		"$BIN/startbench" -mode process -server "$exe" -runs "$STARTUP_RUNS" >"$out" 2>&1 || status=err
	fi
	med=$(result_field "$out" median_us) cpu=$(result_field "$out" cpu_us)
	[[ -n $med ]] || status=err
	printf '%s\t%s\t%s\t%s\t-\t-\t%s\t-\t%s\n' "$id" "$side" "$r" "${med:-0}" "${cpu:--}" "$status" >>"$RUNS"
	say "round $r $id ${LABEL[$side]}: start to first PONG ${med:-?} us (median of $STARTUP_RUNS), cpu ${cpu:-?} us${status/ok/}"
}

# stream_mem_run SIDE: fresh server, MEM_KEYS XADDs into one stream, bytes of RSS per entry
stream_mem_run() {
	local side=$1 r0 r1 n
	start_server "$side"
	sleep 1
	r0=$(rss_kb "${PID[$side]}")
	redis-cli -h 127.0.0.1 -p "${PORT[$side]}" --pipe <"$STREAMFILE" >"$OUT/logs/streammem-$side.txt" 2>&1 ||
		say "redis-cli --pipe into ${LABEL[$side]} exited non-zero (see logs/streammem-$side.txt)"
	sleep 2
	r1=$(rss_kb "${PID[$side]}")
	n=$(cli "$side" XLEN bench:mem)
	[[ $n == "$MEM_KEYS" ]] || say "warning: ${LABEL[$side]} holds $n entries, want $MEM_KEYS"
	stop_server "$side"
	awk -v s="$side" -v a="$r0" -v b="$r1" -v k="$n" 'BEGIN { printf "XMEMORY\t%s\t1\t%.1f\t%d\t%d\t-\t-\tok\n", s, (k > 0 ? (b - a) * 1024 / k : 0), a, b }' >>"$RUNS"
	say "stream memory ${LABEL[$side]}: RSS ${r0} kB -> ${r1} kB for $n entries"
}

# mem_run SIDE: fresh server, load MEM_KEYS keys, bytes of RSS per key
mem_run() {
	local side=$1 r0 r1 keys
	start_server "$side"
	sleep 1
	r0=$(rss_kb "${PID[$side]}")
	redis-cli -h 127.0.0.1 -p "${PORT[$side]}" --pipe <"$MEMFILE" >"$OUT/logs/mem-$side.txt" 2>&1 ||
		say "redis-cli --pipe into ${LABEL[$side]} exited non-zero (see logs/mem-$side.txt)"
	sleep 2
	r1=$(rss_kb "${PID[$side]}")
	keys=$(cli "$side" DBSIZE)
	[[ $keys == "$MEM_KEYS" ]] || say "warning: ${LABEL[$side]} holds $keys keys, want $MEM_KEYS"
	stop_server "$side"
	awk -v s="$side" -v a="$r0" -v b="$r1" -v k="$keys" 'BEGIN { printf "MEMORY\t%s\t1\t%.1f\t%d\t%d\t-\t-\tok\n", s, (k > 0 ? (b - a) * 1024 / k : 0), a, b }' >>"$RUNS"
	say "memory ${LABEL[$side]}: RSS ${r0} kB -> ${r1} kB for $keys keys"
}

# rdb_run SIDE: MEM_KEYS keys by commands, SAVE, restart loading the file:
# SAVE seconds, load seconds, RSS after load / RSS after the commands
rdb_run() {
	local side=$1 dir=$OUT/rdb-$1 r1 r2 t0 t1 load log i
	rm -rf "$dir"; mkdir -p "$dir"
	start_server "$side" --dir "$dir"
	redis-cli -h 127.0.0.1 -p "${PORT[$side]}" --pipe <"$MEMFILE" >"$OUT/logs/rdb-$side.txt" 2>&1 ||
		say "redis-cli --pipe into ${LABEL[$side]} exited non-zero (see logs/rdb-$side.txt)"
	sleep 2
	r1=$(rss_kb "${PID[$side]}")
	t0=$(date +%s.%N)
	[[ $(cli "$side" SAVE) == OK ]] || say "SAVE failed on ${LABEL[$side]}"
	t1=$(date +%s.%N)
	stop_server "$side"
	log=$OUT/logs/$side-server.log
	: >"$log"
	start_server "$side" --dir "$dir"
	for ((i = 0; i < 600; i++)); do
		load=$(sed -n 's/.*DB loaded from disk: \([0-9.]*\) seconds.*/\1/p' "$log" | tail -1)
		[[ -n $load ]] && break
		sleep 0.1
	done
	sleep 2
	r2=$(rss_kb "${PID[$side]}")
	[[ $(cli "$side" DBSIZE) == "$MEM_KEYS" ]] || say "warning: ${LABEL[$side]} loaded $(cli "$side" DBSIZE) keys, want $MEM_KEYS"
	stop_server "$side"
	awk -v s="$side" -v a="$t0" -v b="$t1" -v l="${load:-0}" -v r1="$r1" -v r2="$r2" 'BEGIN {
		printf "RDBSAVE\t%s\t1\t%.3f\t-\t-\t-\t-\tok\n", s, b - a
		printf "RDBLOAD\t%s\t1\t%.3f\t-\t-\t-\t-\t%s\n", s, l, (l > 0 ? "ok" : "err")
		printf "RDBRSS\t%s\t1\t%.3f\t-\t-\t-\t-\tok\n", s, (s == "mw" ? r2 / r1 : 1) }' >>"$RUNS"
	say "rdb ${LABEL[$side]}: SAVE $(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.3f", b - a }') s, load ${load:-?} s, RSS by commands $r1 kB, after load $r2 kB"
}

# ------------------------------------------------------------------ WSCALE
# Watch scale (issue #25), measured by cmd/watchscale on a fresh pair of
# servers per round (--maxclients 10100; 10,000 connections need a raised
# open files limit on both sides). The watched keys never exist.
: "${WSCALE_ROUNDS:=3}" "${WSCALE_CLIENTS:=1000}" "${WSCALE_KEYS:=1000}" "${WSCALE_WATCHERS:=10000}"

# wscale_run SIDE WSCALE ROUND: the three measurements on SIDE, appended to RUNS
wscale_run() {
	local side=$1 r=$3 out=$OUT/logs/r$3-wscale-$1.txt rc=0 f
	start_server "$side" --maxclients 10100
	"$BIN/watchscale" -addr "127.0.0.1:${PORT[$side]}" -pid "${PID[$side]}" -mode mem,disconnect \
		-clients "$WSCALE_CLIENTS" -keys "$WSCALE_KEYS" >"$out" 2>&1 || rc=$?
	stop_server "$side"
	start_server "$side" --maxclients 10100
	"$BIN/watchscale" -addr "127.0.0.1:${PORT[$side]}" -mode touch -watchers "$WSCALE_WATCHERS" -repeat 9 >>"$out" 2>&1 || rc=$?
	stop_server "$side"
	((rc == 0)) || say "watchscale on ${LABEL[$side]} exited $rc (see $out)"
	f=$(awk '/^RESULT / { for (i = 2; i <= NF; i++) { split($i, kv, "="); v[kv[1]] = kv[2] } }
		END { printf "%s %s %s %s %s", v["bytes_per_record"], v["disconnect_ms"], v["set_us"], v["rss0_kb"], v["rss1_kb"] }' "$out")
	local bpr ms us r0 r1 id val
	read -r bpr ms us r0 r1 <<<"$f"
	for id in WSMEM WSDISC WSTOUCH; do
		case $id in WSMEM) val=$bpr ;; WSDISC) val=$ms ;; WSTOUCH) val=$us ;; esac
		if [[ $val =~ ^[0-9.]+$ ]]; then
			printf '%s\t%s\t%s\t%s\t-\t-\t-\t-\tok\n' "$id" "$side" "$r" "$val" >>"$RUNS"
		else
			printf '%s\t%s\t%s\t0\t-\t-\t-\t-\terr\n' "$id" "$side" "$r" >>"$RUNS"
		fi
	done
	say "round $r watch scale ${LABEL[$side]}: ${bpr:-?} B/record (RSS ${r0:-?} -> ${r1:-?} kB), disconnect ${ms:-?} ms, SET with $WSCALE_WATCHERS watchers ${us:-?} us"
}

# wscale_group: targets, limits, WSCALE_ROUNDS rounds
wscale_group() {
	local wsids=(WSMEM WSDISC WSTOUCH) id need=$((WSCALE_WATCHERS + 200))
	target WSMEM "WATCH memory/record" le 1.0
	target WSDISC "disconnect, $WSCALE_CLIENTS watchers" le 1.0
	target WSTOUCH "SET, $WSCALE_WATCHERS watchers" le 1.0
	if ! raise_nofile "$need"; then
		for id in "${wsids[@]}"; do printf '%s\topen files limit %s is below %d\n' "$id" "$(ulimit -n)" "$need" >>"$SKIPS"; done
		return
	fi
	start_server mw
	if ! has_cmds mw watch unwatch multi exec; then
		for id in "${wsids[@]}"; do printf '%s\tnot implemented by miniwatchd yet\n' "$id" >>"$SKIPS"; done
		stop_server mw
		return
	fi
	stop_server mw
	say "watch scale: watchscale, $WSCALE_CLIENTS clients x $WSCALE_KEYS keys and $WSCALE_WATCHERS watchers, x $WSCALE_ROUNDS rounds x 2 servers"
	ROUNDS=$WSCALE_ROUNDS each_round wscale_run WSCALE
}

# ------------------------------------------------------------------ main
BIN=$OUT/bin
mkdir -p "$BIN"
say "building miniwatchd and the bench tools into $BIN"
(cd "$ROOT" && go build -o "$BIN/miniwatchd" ./cmd/miniwatchd && go build -o "$BIN/watchbench" ./cmd/watchbench &&
	go build -o "$BIN/streambench" ./cmd/streambench && go build -o "$BIN/connbench" ./cmd/connbench &&
	go build -o "$BIN/startbench" ./cmd/startbench && go build -o "$BIN/watchscale" ./cmd/watchscale) ||
	fatal "go build failed"

PORT[mw]=${PORT_MW:-$(free_port)} || fatal "no free port"
PORT[redis]=${PORT_REDIS:-$(free_port)} || fatal "no free port"
{
	echo "date        $(date -Is)"
	echo "commit      $(cd "$ROOT" && git rev-parse --short HEAD 2>/dev/null || echo unknown)$(cd "$ROOT" && git diff --quiet 2>/dev/null || echo ' (with local changes)')"
	echo "redis       $("$REDIS_SERVER" --version | head -1)"
	echo "machine     $(nproc) CPUs, $(awk '/MemTotal/ { printf "%.1f GB", $2 / 1048576 }' /proc/meminfo), load average $(cut -d' ' -f1-3 /proc/loadavg) at start"
	echo "settings    rounds=$ROUNDS -c $CLIENTS -r $KEYSPACE, -n $N_P1 at -P 1 and $N_P16 at -P 16 (MSET half), watchbench ${WATCH_DUR} per run"
	echo "ports       miniwatchd ${PORT[mw]}, redis ${PORT[redis]}; raw results in $OUT"
} | tee "$OUT/meta.txt"
"$REDIS_SERVER" --version | grep -q 'v=7\.0\.15' || say "warning: the targets are defined against redis-server 7.0.15"

start_server mw
start_server redis

# Which workloads run: a group must be selected and miniwatchd must have
# every command the workload needs.
# add_workload appends a runnable workload's id to IDS (the throughput
# rounds), or to the array named by WL_LIST.
IDS=()
target() { printf '%s\t%s\t%s\t%s\n' "$@" >>"$TARGETS"; } # target ID LABEL OP WANT
add_workload() { # add_workload ID LABEL OP WANT NEEDS...
	local id=$1 label=$2 op=$3 want=$4 c missing=()
	local -n ids=${WL_LIST:-IDS}
	shift 4
	target "$id" "$label" "$op" "$want"
	for c; do has_cmds mw "$c" || missing+=("$c"); done
	if ((${#missing[@]})); then
		printf '%s\tnot implemented by miniwatchd yet (COMMAND INFO %s is empty)\n' "$id" "${missing[*]^^}" >>"$SKIPS"
		return
	fi
	for c; do has_cmds redis "$c" || { printf '%s\tredis-server lacks %s\n' "$id" "${c^^}" >>"$SKIPS"; return; }; done
	ids+=("$id")
}
for p in 1 16; do
	wants "P$p" || continue
	want=1.0
	((p > 1)) && want=0.8
	for name in "${NAMES[@]}"; do
		label="$name -P $p"
		[[ $name == MSET ]] && label="MSET(10) -P $p"
		# shellcheck disable=SC2086
		add_workload "$name/P$p" "$label" ge "$want" ${NEEDS[$name]}
	done
done
if wants EVALSHA; then
	# shellcheck disable=SC2086
	add_workload EVALSHA/P1 "EVALSHA (one INCR) -P 1" ge 0.8 ${NEEDS[EVALSHA]}
	if [[ " ${IDS[*]} " == *" EVALSHA/P1 "* ]]; then
		SHA=$(cli redis SCRIPT LOAD "$SCRIPT")
		[[ $(cli mw SCRIPT LOAD "$SCRIPT") == "$SHA" ]] || fatal "SCRIPT LOAD gives different SHA1s"
	fi
fi
if wants BITSORT; then # bitmaps and SORT (issue #19)
	add_workload SETBIT/P16 "SETBIT -P 16" ge 1.0 setbit
	add_workload BITCOUNT/P16 "BITCOUNT (1 kB) -P 16" ge 1.0 setbit bitcount
	add_workload SORT/P1 "SORT (1,000 numbers) -P 1" ge 0.8 rpush sort
fi
if wants HLLGEO; then # HyperLogLog and geo (issue #19)
	# shellcheck disable=SC2086
	add_workload PFADD/P1 "PFADD -P 1" ge 1.0 ${NEEDS[PFADD]}
	# shellcheck disable=SC2086
	add_workload PFCOUNT/P1 "PFCOUNT (one key) -P 1" ge 1.0 ${NEEDS[PFCOUNT]}
	# shellcheck disable=SC2086
	add_workload GEOSEARCH/P1 "GEOSEARCH 100k -P 1" ge 0.8 ${NEEDS[GEOSEARCH]}
fi
GROUP_IDS=()
if wants STREAM; then # streams (issue #18)
	add_workload XADD/P1 "XADD -P 1" ge 1.0 xadd
	add_workload XADD/P16 "XADD -P 16" ge 0.9 xadd
	add_workload XRANGE/P1 "XRANGE 100 entries -P 1" ge 0.9 xadd xrange
	printf '%s\t%s\t%s\t%s\n' "XGROUP/c8" "XREADGROUP+XACK loop, c=8" ge 1.0 >>"$TARGETS"
	GROUP_IDS=(XGROUP/c8)
	has_cmds mw xreadgroup xack || { printf '%s\tnot implemented by miniwatchd yet\n' XGROUP/c8 >>"$SKIPS"; GROUP_IDS=(); }
fi
WATCH_IDS=()
if wants WATCH; then
	for c in $WATCH_CLIENTS; do
		target "WATCH/c$c" "WATCH hot key, c=$c" ge 1.0
		WATCH_IDS+=("WATCH/c$c")
	done
fi
# CONTEND (issue #25): the WATCH loop and SET -P 1 with every CPU busy
CONTEND_WATCH=() CONTEND_IDS=()
if wants CONTEND; then
	for c in $WATCH_CLIENTS; do
		target "CONTEND/WATCH/c$c" "WATCH c=$c, CPUs busy" ge 1.0
		CONTEND_WATCH+=("CONTEND/WATCH/c$c")
	done
	WL_LIST=CONTEND_IDS add_workload CONTEND/SET/P1 "SET -P 1, CPUs busy" ge 1.0 set
fi
# EFFIC (issue #25): server CPU per request or commit; the value is the cpu column
EFFIC_WATCH=() EFFIC_IDS=()
if wants EFFIC; then
	for c in 1 "$CLIENTS"; do
		WL_LIST=EFFIC_IDS add_workload "EFFIC/SET/P1/c$c" "cpu/req SET -P 1 c=$c" le 1.0 set
		WL_LIST=EFFIC_IDS add_workload "EFFIC/GET/P1/c$c" "cpu/req GET -P 1 c=$c" le 1.0 set get
	done
	target EFFIC/WATCH/c1 "cpu/commit WATCH c=1" le 1.0
	EFFIC_WATCH=(EFFIC/WATCH/c1)
fi
# STARTUP (issue #25): process start to first PONG, and the embedding API's
STARTUP_IDS=()
if wants STARTUP; then
	target STARTUP/PROCESS "start to first PONG" le 1.0
	target STARTUP/EMBED "embedded start (vs 5 ms)" le 1.0
	STARTUP_IDS=(STARTUP/PROCESS STARTUP/EMBED)
fi

say "throughput: ${#IDS[@]} workloads x $ROUNDS rounds x 2 servers"
each_round bench_run "${IDS[@]}"

if ((${#WATCH_IDS[@]})); then
	say "contention: watchbench -mode watch-hot at clients $WATCH_CLIENTS x $ROUNDS rounds x 2 servers"
	each_round watch_run "${WATCH_IDS[@]}"
fi
if ((${#GROUP_IDS[@]})); then
	GROUP_PREFILL=${GROUP_PREFILL:-300000}
	((QUICK)) && GROUP_PREFILL=100000
	say "consumer group loop: streambench -clients 8 x $ROUNDS rounds x 2 servers"
	each_round group_run "${GROUP_IDS[@]}"
fi
if ((${#CONTEND_WATCH[@]} + ${#CONTEND_IDS[@]})); then
	say "CPUs busy: watchbench at clients $WATCH_CLIENTS and SET -P 1 beside $(nproc) busy loops x $ROUNDS rounds x 2 servers"
	start_hogs
	each_round watch_run "${CONTEND_WATCH[@]}"
	each_round bench_run "${CONTEND_IDS[@]}"
	stop_hogs
fi
if ((${#EFFIC_WATCH[@]} + ${#EFFIC_IDS[@]})); then
	say "efficiency: server CPU per request, -n $N_EFFIC at 1 and $CLIENTS clients, watchbench at 1 client x $ROUNDS rounds x 2 servers"
	each_round bench_run "${EFFIC_IDS[@]}"
	each_round watch_run "${EFFIC_WATCH[@]}"
fi
stop_servers
if ((${#STARTUP_IDS[@]})); then
	say "start-up: $STARTUP_RUNS starts of each server to its first PONG, and of the embedding API x $ROUNDS rounds"
	each_round startup_run "${STARTUP_IDS[@]}"
fi

if wants CONNS; then # connections (issue #25)
	target CONNS/RSS "RSS/conn, $CONNS_N idle" le 1.5
	target CONNS/SET/P1 "SET -P 1, $CONNS_N idle" ge 1.0
	target CONNS/ACCEPT "connect+PING+close" ge 1.0
	if raise_nofile $((CONNS_N + 300)); then
		say "connections: $CONNS_N idle clients, SET -P 1 beside them, $CONNS_N connect+PING+close x $ROUNDS rounds x 2 fresh servers (ulimit -n $(ulimit -Sn))"
		each_round conns_run CONNS
	else
		for id in CONNS/RSS CONNS/SET/P1 CONNS/ACCEPT; do
			printf '%s\tulimit -n is %s (hard %s), %d clients need %d\n' "$id" "$(ulimit -Sn)" "$(ulimit -Hn)" "$CONNS_N" $((CONNS_N + 300)) >>"$SKIPS"
		done
	fi
fi

if wants STREAM; then
	printf 'XMEMORY\tstream memory, %d entries\tle\t1.5\n' "$MEM_KEYS" >>"$TARGETS"
	STREAMFILE=${TMPDIR:-/tmp}/miniwatchd-bench-xadd-$MEM_KEYS.resp
	if [[ ! -s $STREAMFILE ]]; then
		say "writing $STREAMFILE (XADD bench:mem * f <6 digits>, $MEM_KEYS commands)"
		awk -v n="$MEM_KEYS" 'BEGIN { ORS = ""
			for (i = 0; i < n; i++) printf "*5\r\n$4\r\nXADD\r\n$9\r\nbench:mem\r\n$1\r\n*\r\n$1\r\nf\r\n$6\r\n%06d\r\n", i % 1000000 }' >"$STREAMFILE.$$"
		mv "$STREAMFILE.$$" "$STREAMFILE"
	fi
	stream_mem_run mw
	stream_mem_run redis
fi

if wants MEMORY; then
	printf 'MEMORY\tmemory, %d keys\tle\t1.5\n' "$MEM_KEYS" >>"$TARGETS"
	MEMFILE=${TMPDIR:-/tmp}/miniwatchd-bench-set-$MEM_KEYS.resp
	if [[ ! -s $MEMFILE ]]; then
		say "writing $MEMFILE (SET key:<12 digits> xxx, $MEM_KEYS commands)"
		awk -v n="$MEM_KEYS" 'BEGIN { ORS = ""
			for (i = 0; i < n; i++) printf "*3\r\n$3\r\nSET\r\n$16\r\nkey:%012d\r\n$3\r\nxxx\r\n", i }' >"$MEMFILE.$$"
		mv "$MEMFILE.$$" "$MEMFILE"
	fi
	mem_run mw
	mem_run redis
fi
if wants RDB; then
	target RDBSAVE "SAVE of $MEM_KEYS keys" le 1.5
	target RDBLOAD "load at start, $MEM_KEYS keys" le 1.5
	target RDBRSS "RSS after load / by commands" le 1.2
	MEMFILE=${TMPDIR:-/tmp}/miniwatchd-bench-set-$MEM_KEYS.resp
	if [[ ! -s $MEMFILE ]]; then
		say "writing $MEMFILE (SET key:<12 digits> xxx, $MEM_KEYS commands)"
		awk -v n="$MEM_KEYS" 'BEGIN { ORS = ""
			for (i = 0; i < n; i++) printf "*3\r\n$3\r\nSET\r\n$16\r\nkey:%012d\r\n$3\r\nxxx\r\n", i }' >"$MEMFILE.$$"
		mv "$MEMFILE.$$" "$MEMFILE"
	fi
	rdb_run mw
	rdb_run redis
fi
wants WSCALE && wscale_group
echo "load average $(cut -d' ' -f1-3 /proc/loadavg) at end" | tee -a "$OUT/meta.txt"

# ------------------------------------------------------------------ report
awk -F'\t' -v LA=miniwatchd -v LB=redis '
function median(list,    a, n, i, j, t) {
	n = split(list, a, " ")
	if (n == 0) return ""
	for (i = 2; i <= n; i++) { t = a[i] + 0; for (j = i - 1; j >= 1 && a[j] + 0 > t; j--) a[j + 1] = a[j]; a[j + 1] = t }
	return n % 2 ? a[(n + 1) / 2] + 0 : (a[n / 2] + a[n / 2 + 1]) / 2
}
function lo(list,    a, n, i, m) { n = split(list, a, " "); m = a[1] + 0; for (i = 2; i <= n; i++) if (a[i] + 0 < m) m = a[i] + 0; return m }
function hi(list,    a, n, i, m) { n = split(list, a, " "); m = a[1] + 0; for (i = 2; i <= n; i++) if (a[i] + 0 > m) m = a[i] + 0; return m }
function push(k, v) { if (v != "-" && v != "") L[k] = L[k] " " v }
FILENAME ~ /targets.tsv$/ { ids[++nid] = $1; label[$1] = $2; op[$1] = $3; want[$1] = $4; next }
FILENAME ~ /skips.tsv$/ { skip[$1] = $2; next }
{
	id = $1; s = $2; r = $3
	if ($9 != "ok") { bad[id, s] = bad[id, s] " " $9; nbad[id]++; if ($9 == "lost") lost[id, s]++ }
	if ($9 == "err") next
	v = id ~ /^EFFIC\// ? $7 : $4 # EFFIC: the server CPU per operation is the value
	val[id, s, r] = v; push(id SUBSEP s SUBSEP "v", v)
	if (id ~ /MEMORY$/) { if (id == "MEMORY") { rss0[s] = $5; rss1[s] = $6 } }
	else { push(id SUBSEP s SUBSEP "p50", $5); push(id SUBSEP s SUBSEP "p99", $6); push(id SUBSEP s SUBSEP "cpu", $7); push(id SUBSEP s SUBSEP "ar", $8) }
	rounds[id, r] = 1; seen[id] = 1; runs[id]++
}
END {
	for (k in rounds) { split(k, p, SUBSEP); id = p[1]; r = p[2]
		if ((id, "mw", r) in val && (id, "redis", r) in val && val[id, "redis", r] > 0) push(id SUBSEP "ratio", val[id, "mw", r] / val[id, "redis", r]) }
	printf "\nMedians over rounds; ratio = median of the per-round ratios %s/%s. p99 in ms; server CPU in\n", LA, LB
	printf "microseconds per request or commit (user+system time of the server process / operations).\n\n"
	printf "%-24s %-9s %11s %11s %6s %11s %8s %8s %8s %8s\n", "target", "unit", LA, LB, "ratio", "min-max", "p99 mw", "p99 rds", "cpu mw", "cpu rds"
	for (i = 1; i <= nid; i++) {
		id = ids[i]
		if (id in skip || !(id in seen)) continue
		q = L[id, "ratio"]
		unit = id == "MEMORY" ? "B/key" : id == "XMEMORY" ? "B/entry" : id ~ /^XGROUP/ ? "loops/s" : id ~ /^RDB(SAVE|LOAD)$/ ? "s" : id == "RDBRSS" ? "ratio" : \
			id == "CONNS/RSS" ? "B/conn" : id ~ /^STARTUP/ ? "us" : id == "WSMEM" ? "B/record" : id == "WSDISC" ? "ms" : id == "WSTOUCH" ? "us" : id == "CONNS/ACCEPT" ? "conns/s" : id ~ /^EFFIC\/WATCH/ ? "us/commit" : id ~ /^EFFIC/ ? "us/req" : (id ~ /WATCH/ ? "commits/s" : "req/s")
		printf "%-24s %-9s %11.1f %11.1f %6s %11s %8s %8s %8s %8s\n", label[id], unit, median(L[id, "mw", "v"]), median(L[id, "redis", "v"]),
			q == "" ? "-" : sprintf("%.2f", median(q)), q == "" ? "-" : sprintf("%.2f-%.2f", lo(q), hi(q)),
			median(L[id, "mw", "p99"]), median(L[id, "redis", "p99"]), median(L[id, "mw", "cpu"]), median(L[id, "redis", "cpu"])
		if (id ~ /WATCH/) printf "%-24s %-9s %11.3f %11.3f\n", "", "aborted", median(L[id, "mw", "ar"]), median(L[id, "redis", "ar"])
	}
	if ("MEMORY" in seen) printf "%-24s %-9s %11d %11d  (empty server)\n%-24s %-9s %11d %11d  (after loading)\n", "", "RSS kB", rss0["mw"], rss0["redis"], "", "RSS kB", rss1["mw"], rss1["redis"]
	print ""
	npass = nfail = nskip = 0
	for (i = 1; i <= nid; i++) {
		id = ids[i]
		if (id in skip) { printf "SKIP  %-26s %s\n", label[id], skip[id]; nskip++; continue }
		q = L[id, "ratio"]
		cmp = op[id] == "ge" ? ">=" : "<="
		if (q == "") { printf "FAIL  %-26s no result (runs failed:%s%s; see logs)\n", label[id], bad[id, "mw"], bad[id, "redis"]; nfail++; continue }
		m = median(q)
		ok = op[id] == "ge" ? m >= want[id] : m <= want[id]
		note = ""
		if (nbad[id]) { ok = 0; note = sprintf(", %d failed runs:%s%s", nbad[id], bad[id, "mw"], bad[id, "redis"]) }
		printf "%s  %-26s %.3fx (want %s %.1fx; rounds=%d, range %.2f-%.2f%s)\n", ok ? "PASS" : "FAIL", label[id], m, cmp, want[id], split(q, tmp, " "), lo(q), hi(q), note
		if (ok) npass++; else nfail++
	}
	nw = 0
	for (i = 1; i <= nid; i++) if (ids[i] ~ /WATCH/ && ids[i] in seen) { nw += runs[ids[i]]; nl += lost[ids[i], "mw"] + lost[ids[i], "redis"] }
	if (nw > 0) {
		if (nl == 0) { printf "PASS  %-26s counter equal to commits in all %d runs\n", "WATCH counter check", nw; npass++ }
		else { printf "FAIL  %-26s %d of %d runs lost or invented updates (see logs/*watch*)\n", "WATCH counter check", nl, nw; nfail++ }
	}
	printf "\n%d PASS, %d FAIL, %d SKIP\n", npass, nfail, nskip
	exit (nfail > 0 ? 1 : 0)
}' "$TARGETS" "$SKIPS" "$RUNS" | tee "$OUT/report.txt"
