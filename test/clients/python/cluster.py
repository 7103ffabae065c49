"""redis-py's RedisCluster against a cluster: routing by slot, a multi-key
command across slots (CROSSSLOT), a MULTI/EXEC on one hash-tagged slot, and
MOVED followed after a slot moved (CLUSTER SETSLOT + MIGRATE, when the
cluster has two masters or more). Run by test/clients_test.go:

    python3 cluster.py HOST PORT

It prints one JSON object with what it observed.
"""
import json
import sys

from redis.cluster import RedisCluster
from redis.exceptions import RedisClusterException, ResponseError

host, port = sys.argv[1], int(sys.argv[2])
rc = RedisCluster(host=host, port=port, decode_responses=True)
out = {}
masters = sorted(rc.get_primaries(), key=lambda n: n.port)
out["masters"] = [n.port for n in masters]


def conn(node):
    return rc.get_redis_connection(node)


# Routing: every key lands on the node that owns its slot.
for i in range(100):
    rc.set(f"key:{i}", i)
misplaced = 0
for i in range(100):
    k = f"key:{i}"
    if conn(rc.get_node_from_key(k)).get(k) != str(i):
        misplaced += 1
out["misplaced"] = misplaced
out["dbsizes"] = [conn(n).dbsize() for n in masters]

# A multi-key command across slots: redis-py refuses it itself; sent to a
# node as it is, the server replies CROSSSLOT and writes nothing.
try:
    rc.mset({"a": "1", "b": "2"})
    out["client_crossslot"] = "no error"
except RedisClusterException as e:
    out["client_crossslot"] = type(e).__name__
try:
    rc.execute_command("MSET", "a", "1", "b", "2", target_nodes=rc.get_node_from_key("a"))
    out["crossslot"] = "no error"
except ResponseError as e:
    out["crossslot"] = f"{type(e).__name__}: {e}"
out["exists_after_crossslot"] = rc.exists("a") + rc.exists("b")

# MULTI/EXEC on one slot: RedisCluster's pipelines are not transactions,
# so the transaction goes to the slot's node.
tx = conn(rc.get_node_from_key("{user:1}balance")).pipeline(transaction=True)
tx.set("{user:1}balance", 100)
tx.incrby("{user:1}balance", 5)
tx.rpush("{user:1}log", "deposit")
out["multi_exec"] = tx.execute()
out["balance"] = rc.get("{user:1}balance")
# A transaction whose keys span slots of the node: EXEC is refused.
other = next(k for k in (f"{{t{i}}}" for i in range(1000))
             if rc.keyslot(k) != rc.keyslot("{user:1}")
             and rc.get_node_from_key(k) == rc.get_node_from_key("{user:1}"))
tx = conn(rc.get_node_from_key("{user:1}balance")).pipeline(transaction=True)
tx.incr("{user:1}balance")
tx.incr(other)
try:
    tx.execute()
    out["crossslot_exec"] = "no error"
except ResponseError as e:
    out["crossslot_exec"] = f"{type(e).__name__}: {e}"
out["balance_after_crossslot_exec"] = rc.get("{user:1}balance")

# MOVED: the slot of a key moves to another master as redis-cli --cluster
# reshard moves it; the client, whose slot map is stale, follows MOVED.
key = "{moved}k"
rc.set(key, "before the move")
if len(masters) > 1:
    slot = rc.keyslot(key)
    src = rc.get_node_from_key(key)
    dst = next(n for n in masters if n.port != src.port)
    s, d = conn(src), conn(dst)
    src_id, dst_id = s.execute_command("CLUSTER", "MYID"), d.execute_command("CLUSTER", "MYID")
    d.execute_command("CLUSTER", "SETSLOT", slot, "IMPORTING", src_id)
    s.execute_command("CLUSTER", "SETSLOT", slot, "MIGRATING", dst_id)
    out["migrate"] = s.execute_command("MIGRATE", dst.host, dst.port, "", 0, 5000, "KEYS", key)
    for n in masters:
        conn(n).execute_command("CLUSTER", "SETSLOT", slot, "NODE", dst_id)
    try:
        s.get(key)
        out["moved"] = "no error"
    except ResponseError as e:  # redis-py keeps the text after "MOVED "
        out["moved"] = f"{type(e).__name__}: {e}"
    out["moved_to"] = dst.port
    out["get_after_move"] = rc.get(key)
    out["node_after_move"] = rc.get_node_from_key(key).port
    out["set_after_move"] = rc.set(key, "after the move")
    out["on_target"] = d.get(key)

print(json.dumps(out))
