// A separate process for the multi-process Redis tests: one RedisStore and
// breaker, running the checks and completions its parent sends, all at once,
// and replying with verdicts.
import { createBreaker, type Breaker } from "../../breaker/breaker.js";
import type { PolicyInput } from "../../breaker/policy.js";
import { RedisStore } from "../../breaker/stores/redis-store.js";
import type { CallCompletion, ToolCallRequest, Verdict } from "../../breaker/types.js";

/** A verdict as it crosses the process boundary, with what a comparison needs. */
export type WorkerVerdict = Pick<Verdict, "callId" | "step" | "allowed" | "state" | "findings" | "degraded"> & { detector?: string };

/** What the parent sends. */
export type WorkerRequest =
  | { type: "init"; url: string; prefix: string; cluster?: boolean; policy?: PolicyInput }
  | { type: "run"; session: string; calls: ToolCallRequest[] }
  | { type: "batches"; batches: { session: string; calls: ToolCallRequest[] }[] }
  | { type: "complete"; completions: { session: string; completions: CallCompletion[] }[] }
  | { type: "stop" };

/** What the worker answers. */
export type WorkerReply =
  | { type: "ready" }
  | { type: "verdicts"; verdicts: WorkerVerdict[] }
  | { type: "batches"; verdicts: WorkerVerdict[][] }
  | { type: "completed" }
  | { type: "error"; message: string };

let store: RedisStore | undefined;
let breaker: Breaker | undefined;
const reply = (message: WorkerReply): void => void process.send?.(message);
const plain = (v: Verdict): WorkerVerdict => ({
  callId: v.callId,
  step: v.step,
  allowed: v.allowed,
  state: v.state,
  findings: v.findings,
  ...(v.degraded ? { degraded: v.degraded } : {}),
  ...(v.findings[0] ? { detector: v.findings[0].detector } : {}),
});

process.on("message", (request: WorkerRequest) => {
  void handle(request).catch((error: Error) => reply({ type: "error", message: error.message }));
});

async function handle(request: WorkerRequest): Promise<void> {
  if (request.type === "init") {
    // Closed, with a generous timeout: a slow reply on a loaded machine must fail loudly, never fall back.
    store = RedisStore.fromUrl(request.url, {
      prefix: request.prefix,
      cluster: request.cluster,
      failMode: "closed",
      commandTimeoutMs: 10_000,
      connectTimeoutMs: 10_000,
    });
    breaker = createBreaker({ store, policy: request.policy ?? { windowSize: 200, detectors: { identical_repeat: { warn: 3, block: 4 } } } });
    await store.snapshot("warm-up");
    reply({ type: "ready" });
  } else if (request.type === "run") {
    const verdicts = await Promise.all(request.calls.map((call) => breaker!.check(request.session, call)));
    reply({ type: "verdicts", verdicts: verdicts.map(plain) });
  } else if (request.type === "batches") {
    const verdicts = await Promise.all(request.batches.map((b) => breaker!.checkBatch(b.session, b.calls)));
    reply({ type: "batches", verdicts: verdicts.map((batch) => batch.map(plain)) });
  } else if (request.type === "complete") {
    await Promise.all(request.completions.map((c) => breaker!.completeBatch(c.session, c.completions)));
    reply({ type: "completed" });
  } else {
    await store?.close();
    process.disconnect();
  }
}
