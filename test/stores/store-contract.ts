// The behaviour every BreakerStore must have, as one list of cases that the
// MemoryStore and RedisStore (standalone and Cluster) suites all run.
import fc from "fast-check";
import { beforeEach, expect, it } from "vitest";
import { createBreaker } from "../../breaker/breaker.js";
import { canonicalArgs, hashText } from "../../breaker/canonical.js";
import type { BreakerStore, CircuitClaim, NewCall, StoreLimits } from "../../breaker/stores/store.js";
import type { CircuitRecord, ToolCallRequest, Verdict } from "../../breaker/types.js";

/** What a store suite provides to the contract. */
export interface StoreHarness {
  /** A new store with no sessions (Redis suites: a fresh key prefix, failMode "closed"). */
  create(): BreakerStore;
  /** Let `ms` of store time pass (a fake clock, or real time for Redis). */
  elapse(ms: number): Promise<void>;
}

const LIMITS: StoreLimits = { maxEntries: 50, ttlSeconds: 60 };

/** A call to record; `n` varies the arguments. */
export function newCall(id: string, options: { run?: string; n?: number; usage?: NewCall["usage"] } = {}): NewCall {
  const args = canonicalArgs({ query: "weather", page: options.n ?? 1 });
  const call: NewCall = { id, tool: "search", args, argsHash: hashText(args), run: options.run ?? "r1" };
  if (options.usage) call.usage = options.usage;
  return call;
}

function circuit(patch: Partial<CircuitRecord>): CircuitRecord {
  return { state: "CLOSED", openUntil: 0, run: "r1", since: 0, findings: [], asOf: 0, ...patch };
}

const ids = (calls: readonly { id: string }[]): string[] => calls.map((c) => c.id);
const admitted = (verdicts: Verdict[]): number[] => verdicts.filter((v) => v.allowed).map((v) => v.step).sort((a, b) => a - b);

