// ioredis against forced WATCH conflicts, injected errors and a blocking
// XREAD. Run by test/clients_test.go:
//
//     node retry.js HOST PORT
//
// It prints one JSON object with what it observed.
"use strict";
const Redis = require("ioredis");

const [host, port] = [process.argv[2], Number(process.argv[3])];

async function main() {
  const out = {};
  const r = new Redis({ host, port });

  // An optimistic-locking retry loop: WATCH, read, MULTI/EXEC; exec()
  // resolves to null when a watched key changed.
  async function reserve(key) {
    for (let attempt = 1; attempt <= 10; attempt++) {
      await r.watch(key);
      const stock = Number(await r.get(key));
      const res = await r.multi().set(key, String(stock - 1)).exec();
      if (res !== null) return attempt;
    }
    throw new Error("too many conflicts");
  }
  await r.set("stock", "50");
  // A conflicting write right after the first WATCH of "stock", and one
  // just before the next EXEC: the first reservation needs three attempts.
  await r.call("DEBUG", "FAULT", "ADD", "CMD", "watch", "KEY", "stock", "NTH", "1",
    "RUN-AFTER", "DECRBY", "stock", "10");
  await r.call("DEBUG", "FAULT", "ADD", "CMD", "exec", "NTH", "2", "TIMES", "1",
    "RUN-BEFORE", "DECRBY", "stock", "5");
  out.reserveAttempts = [await reserve("stock"), await reserve("stock")];
  out.stock = Number(await r.get("stock"));
  await r.call("DEBUG", "FAULT", "CLEAR");

  // ioredis's reconnectOnError: a READONLY reply (as after a failover)
  // makes it reconnect and resend the command.
  let reconnects = 0;
  const failover = new Redis({
    host, port,
    reconnectOnError(err) {
      if (err.message.startsWith("READONLY")) {
        reconnects++;
        return 2; // reconnect and resend the failed command
      }
      return false;
    },
  });
  await r.call("DEBUG", "FAULT", "ADD", "CMD", "set", "KEY", "config", "TIMES", "2",
    "ERROR", "READONLY You can't write against a read only replica.");
  out.setAfterReadonly = await failover.set("config", "v2");
  out.readonlyReconnects = reconnects;
  out.config = await r.get("config");
  await r.call("DEBUG", "FAULT", "CLEAR");

  // A connection closed under a command: ioredis reconnects and resends it.
  await r.call("DEBUG", "FAULT", "ADD", "CMD", "incr", "TIMES", "1", "CLOSE-BEFORE");
  out.incrAfterClose = await failover.incr("visits");
  out.faultsAfterClose = await r.call("DEBUG", "FAULT", "LIST");
  await r.call("DEBUG", "FAULT", "CLEAR");

  // Blocking XREAD: the reader waits on "$" until another connection adds.
  const reader = new Redis({ host, port });
  const pending = reader.xread("BLOCK", 10000, "STREAMS", "orders", "$");
  for (;;) {
    const info = await r.info("clients");
    if (/blocked_clients:[1-9]/.test(info)) break;
    await new Promise((res) => setTimeout(res, 10));
  }
  out.xaddId = await r.xadd("orders", "*", "item", "book", "qty", "2");
  out.xread = await pending;
  out.xreadTimeout = await reader.xread("BLOCK", 50, "STREAMS", "orders", "$");

  console.log(JSON.stringify(out));
  for (const c of [r, failover, reader]) c.disconnect();
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
