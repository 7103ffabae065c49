// ioredis's Cluster against a cluster: routing by slot, a multi-key command
// across slots (CROSSSLOT), a MULTI/EXEC on one hash-tagged slot, and MOVED
// followed after a slot moved (CLUSTER SETSLOT + MIGRATE, when the cluster
// has two masters or more). Run by test/clients_test.go:
//
//     node cluster.js HOST PORT
//
// It prints one JSON object with what it observed.
"use strict";
const Redis = require("ioredis");

const [host, port] = [process.argv[2], Number(process.argv[3])];

async function main() {
  const out = {};
  const cluster = new Redis.Cluster([{ host, port }]);
  // The masters and their slot ranges, from CLUSTER SLOTS, with a direct
  // connection to each.
  const ranges = await cluster.call("CLUSTER", "SLOTS");
  const masters = new Map();
  for (const [from, to, [ip, p]] of ranges) {
    if (!masters.has(p)) masters.set(p, { port: p, ip, ranges: [], conn: new Redis({ host, port: p }) });
    masters.get(p).ranges.push([from, to]);
  }
  const sorted = [...masters.values()].sort((a, b) => a.port - b.port);
  out.masters = sorted.map((m) => m.port);
  const slotOf = async (key) => Number(await cluster.call("CLUSTER", "KEYSLOT", key));
  const ownerOf = (slot) => sorted.find((m) => m.ranges.some(([a, b]) => slot >= a && slot <= b));

  // Routing: every key lands on the node that owns its slot.
  for (let i = 0; i < 100; i++) await cluster.set(`key:${i}`, String(i));
  let misplaced = 0;
  for (let i = 0; i < 100; i++) {
    const k = `key:${i}`;
    if ((await ownerOf(await slotOf(k)).conn.get(k)) !== String(i)) misplaced++;
  }
  out.misplaced = misplaced;
  out.dbsizes = [];
  for (const m of sorted) out.dbsizes.push(await m.conn.dbsize());

  // A multi-key command across slots: ioredis sends it to the first key's
  // node, which replies CROSSSLOT and writes nothing.
  out.crossslot = await cluster.mset("a", "1", "b", "2").then(() => "no error", (e) => e.message);
  out.existsAfterCrossslot = (await cluster.exists("a")) + (await cluster.exists("b"));

  // MULTI/EXEC on one slot.
  out.multiExec = await cluster.multi()
    .set("{user:1}balance", "100")
    .incrby("{user:1}balance", 5)
    .rpush("{user:1}log", "deposit")
    .exec();
  out.balance = await cluster.get("{user:1}balance");

  // MOVED: the slot of a key moves to another master as redis-cli --cluster
  // reshard moves it; ioredis, whose slot map is stale, follows MOVED.
  const key = "{moved}k";
  await cluster.set(key, "before the move");
  if (sorted.length > 1) {
    const slot = await slotOf(key);
    const src = ownerOf(slot);
    const dst = sorted.find((m) => m !== src);
    const srcID = await src.conn.call("CLUSTER", "MYID");
    const dstID = await dst.conn.call("CLUSTER", "MYID");
    await dst.conn.call("CLUSTER", "SETSLOT", slot, "IMPORTING", srcID);
    await src.conn.call("CLUSTER", "SETSLOT", slot, "MIGRATING", dstID);
    out.migrate = await src.conn.call("MIGRATE", dst.ip, dst.port, "", 0, 5000, "KEYS", key);
    for (const m of sorted) await m.conn.call("CLUSTER", "SETSLOT", slot, "NODE", dstID);
    out.moved = await src.conn.get(key).then(() => "no error", (e) => e.message);
    out.movedTo = dst.port;
    // cluster.slots: ioredis's slot map (slot -> ["host:port", ...]).
    const before = cluster.slots[slot] ? cluster.slots[slot][0] : "";
    out.getAfterMove = await cluster.get(key);
    out.slotBefore = before;
    out.slotAfter = cluster.slots[slot] ? cluster.slots[slot][0] : "";
    out.setAfterMove = await cluster.set(key, "after the move");
    out.onTarget = await dst.conn.get(key);
  }

  console.log(JSON.stringify(out));
  cluster.disconnect();
  for (const m of sorted) m.conn.disconnect();
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
