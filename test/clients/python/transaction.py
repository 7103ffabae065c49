"""redis-py's transaction() against forced WATCH conflicts, retries on an
injected LOADING error, and a blocking XREAD. Run by test/clients_test.go:

    python3 transaction.py HOST PORT

It prints one JSON object with what it observed.
"""
import json
import sys
import threading
import time

import redis
from redis.backoff import NoBackoff
from redis.exceptions import BusyLoadingError
from redis.retry import Retry

host, port = sys.argv[1], int(sys.argv[2])
r = redis.Redis(host=host, port=port, decode_responses=True)
out = {}

# Forced WATCH conflicts: a write to "balance" just before each of the next
# two EXECs, so transaction() must retry twice.
r.set("balance", 100)
r.execute_command("DEBUG", "FAULT", "ADD", "CMD", "exec", "TIMES", "2",
                  "RUN-BEFORE", "INCRBY", "balance", "1000")
attempts = 0


def debit(pipe):
    global attempts
    attempts += 1
    balance = int(pipe.get("balance"))
    pipe.multi()
    pipe.set("balance", balance - 30)


out["transaction_result"] = r.transaction(debit, "balance")
out["transaction_attempts"] = attempts
out["balance"] = int(r.get("balance"))
r.execute_command("DEBUG", "FAULT", "CLEAR")

# An injected LOADING error, twice: a client told to retry BusyLoadingError
# gets the value on its third try.
retrying = redis.Redis(host=host, port=port, decode_responses=True,
                       retry=Retry(NoBackoff(), 3), retry_on_error=[BusyLoadingError])
r.set("greeting", "hello")
r.execute_command("DEBUG", "FAULT", "ADD", "CMD", "get", "KEY", "greeting", "TIMES", "2",
                  "ERROR", "LOADING Redis is loading the dataset in memory")
out["get_after_loading"] = retrying.get("greeting")
out["faults"] = r.execute_command("DEBUG", "FAULT", "LIST")
r.execute_command("DEBUG", "FAULT", "CLEAR")

# Blocking XREAD: a reader waits on "$" while another connection adds.
got = {}


def reader():
    got["reply"] = redis.Redis(host=host, port=port, decode_responses=True).xread(
        {"events": "$"}, block=10000)


t = threading.Thread(target=reader)
t.start()
while int(r.execute_command("INFO", "clients")["blocked_clients"]) == 0:
    time.sleep(0.01)
added = r.xadd("events", {"type": "signup", "user": "42"})
t.join()
stream, entries = got["reply"][0]
out["xread_stream"] = stream
out["xread_entries"] = [[eid, fields] for eid, fields in entries]
out["xadd_id"] = added
# An XREAD that times out replies nil (an empty list in redis-py).
out["xread_timeout"] = r.xread({"events": "$"}, block=50)

print(json.dumps(out))
