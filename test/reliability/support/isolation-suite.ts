import fc from "fast-check";
import { expect, it } from "vitest";
import { createBreaker, type Breaker, type BreakerStore, type SessionSnapshot } from "../../../breaker/index.js";
import { sessionKeys } from "../../../breaker/stores/redis-keys.js";
import { hashText } from "../../../breaker/canonical.js";
import { hostileString } from "./hostile-values.js";
import { reportFigures } from "./figures.js";

/** Session ids chosen to break key schemes: braces, globs, separators, newlines, 10 KB, lone surrogates. */
export function adversarialIds(victim: string, prefix: string): string[] {
  const keys = sessionKeys(prefix, victim);
  const tag = hashText(JSON.stringify(victim));
  return [
    "{", "}", "{}", "}{", "*", "?", "[a-z]", ":", "::", "\n", "\r\n", "\u0000",
    `${victim}\n`, `${victim}*`, `{${victim}}`, JSON.stringify(victim), victim.toUpperCase(),
    "x".repeat(10 * 1_024), "{".repeat(10 * 1_024),
    "\ud800", "\udc00", "\ud800\udc00",
    // Ids equal to the victim's hash tag and to its keys, with and without the braces.
    tag, `{${tag}}`, keys.meta, keys.window, keys.log, `${prefix}{${tag}}`,
  ];
}

/** A session with history and a tripped circuit, so there is state to damage. */
export async function buildVictim(breaker: Breaker, victim: string): Promise<SessionSnapshot> {
  for (let i = 0; i < 5; i++) {
    const verdict = await breaker.check(victim, { id: `v${i}`, name: "lookup", args: { q: "same" }, usage: { inputTokens: 10, outputTokens: 5 } });
    if (verdict.allowed) await breaker.complete(victim, `v${i}`, { output: { rows: [] } });
  }
  const snapshot = await breaker.inspect(victim);
  expect(snapshot.circuit.state).toBe("OPEN");
  return snapshot;
}

/** Everything a hostile session does: calls, outcomes, an inspect and (when `reset`) a reset. */
export async function exercise(breaker: Breaker, sessionId: string, reset: boolean): Promise<void> {
  for (let i = 0; i < 3; i++) {
    const verdict = await breaker.check(sessionId, { id: `h${i}`, name: "lookup", args: { q: sessionId.slice(0, 64), i } });
    if (verdict.allowed) await breaker.complete(sessionId, `h${i}`, { output: { i } });
  }
  const own = await breaker.inspect(sessionId);
  expect(own.totalCalls).toBe(3);
  expect(own.sessionId).toBe(sessionId);
  if (reset) await breaker.reset(sessionId);
}

/** What must not change about a session another one touched (the store clock and TTL aside). */
export function stable(snapshot: SessionSnapshot) {
  return { circuit: snapshot.circuit, window: snapshot.window, usage: snapshot.usage, totalCalls: snapshot.totalCalls, runCalls: snapshot.runCalls };
}

/**
 * Isolation through the breaker's API, for any store: hostile sessions never
 * change a victim's snapshot, each keeps its own counts, and `sessions()`
 * lists every id exactly as given.
 */
export function isolationTests(label: string, setup: () => { store: BreakerStore; prefix: string }, numRuns: number): void {
  it(`${label}: adversarial ids never touch another session, by call, inspect or reset`, async () => {
    const { store, prefix } = setup();
    const breaker = createBreaker({ store });
    const victim = `victim-${label}`;
    const before = stable(await buildVictim(breaker, victim));
    const ids = adversarialIds(victim, prefix);
    reportFigures(
      { section: "isolation", scenario: label.toLowerCase().replace(/\W+/g, "-"), figures: { adversarial: ids.length, sessions: ids.length + 1 } },
      `isolation on ${label}: ${ids.length} adversarial sessions next to the victim`,
    );
    for (const id of ids) await exercise(breaker, id, false);
    expect(stable(await breaker.inspect(victim))).toEqual(before);
    const listed = await store.sessions();
    expect(new Set(listed)).toEqual(new Set([victim, ...ids]));
    for (const id of ids) await breaker.reset(id);
    expect(stable(await breaker.inspect(victim))).toEqual(before);
    expect(await store.sessions()).toEqual([victim]);
    await breaker.reset(victim);
  });

  it(`${label}: for arbitrary pairs of distinct ids, one session's activity and reset leave the other unchanged`, async () => {
    const { store } = setup();
    const breaker = createBreaker({ store });
    await fc.assert(
      fc.asyncProperty(fc.tuple(hostileString, hostileString).filter(([a, b]) => a !== b && a.length > 0 && b.length > 0), async ([a, b]) => {
        const victim = stable(await buildVictim(breaker, a));
        await exercise(breaker, b, true);
        expect(stable(await breaker.inspect(a))).toEqual(victim);
        await breaker.reset(a);
      }),
      { numRuns },
    );
    reportFigures({ section: "isolation", scenario: label.toLowerCase().replace(/\W+/g, "-"), figures: { pairRuns: numRuns } }, `isolation on ${label}: ${numRuns} pairs of ids`);
  });
}
