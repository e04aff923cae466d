import { afterAll, beforeAll } from "vitest";
import { describeRedis, standaloneRedis } from "../support/redis-server.js";
import { storeContract } from "./store-contract.js";
import { sleep, TestStores } from "./redis-test-stores.js";

describeRedis("RedisStore (standalone): store contract", "server", () => {
  let redis: Awaited<ReturnType<typeof standaloneRedis>> | undefined;
  const stores = new TestStores(() => redis!.url);
  beforeAll(async () => {
    redis = await standaloneRedis();
  });
  afterAll(async () => {
    await stores.cleanup();
    await redis?.stop();
  });
  storeContract({ create: () => stores.create(), elapse: sleep });
});
