"""redis-py's Sentinel client writing across a failover. Run by
test/repl_sentinel_redispy_test.go:

    python3 sentinel_failover.py SENTINEL_HOST SENTINEL_PORT MASTER_NAME READY_AFTER CONFIRM_AFTER

Through master_for(MASTER_NAME) it writes py:<i> = <i> for i = 0, 1, ...,
each SET followed by WAIT: WAIT 2 while connected to the first master (both
replicas acknowledged it), WAIT 1 on a new master (its remaining replica
did). Once READY_AFTER writes are confirmed it prints "ready" on a line of
its own (the test then stops the master) and keeps writing, retrying
through the errors of the failover, until CONFIRM_AFTER writes are
confirmed on a new master or 60 seconds have passed. Last it prints one
JSON object with what it observed.
"""
import json
import sys
import time

from redis.exceptions import ConnectionError, ReadOnlyError, TimeoutError
from redis.sentinel import Sentinel

host, port, name = sys.argv[1], int(sys.argv[2]), sys.argv[3]
ready_after, confirm_after = int(sys.argv[4]), int(sys.argv[5])

sentinel = Sentinel([(host, port)], socket_timeout=1.0, socket_connect_timeout=1.0)
m = sentinel.master_for(name, socket_timeout=1.0, socket_connect_timeout=1.0,
                        decode_responses=True)
first_port = int(m.info("server")["tcp_port"])
out = {
    "first_port": first_port,
    "confirmed_first": [],  # WAIT 2 on the first master
    "confirmed_new": [],    # WAIT 1 on a new master
    "unconfirmed": 0,       # SET done, WAIT short or cut by the failure
    "errors": {},           # exception class name -> count
    "new_ports": [],        # the pool's master addresses after the first
}


def note_error(e):
    k = type(e).__name__
    out["errors"][k] = out["errors"].get(k, 0) + 1


def current_port():
    addr = m.connection_pool.master_address
    return addr[1] if addr else None


deadline = time.time() + 60
i = 0
ready = False
while time.time() < deadline and len(out["confirmed_new"]) < confirm_after:
    try:
        m.set("py:%d" % i, i)
    except (ConnectionError, TimeoutError, ReadOnlyError) as e:
        note_error(e)
        time.sleep(0.1)
        continue  # the same i again: SET is idempotent
    p = current_port()
    if p != first_port and p not in out["new_ports"]:
        out["new_ports"].append(p)
    want = 2 if p == first_port else 1
    try:
        acked = m.execute_command("WAIT", want, 1000)
    except (ConnectionError, TimeoutError) as e:
        note_error(e)
        acked = -1
    if acked >= want:
        out["confirmed_first" if want == 2 else "confirmed_new"].append(i)
    else:
        out["unconfirmed"] += 1
    i += 1
    if not ready and len(out["confirmed_first"]) >= ready_after:
        ready = True
        print("ready", flush=True)

out["writes"] = i
# The server the client talks to now says which it is.
out["final_port"] = int(m.info("server")["tcp_port"])
out["final_role"] = m.info("replication")["role"]
print(json.dumps(out), flush=True)
