import { Redis } from "ioredis";
import { afterAll, beforeAll, expect, it } from "vitest";
import { twoRoundTripChecker } from "../../bench/baselines/two-round-trip-checker.js";
import { benchCall, benchPolicy } from "../../bench/lib/calls.js";
import { describeRedis, standaloneRedis, uniquePrefix } from "../support/redis-server.js";

describeRedis("two-round-trip baseline (bench)", "server", () => {
  let redis: Awaited<ReturnType<typeof standaloneRedis>>;
  let client: Redis;

  beforeAll(async () => {
    redis = await standaloneRedis();
    client = new Redis(redis.url);
  });

  afterAll(async () => {
    await client?.quit();
    await redis?.stop();
  });

  it("keeps a capped, expiring window and stops an identical repeat, as the breaker would", async () => {
    const prefix = uniquePrefix("seed");
    const policy = benchPolicy(12);
    const checker = twoRoundTripChecker(client, policy, prefix);
    for (let n = 0; n < 20; n++) {
      const call = benchCall("s", n);
      const answer = await checker.check("s", call.request);
      expect(answer).toEqual({ step: n + 1, state: "CLOSED" });
      await checker.complete("s", { id: call.request.id, step: answer.step }, call.outcome);
    }
    expect(await client.llen(`${prefix}s:window`)).toBe(12);
    expect(await client.pttl(`${prefix}s:window`)).toBeGreaterThan(0);

    const repeat = benchCall("s", 100);
    const states = [];
    for (let i = 0; i < 6; i++) {
      const answer = await checker.check("s", { ...repeat.request, id: `r${i}` });
      states.push(answer.state);
      await checker.complete("s", { id: `r${i}`, step: answer.step }, { kind: "error", fingerprint: "same" });
    }
    expect(states).toContain("OPEN");
    expect(states[0]).toBe("CLOSED");
  });
});
