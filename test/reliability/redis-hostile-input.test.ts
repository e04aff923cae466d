import { afterAll, beforeAll } from "vitest";
import { RedisStore } from "../../breaker/index.js";
import { describeRedis, startRedisServer, uniquePrefix, type RedisServer } from "../support/redis-server.js";
import { hostileBreakerSuite } from "./support/hostile-breaker-suite.js";

// Item 1 again, through the Lua scripts: lone surrogates, 1 MB strings and BigInt must survive the round trip to Redis.
describeRedis("hostile input through RedisStore", "binary", () => {
  let server: RedisServer;
  const stores: RedisStore[] = [];
  beforeAll(async () => {
    server = await startRedisServer();
  });
  afterAll(async () => {
    await Promise.all(stores.map((s) => s.close()));
    await server?.stop();
  });
  hostileBreakerSuite("standalone Redis", {
    store: () => {
      // closed: a Redis failure would show up as OPEN verdicts, not hide behind the memory fallback.
      const store = RedisStore.fromUrl(server.url, { prefix: uniquePrefix("hostile"), failMode: "closed", commandTimeoutMs: 5_000 });
      stores.push(store);
      return store;
    },
    numRuns: 80,
  });
});
