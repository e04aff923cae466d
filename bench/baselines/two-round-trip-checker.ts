import type { Redis } from "ioredis";
import {
  decide,
  freshCircuit,
  noUsage,
  type CallRecord,
  type CircuitRecord,
  type Policy,
  type ToolCallRequest,
} from "../../breaker/index.js";
import { newCallOf } from "../lib/calls.js";
import type { Checker } from "../lib/check-workload.js";

const OUTCOME = "o:";

/**
 * The seed's Redis check, kept as the baseline RedisStore must beat: read the
 * window and the state in one pipeline (LRANGE + HGETALL), decide in the
 * client, then write in a second pipeline (RPUSH + LTRIM + HSET + PEXPIRE).
 * Two round trips, and not atomic: two workers checking one session at once
 * both read the same history. It does less than the breaker (no idempotency,
 * no run rollover, no usage totals), which only flatters it.
 */
export function twoRoundTripChecker(client: Redis, policy: Policy, prefix = "seed:"): Checker {
  const keysOf = (sessionId: string) => ({ window: `${prefix}${sessionId}:window`, state: `${prefix}${sessionId}:state` });
  const ttlMs = policy.ttlSeconds * 1_000;

  return {
    async check(sessionId: string, call: ToolCallRequest) {
      const keys = keysOf(sessionId);
      const read = await client.pipeline().lrange(keys.window, 0, -1).hgetall(keys.state).exec();
      const entries = (read?.[0]?.[1] ?? []) as string[];
      const state = (read?.[1]?.[1] ?? {}) as Record<string, string>;
      const now = Date.now();
      const window: CallRecord[] = entries.map((entry) => {
        const record = JSON.parse(entry) as CallRecord;
        const outcome = state[`${OUTCOME}${record.step}`];
        return outcome ? { ...record, outcome: JSON.parse(outcome) } : record;
      });
      const step = Number(state.total ?? 0) + 1;
      const record: CallRecord = { ...newCallOf(call), step, at: now };
      const circuit: CircuitRecord = state.circuit ? JSON.parse(state.circuit) : freshCircuit(record.run);
      const open = circuit.state === "OPEN" && circuit.openUntil > now;
      const decision = open
        ? { state: circuit.state, findings: circuit.findings }
        : decide({ window: [...window, record], circuit, usage: noUsage(), runCalls: step, now, policy });
      const next: CircuitRecord = open ? circuit : { ...circuit, state: decision.state, findings: decision.findings, asOf: step };
      const write = client
        .pipeline()
        .rpush(keys.window, JSON.stringify(record))
        .ltrim(keys.window, -policy.windowSize, -1)
        .hset(keys.state, { total: step, circuit: JSON.stringify(next) });
      const evicted = step - policy.windowSize;
      if (evicted > 0) write.hdel(keys.state, `${OUTCOME}${evicted}`);
      await write.pexpire(keys.window, ttlMs).pexpire(keys.state, ttlMs).exec();
      return { step, state: decision.state };
    },

    async complete(sessionId, call, outcome) {
      await client.hset(keysOf(sessionId).state, `${OUTCOME}${call.step}`, JSON.stringify(outcome));
    },
  };
}