/** Register the contract's cases in the current describe block. */
export function storeContract(harness: StoreHarness): void {
  let store: BreakerStore;
  beforeEach(() => {
    store = harness.create();
  });

  it("stamps consecutive steps with the store clock and returns the window up to the call", async () => {
    const results = [];
    for (const id of ["a", "b", "c"]) results.push(await store.record("s1", newCall(id), LIMITS));
    expect(results.map((r) => r.record.step)).toEqual([1, 2, 3]);
    expect(results.map((r) => ids(r.window))).toEqual([["a"], ["a", "b"], ["a", "b", "c"]]);
    expect(results.map((r) => [r.totalCalls, r.runCalls, r.duplicate])).toEqual([[1, 1, false], [2, 2, false], [3, 3, false]]);
    for (const r of results) expect(r.record.at).toBe(r.now);
    expect(results[2]!.now).toBeGreaterThanOrEqual(results[0]!.now);
    expect(results[0]!.circuit).toEqual(circuit({}));
    expect(results[0]!.record).toMatchObject({ id: "a", tool: "search", run: "r1", args: newCall("a").args, argsHash: newCall("a").argsHash });
  });

  it("records a call id once: a repeat returns the original and the window up to it", async () => {
    await store.record("s1", newCall("a", { usage: { inputTokens: 10, outputTokens: 2, costMicros: 5 } }), LIMITS);
    await store.record("s1", newCall("b"), LIMITS);
    const again = await store.record("s1", newCall("a", { n: 9, usage: { inputTokens: 99, outputTokens: 9, costMicros: 9 } }), LIMITS);
    expect(again.duplicate).toBe(true);
    expect(again.record.step).toBe(1);
    expect(again.record.args).toBe(newCall("a").args);
    expect(ids(again.window)).toEqual(["a"]);
    expect(again.totalCalls).toBe(2);
    expect(again.usage).toEqual({ inputTokens: 10, outputTokens: 2, costMicros: 5 });
    expect(ids((await store.snapshot("s1"))!.window)).toEqual(["a", "b"]);
  });

  it("sums usage over calls", async () => {
    await store.record("s1", newCall("a", { usage: { inputTokens: 10, outputTokens: 2, costMicros: 5 } }), LIMITS);
    await store.record("s1", newCall("b"), LIMITS);
    const r = await store.record("s1", newCall("c", { usage: { inputTokens: 1, outputTokens: 20, costMicros: 300 } }), LIMITS);
    expect(r.usage).toEqual({ inputTokens: 11, outputTokens: 22, costMicros: 305 });
  });

  it("starts a fresh CLOSED circuit on a new run and keeps session totals", async () => {
    await store.record("s1", newCall("a", { usage: { inputTokens: 1, outputTokens: 1, costMicros: 1 } }), LIMITS);
    await store.record("s1", newCall("b"), LIMITS);
    await store.transition("s1", circuit({ state: "HALF_OPEN", asOf: 2, findings: [{ detector: "x", scope: "run", severity: "warn", message: "m", steps: [2] }] }), LIMITS);
    const next = await store.record("s1", newCall("c", { run: "r2" }), LIMITS);
    expect(next.circuit).toEqual(circuit({ run: "r2", asOf: 2 }));
    expect([next.totalCalls, next.runCalls, next.record.step]).toEqual([3, 1, 3]);
    expect(next.usage.inputTokens).toBe(1);
    expect(ids(next.window)).toEqual(["a", "b", "c"]);
    const after = await store.record("s1", newCall("d", { run: "r2" }), LIMITS);
    expect([after.totalCalls, after.runCalls]).toEqual([4, 2]);
    // A late write for the old run cannot touch the new one.
    await store.transition("s1", circuit({ state: "OPEN", asOf: 9 }), LIMITS);
    expect((await store.snapshot("s1"))!.circuit).toEqual(circuit({ run: "r2", asOf: 2 }));
  });

  it("caps the window, forgetting the oldest calls and their outcomes", async () => {
    const small = { ...LIMITS, maxEntries: 3 };
    for (let i = 1; i <= 5; i++) await store.record("s1", newCall(`c${i}`, { n: i }), small);
    const snap = (await store.snapshot("s1"))!;
    expect(snap.window.map((c) => c.step)).toEqual([3, 4, 5]);
    expect(snap.totalCalls).toBe(5);
    expect(await store.complete("s1", "c1", { kind: "ok", fingerprint: "f" }, small)).toBe(false);
    // A trimmed id is unknown again: recorded as a new call.
    const again = await store.record("s1", newCall("c1"), small);
    expect([again.duplicate, again.record.step]).toEqual([false, 6]);
    expect(ids(again.window)).toEqual(["c4", "c5", "c1"]);
  });

  it("attaches outcomes to recorded calls only", async () => {
    await store.record("s1", newCall("a"), LIMITS);
    await store.record("s1", newCall("b"), LIMITS);
    expect(await store.complete("s1", "a", { kind: "empty", fingerprint: "f1" }, LIMITS)).toBe(true);
    expect(await store.complete("s1", "a", { kind: "ok", fingerprint: "f2" }, LIMITS)).toBe(true);
    expect(await store.complete("s1", "zz", { kind: "ok", fingerprint: "f" }, LIMITS)).toBe(false);
    expect(await store.complete("nobody", "a", { kind: "ok", fingerprint: "f" }, LIMITS)).toBe(false);
    expect(await store.snapshot("nobody")).toBeNull();
    const next = await store.record("s1", newCall("c"), LIMITS);
    expect(next.window.map((c) => c.outcome)).toEqual([{ kind: "ok", fingerprint: "f2" }, undefined, undefined]);
  });

  it("ignores transitions that are older, of another run, or for unknown sessions", async () => {
    for (const id of ["a", "b", "c"]) await store.record("s1", newCall(id), LIMITS);
    const open = circuit({ state: "OPEN", openUntil: 123, asOf: 3, findings: [{ detector: "d", scope: "session", severity: "block", message: "stop", steps: [1, 2, 3] }] });
    await store.transition("s1", open, LIMITS);
    expect((await store.snapshot("s1"))!.circuit).toEqual(open);
    await store.transition("s1", circuit({ state: "HALF_OPEN", asOf: 2 }), LIMITS);
    await store.transition("s1", circuit({ state: "CLOSED", asOf: 5, run: "other" }), LIMITS);
    expect((await store.snapshot("s1"))!.circuit).toEqual(open);
    const same = circuit({ state: "HALF_OPEN", asOf: 3 });
    await store.transition("s1", same, LIMITS);
    expect((await store.snapshot("s1"))!.circuit).toEqual(same);
    await store.transition("ghost", open, LIMITS);
    expect(await store.snapshot("ghost")).toBeNull();
  });

  it("expires an idle session after its TTL", async () => {
    const short = { ...LIMITS, ttlSeconds: 1 };
    await store.record("s1", newCall("a"), short);
    await store.record("s2", newCall("a"), LIMITS);
    expect(await store.snapshot("s1")).not.toBeNull();
    await harness.elapse(1_300);
    expect(await store.snapshot("s1")).toBeNull();
    expect(await store.sessions()).toEqual(["s2"]);
    expect(await store.complete("s1", "a", { kind: "ok", fingerprint: "f" }, short)).toBe(false);
    const fresh = await store.record("s1", newCall("b"), short);
    expect([fresh.record.step, fresh.totalCalls]).toEqual([1, 1]);
  });

  it("keeps sessions apart and resets one without touching another", async () => {
    const hostile = ["{", "}", "*", "a:b", "\n", "s1", "x".repeat(10_240)];
    for (const [i, id] of hostile.entries()) await store.record(id, newCall(`call-${i}`), LIMITS);
    for (const [i, id] of hostile.entries()) {
      const snap = (await store.snapshot(id))!;
      expect(snap.sessionId).toBe(id);
      expect(ids(snap.window)).toEqual([`call-${i}`]);
    }
    expect((await store.sessions()).sort()).toEqual([...hostile].sort());
    await store.reset("*");
    expect(await store.snapshot("*")).toBeNull();
    expect((await store.sessions()).sort()).toEqual(hostile.filter((id) => id !== "*").sort());
    expect((await store.snapshot("{"))!.totalCalls).toBe(1);
  });

  it("gives concurrent records of one session one linear history", async () => {
    const calls = Array.from({ length: 50 }, (_, i) => newCall(`p${i}`, { n: i }));
    const results = await Promise.all(calls.map((c) => store.record("s1", c, { ...LIMITS, maxEntries: 100 })));
    expect(results.map((r) => r.record.step).sort((a, b) => a - b)).toEqual(Array.from({ length: 50 }, (_, i) => i + 1));
    for (const r of results) expect(r.window.map((c) => c.step)).toEqual(Array.from({ length: r.record.step }, (_, i) => i + 1));
    const snap = (await store.snapshot("s1"))!;
    const stepOf = new Map(results.map((r) => [r.record.id, r.record.step]));
    expect(snap.window.map((c) => stepOf.get(c.id))).toEqual(snap.window.map((c) => c.step));
  });

  it("admits exactly 3 of 50 concurrent identical checks when the 4th identical call blocks", async () => {
    const breaker = createBreaker({ store, policy: { detectors: { identical_repeat: { warn: 3, block: 4 } } } });
    for (let round = 0; round < 3; round++) {
      const verdicts = await Promise.all(
        Array.from({ length: 50 }, (_, i) => breaker.check(`burst-${round}`, { id: `c${i}`, name: "search", args: { q: "same" } })),
      );
      expect(admitted(verdicts)).toEqual([1, 2, 3]);
      expect(verdicts.filter((v) => !v.allowed).every((v) => v.state === "OPEN")).toBe(true);
    }
  });

  it("answers a repeated check with the same verdict without counting it again", async () => {
    const breaker = createBreaker({ store, policy: { detectors: { identical_repeat: { warn: 2, block: 3 } } } });
    const first = await breaker.check("s1", { id: "a", name: "search", args: { q: 1 } });
    const second = await breaker.check("s1", { id: "b", name: "search", args: { q: 1 } });
    expect(await breaker.check("s1", { id: "b", name: "search", args: { q: 1 } })).toEqual(second);
    expect([first.state, second.state]).toEqual(["CLOSED", "HALF_OPEN"]);
    expect((await breaker.inspect("s1")).totalCalls).toBe(2);
  });

  it("refuses calls while OPEN and gives a clean slate once OPEN expires", async () => {
    const breaker = createBreaker({ store, policy: { openSeconds: 1, detectors: { identical_repeat: { warn: 2, block: 3 } } } });
    const closes: number[] = [];
    breaker.on("close", (e) => closes.push(e.step));
    const states = [];
    for (const id of ["a", "b", "c"]) states.push((await breaker.check("s1", { id, name: "search", args: { q: 1 } })).state);
    expect(states).toEqual(["CLOSED", "HALF_OPEN", "OPEN"]);
    const refused = await breaker.check("s1", { id: "d", name: "search", args: { q: 2 } });
    expect([refused.allowed, refused.findings[0]?.detector]).toEqual([false, "identical_repeat"]);
    await harness.elapse(1_300);
    const after = await breaker.check("s1", { id: "e", name: "search", args: { q: 1 } });
    expect([after.allowed, after.state, after.step]).toEqual([true, "CLOSED", 5]);
    expect(closes).toEqual([5]);
    expect((await breaker.inspect("s1")).circuit).toMatchObject({ state: "CLOSED", since: 4, asOf: 5 });
  });

  it("records a batch in one step: consecutive steps, one clock, repeats found inside the batch and before it", async () => {
    await store.record("s1", newCall("a"), LIMITS);
    const batch = await store.recordBatch("s1", [newCall("b"), newCall("a"), newCall("c", { n: 2 }), newCall("b")], LIMITS);
    expect(batch.steps).toEqual([
      { step: 2, duplicate: false },
      { step: 1, duplicate: true },
      { step: 3, duplicate: false },
      { step: 2, duplicate: true },
    ]);
    expect(ids(batch.calls)).toEqual(["a", "b", "c"]);
    expect(batch.calls.map((c) => c.step)).toEqual([1, 2, 3]);
    expect(batch.calls.slice(1).every((c) => c.at === batch.now)).toBe(true);
    expect([batch.totalCalls, batch.runStart, batch.decided]).toEqual([3, 1, 0]);
    expect(batch.circuit).toEqual(circuit({}));
    expect(typeof batch.epoch).toBe("string");
  });

  it("rolls a batch over to a new run at the first call of that run, and adds each call's usage once", async () => {
    await store.record("s1", newCall("a", { usage: { inputTokens: 5, outputTokens: 1, costMicros: 2 } }), LIMITS);
    const batch = await store.recordBatch(
      "s1",
      [newCall("b", { run: "r2", usage: { inputTokens: 10, outputTokens: 0, costMicros: 7 } }), newCall("c", { run: "r2" }), newCall("b", { run: "r2" })],
      LIMITS,
    );
    expect(batch.steps.map((s) => s.step)).toEqual([2, 3, 2]);
    expect([batch.runStart, batch.decided]).toEqual([2, 1]);
    expect(batch.circuit).toEqual(circuit({ run: "r2", asOf: 1 }));
    expect(batch.usage).toEqual({ inputTokens: 15, outputTokens: 1, costMicros: 9 });
    // The history says what each call added, so a replay can tell the totals at any step.
    expect(batch.calls.map((c) => c.usage)).toEqual([
      { inputTokens: 5, outputTokens: 1, costMicros: 2 },
      { inputTokens: 10, outputTokens: 0, costMicros: 7 },
      undefined,
    ]);
  });

  it("completes a batch in one step, and logs each outcome with the call count at the time", async () => {
    await store.recordBatch("s1", [newCall("a"), newCall("b"), newCall("c", { n: 2 })], LIMITS);
    const applied = await store.completeBatch(
      "s1",
      [
        { callId: "a", outcome: { kind: "ok", fingerprint: "fa" } },
        { callId: "zz", outcome: { kind: "ok", fingerprint: "fz" } },
        { callId: "c", outcome: { kind: "error", fingerprint: "fc" } },
      ],
      LIMITS,
    );
    expect(applied).toEqual([true, false, true]);
    expect(await store.completeBatch("nobody", [{ callId: "a", outcome: { kind: "ok", fingerprint: "f" } }], LIMITS)).toEqual([false]);
    await store.record("s1", newCall("d", { n: 3 }), LIMITS);
    await store.complete("s1", "a", { kind: "empty", fingerprint: "fa2" }, LIMITS);
    const next = await store.recordBatch("s1", [newCall("e", { n: 4 })], LIMITS);
    expect(next.calls.map((c) => c.outcome?.fingerprint)).toEqual(["fa2", undefined, "fc", undefined, undefined]);
    expect(next.reports).toEqual([
      { step: 1, seq: 3, outcome: { kind: "ok", fingerprint: "fa" } },
      { step: 3, seq: 3, outcome: { kind: "error", fingerprint: "fc" } },
      { step: 1, seq: 4, outcome: { kind: "empty", fingerprint: "fa2" } },
    ]);
  });

  it("keeps every field of an outcome", async () => {
    await store.record("s1", newCall("a"), LIMITS);
    const outcome = { kind: "error" as const, fingerprint: "f,with,commas", transient: true, inProgress: false, ids: "h1" };
    expect(await store.complete("s1", "a", outcome, LIMITS)).toBe(true);
    expect((await store.snapshot("s1"))!.window[0]!.outcome).toEqual(outcome);
    expect((await store.recordBatch("s1", [newCall("b")], LIMITS)).reports).toEqual([{ step: 1, seq: 1, outcome }]);
  });

  it("moves the decided mark on a claim that names the stored circuit, and ignores any other", async () => {
    const first = await store.recordBatch("s1", [newCall("a"), newCall("b"), newCall("c", { n: 2 })], LIMITS);
    const claim = (patch: Partial<CircuitClaim>): CircuitClaim => ({ epoch: first.epoch, run: "r1", asOf: 0, through: 2, ...patch });
    const decidedAfter = async (c: CircuitClaim): Promise<number> => (await store.recordBatch("s1", [], LIMITS, c)).decided;
    expect(await decidedAfter(claim({ epoch: "another" }))).toBe(0);
    expect(await decidedAfter(claim({ run: "r9" }))).toBe(0);
    expect(await decidedAfter(claim({ asOf: 1 }))).toBe(0);
    expect(await decidedAfter(claim({ through: 4 }))).toBe(0);
    expect(await decidedAfter(claim({}))).toBe(2);
    expect(await decidedAfter(claim({ through: 1 }))).toBe(2);
    // A completion carries a claim too.
    await store.completeBatch("s1", [{ callId: "c", outcome: { kind: "ok", fingerprint: "f" } }], LIMITS, claim({ through: 3 }));
    expect(await decidedAfter(claim({ through: 1 }))).toBe(3);
    // A transition moves it, once it names this epoch; it cannot move it back.
    const half = circuit({ state: "HALF_OPEN", asOf: 3 });
    await store.transition("s1", half, LIMITS, { epoch: "another", through: 3 });
    expect((await store.snapshot("s1"))!.circuit).toEqual(circuit({}));
    await store.transition("s1", half, LIMITS, { epoch: first.epoch, through: 3 });
    expect((await store.snapshot("s1"))!.circuit).toEqual(half);
    await store.transition("s1", circuit({ state: "OPEN", asOf: 3 }), LIMITS, { epoch: first.epoch, through: 2 });
    expect((await store.snapshot("s1"))!.circuit).toEqual(half);
  });

  it("keeps what an undecided step's window needs (at most twice the window) and shows only the window", async () => {
    const small = { ...LIMITS, maxEntries: 3 };
    let last = await store.recordBatch("s1", [newCall("c1", { n: 1 })], small);
    for (let i = 2; i <= 9; i++) last = await store.recordBatch("s1", [newCall(`c${i}`, { n: i })], small);
    // Nothing decided: the history holds 6 calls, the snapshot and repeats see the last 3.
    const kept = await store.recordBatch("s1", [newCall("c10", { n: 10 })], small);
    expect(kept.calls.map((c) => c.step)).toEqual([4, 5, 6, 7, 8, 9, 10]);
    expect((await store.snapshot("s1"))!.window.map((c) => c.step)).toEqual([8, 9, 10]);
    expect((await store.recordBatch("s1", [newCall("c6")], small)).steps).toEqual([{ step: 11, duplicate: false }]);
    // Once every verdict is claimed, only the window is kept.
    const claim: CircuitClaim = { epoch: last.epoch, run: "r1", asOf: 0, through: 11 };
    const decided = await store.recordBatch("s1", [newCall("c12", { n: 12 })], small, claim);
    expect(decided.decided).toBe(11);
    // Step 12 is undecided until claimed: its window starts at step 10.
    expect((await store.recordBatch("s1", [newCall("c13", { n: 13 })], small, { ...claim, through: 12 })).calls.map((c) => c.step)).toEqual([10, 11, 12, 13]);
    // With 12 claimed, the next batch's history starts where step 13's window does.
    expect((await store.recordBatch("s1", [newCall("c14", { n: 14 })], small)).calls.map((c) => c.step)).toEqual([11, 12, 13, 14]);
  });

  it("starts a new epoch when a session starts anew", async () => {
    const before = await store.recordBatch("s1", [newCall("a")], LIMITS);
    await store.reset("s1");
    const after = await store.recordBatch("s1", [newCall("a")], LIMITS);
    expect(after.epoch).not.toBe(before.epoch);
    expect(after.steps).toEqual([{ step: 1, duplicate: false }]);
  });

  it("checks a batch in one store operation, each call seeing the earlier ones as running", async () => {
    let records = 0;
    const counted: BreakerStore = new Proxy(store, {
      get(target, property, receiver) {
        if (property === "recordBatch") records += 1;
        return Reflect.get(target, property, receiver) as unknown;
      },
    });
    const breaker = createBreaker({ store: counted, policy: { detectors: { identical_repeat: { warn: 2, block: 3 } } } });
    const same = (id: string): ToolCallRequest => ({ id, name: "search", args: { q: 1 } });
    const verdicts = await breaker.checkBatch("s1", [same("a"), same("b"), same("c"), { id: "d", name: "other", args: {} }]);
    expect(records).toBe(1);
    expect(verdicts.map((v) => [v.step, v.state, v.allowed])).toEqual([
      [1, "CLOSED", true],
      [2, "HALF_OPEN", true],
      [3, "OPEN", false],
      // A call after the one that opened the circuit is refused, whatever it is.
      [4, "OPEN", false],
    ]);
    expect(verdicts[3]!.findings).toEqual(verdicts[2]!.findings);
    expect((await breaker.inspect("s1")).circuit).toMatchObject({ state: "OPEN", asOf: 3 });
  });

  it("refuses every call recorded after the one that opened the circuit, while the checks are all in flight", async () => {
    const policy = { detectors: { identical_repeat: { warn: 2, block: 3 } } };
    const breaker = createBreaker({ store, policy });
    // Connected (and a Cluster's slots known) first, so the calls below reach the store in the order they are made.
    await breaker.check("s1", { id: "first", name: "lookup", args: { n: -1 } });
    const requests: ToolCallRequest[] = ["a", "b", "c"].map((id) => ({ id, name: "search", args: { q: 1 } }));
    for (let i = 0; i < 5; i++) requests.push({ id: `other-${i}`, name: "lookup", args: { n: i } });
    const verdicts = await Promise.all(requests.map((r) => breaker.check("s1", r)));
    // Whatever order the store gave them, every verdict is the one a sequential replay in that order gives.
    const replay = createBreaker({ policy });
    const byStep = [...verdicts].sort((a, b) => a.step - b.step);
    await replay.check("s1", { id: "first", name: "lookup", args: { n: -1 } });
    const shape = (v: Verdict) => [v.step, v.state, v.allowed, v.findings.map((f) => [f.detector, f.steps])];
    for (const v of byStep) expect(shape(v)).toEqual(shape(await replay.check("s1", requests.find((r) => r.id === v.callId)!)));
    // In call order the third identical call opens the circuit, and the distinct calls after it are refused for it.
    expect(verdicts.map((v) => v.allowed)).toEqual([true, true, false, false, false, false, false, false]);
    expect(verdicts.slice(3).every((v) => v.findings[0]?.detector === "identical_repeat" && v.findings[0].steps.at(-1) === verdicts[2]!.step)).toBe(true);
  });

  it("completes a batch of outcomes, which later checks see", async () => {
    const breaker = createBreaker({ store, policy: { detectors: { identical_repeat: { warn: 3, block: 4 } } } });
    const calls: ToolCallRequest[] = ["a", "b"].map((id) => ({ id, name: "search", args: { q: 1 } }));
    await breaker.checkBatch("s1", calls);
    await breaker.completeBatch("s1", [
      { callId: "a", outcome: { output: { rows: [] } } },
      { callId: "b", outcome: { error: new Error("boom") } },
    ]);
    const window = (await breaker.inspect("s1")).window;
    expect(window.map((c) => c.outcome?.kind)).toEqual(["empty", "error"]);
  });

  it("gives a batch the verdicts the same calls get one at a time", async () => {
    const policy = { detectors: { identical_repeat: { warn: 2, block: 3 }, cycle: { warn: 2, block: 3 } } };
    const call = fc.record({ tool: fc.constantFrom("a", "b"), arg: fc.nat(2) });
    let run = 0;
    await fc.assert(
      fc.asyncProperty(fc.array(call, { minLength: 1, maxLength: 8 }), async (calls) => {
        const requests = calls.map((c, i): ToolCallRequest => ({ id: `c${i}`, name: c.tool, args: { x: c.arg } }));
        const session = `prop-${run++}`;
        const batched = await createBreaker({ store, policy }).checkBatch(`${session}-batch`, requests);
        const single = createBreaker({ store, policy });
        const one: Verdict[] = [];
        for (const r of requests) one.push(await single.check(`${session}-one`, r));
        const shape = (v: Verdict) => [v.step, v.state, v.allowed, v.findings.map((f) => [f.detector, f.severity, f.steps])];
        expect(batched.map(shape)).toEqual(one.map(shape));
      }),
      { numRuns: 30 },
    );
  });
}
