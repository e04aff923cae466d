import { Cluster, Redis } from "ioredis";
import { afterAll, beforeAll, expect, it } from "vitest";
import { createBreaker, RedisStore, type BreakerStore, type RedisFailMode } from "../../breaker/index.js";
import { sessionKeys } from "../../breaker/stores/redis-keys.js";
import { describeRedis, startRedisCluster, uniquePrefix, waitFor, type RedisCluster, type RedisServer } from "../support/redis-server.js";
import { threadSession } from "../support/graph-helpers.js";
import { expectBounded, expectFailModeBehaviour, runWithFault, slowest, timedStore } from "./support/fault-helpers.js";
import { reportFigures } from "./support/figures.js";

const TIMEOUTS = { commandTimeoutMs: 300, connectTimeoutMs: 500 };
const BOUND_MS = Math.max(TIMEOUTS.commandTimeoutMs, TIMEOUTS.connectTimeoutMs) + 1_000;
// cluster-node-timeout is 2 s in the harness: detection, election and the client's slot refresh fit well within this.
const FAILOVER_DEADLINE_MS = 30_000;

describeRedis("a Redis Cluster master killed, with a replica to fail over to", "binary", () => {
  let cluster: RedisCluster;
  let admin: Cluster;
  const stores: RedisStore[] = [];
  beforeAll(async () => {
    cluster = await startRedisCluster({ masters: 3, replicasPerMaster: 1 });
    admin = new Cluster([{ host: cluster.nodes[0]!.host, port: cluster.nodes[0]!.port }]);
  }, 90_000);
  afterAll(async () => {
    await Promise.all(stores.map((s) => s.close()));
    admin?.disconnect();
    await cluster?.stop();
  });

  /** A session whose keys live on a master that has a live replica, with that master and replica (from CLUSTER NODES). */
  async function sessionOnReplicatedMaster(prefix: string): Promise<{ thread: string; sessionId: string; master: RedisServer; replica: RedisServer }> {
    const byPort = new Map(cluster.nodes.map((n) => [n.port, n]));
    const lines = ((await admin.cluster("NODES")) as string).trim().split("\n").map((line) => line.split(" "));
    const live = lines.filter(([, , flags = ""]) => !flags.includes("fail"));
    const portOf = (address = ""): number => Number(address.split("@")[0]?.split(":").at(-1));
    for (let i = 0; i < 1_000; i++) {
      const thread = `failover-${i}`;
      const sessionId = threadSession(thread);
      const slot = (await admin.cluster("KEYSLOT", sessionKeys(prefix, sessionId).meta)) as number;
      const master = live.find(([, , flags = "", , , , , , ...ranges]) =>
        flags.includes("master") && ranges.some((r) => {
          const [from = -1, to = from] = r.split("-").map(Number);
          return slot >= from && slot <= to;
        }),
      );
      const replica = master && live.find(([, , flags = "", masterId]) => flags.includes("slave") && masterId === master[0]);
      if (master && replica) return { thread, sessionId, master: byPort.get(portOf(master[1]))!, replica: byPort.get(portOf(replica[1]))! };
    }
    throw new Error("no master with a live replica: the cluster is not ready for a failover test");
  }

  /** Wait until the replica holds as many window entries as its master, so the kill loses nothing acknowledged. */
  async function replicated(replica: RedisServer, key: string, length: number): Promise<void> {
    const client = new Redis({ host: replica.host, port: replica.port, lazyConnect: true });
    try {
      await client.connect();
      await client.call("READONLY");
      await waitFor("the replica to catch up", async () => (await client.llen(key)) === length, 10_000);
    } finally {
      client.disconnect();
    }
  }

  /** Wait until `sessionId` is served from Redis again; counts the checks refused meanwhile (closed mode). */
  async function servedAgain(failMode: RedisFailMode, store: BreakerStore, sessionId: string): Promise<number> {
    const breaker = createBreaker({ store });
    let refused = 0;
    await waitFor("the session to be served by the promoted replica", async () => {
      const verdict = await breaker.check(sessionId, { id: `probe-${Date.now()}`, name: "lookup", args: { probe: true } });
      const fromRedis = !verdict.findings.some((f) => f.detector === "store_unavailable");
      if (failMode === "closed") {
        // closed: refused while Redis cannot answer, never allowed on a guess.
        if (!fromRedis) {
          expect(verdict.allowed).toBe(false);
          refused++;
        }
        return fromRedis;
      }
      // open: always answered; back on Redis once the promoted replica holds the session's calls.
      return (await store.snapshot(sessionId).catch(() => null))?.window.some((c) => c.id === "before-0") === true;
    }, FAILOVER_DEADLINE_MS);
    return refused;
  }

  for (const failMode of ["closed", "open"] as RedisFailMode[]) {
    it(`failMode ${failMode}: follows the fail mode during the failover, loses no replicated call, and recovers`, async () => {
      const prefix = uniquePrefix(`failover-${failMode}`);
      const redis = RedisStore.fromUrl(cluster.url, { ...TIMEOUTS, cluster: true, failMode, prefix });
      stores.push(redis);
      const { store, timings } = timedStore(redis);
      const breaker = createBreaker({ store });
      const { thread, sessionId, master, replica } = await sessionOnReplicatedMaster(prefix);

      for (let i = 0; i < 3; i++) {
        const verdict = await breaker.check(sessionId, { id: `before-${i}`, name: "lookup", args: { i } });
        expect(verdict.allowed).toBe(true);
        await breaker.complete(sessionId, `before-${i}`, { output: { i } });
      }
      await replicated(replica, sessionKeys(prefix, sessionId).window, 3);

      await master.kill();
      const killedAt = Date.now();
      let during, refused, recoveredMs;
      try {
        // A whole graph run on that session while its master is gone: it finishes, by the fail mode's rules.
        during = await runWithFault(store, thread, () => {}, FAILOVER_DEADLINE_MS);
        expectFailModeBehaviour(failMode, during, 0);
        refused = await servedAgain(failMode, store, sessionId);
        recoveredMs = Date.now() - killedAt;
        expect((await cluster.roles()).masters).toContain(replica);
      } finally {
        // The old master comes back as a replica, so the next test has a full cluster (and a live seed node).
        await master.restart();
        await waitFor("the old master to rejoin as a replica", async () => (await cluster.roles()).replicas.includes(master), FAILOVER_DEADLINE_MS);
      }

      // Nothing acknowledged and replicated before the kill was lost.
      const snapshot = await breaker.inspect(sessionId);
      expect(snapshot.window.filter((c) => c.id.startsWith("before-")).map((c) => [c.id, c.outcome?.kind])).toEqual([
        ["before-0", "ok"],
        ["before-1", "ok"],
        ["before-2", "ok"],
      ]);
      expectBounded(timings, BOUND_MS);
      const worst = slowest(timings);

      const after = await runWithFault(store, `${thread}-after`, () => {}, FAILOVER_DEADLINE_MS);
      expect(after.result.state.halted).toBe(false);
      expect(after.probe.runs()).toBe(4);
      reportFigures(
        {
          section: "cluster-failover",
          scenario: failMode,
          figures: {
            failMode,
            halted: during.result.state.halted,
            toolRuns: during.probe.runs(),
            refusedChecks: refused,
            recoveredMs,
            replicatedCallsKept: 3,
            slowestOp: worst.op,
            slowestMs: Math.round(worst.ms),
            boundMs: BOUND_MS,
          },
        },
        `cluster failover failMode=${failMode}: run during failover halted=${during.result.state.halted} ` +
          `(tool runs ${during.probe.runs()}/4), refused checks ${refused}, session served by the promoted replica ${recoveredMs} ms after the kill, ` +
          `3/3 replicated calls kept, slowest store op ${worst.op} ${Math.round(worst.ms)} ms (bound ${BOUND_MS} ms)`,
      );
    }, 120_000);
  }
});
