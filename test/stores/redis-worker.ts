// A separate process for the atomicity test: one RedisStore and breaker,
// running the checks its parent sends, all at once, and replying with verdicts.
import { createBreaker, type Breaker } from "../../breaker/breaker.js";
import { RedisStore } from "../../breaker/stores/redis-store.js";
import type { ToolCallRequest } from "../../breaker/types.js";

/** What the parent sends. */
export type WorkerRequest =
  | { type: "init"; url: string; prefix: string }
  | { type: "run"; session: string; calls: ToolCallRequest[] }
  | { type: "stop" };

/** What the worker answers. */
export type WorkerReply =
  | { type: "ready" }
  | { type: "verdicts"; verdicts: { callId: string; step: number; allowed: boolean; state: string; detector?: string }[] }
  | { type: "error"; message: string };

let store: RedisStore | undefined;
let breaker: Breaker | undefined;
const reply = (message: WorkerReply): void => void process.send?.(message);

process.on("message", (request: WorkerRequest) => {
  void handle(request).catch((error: Error) => reply({ type: "error", message: error.message }));
});

async function handle(request: WorkerRequest): Promise<void> {
  if (request.type === "init") {
    // Closed, with a generous timeout: a slow reply on a loaded machine must fail loudly, never fall back.
    store = RedisStore.fromUrl(request.url, { prefix: request.prefix, failMode: "closed", commandTimeoutMs: 10_000, connectTimeoutMs: 10_000 });
    breaker = createBreaker({ store, policy: { windowSize: 200, detectors: { identical_repeat: { warn: 3, block: 4 } } } });
    await store.snapshot("warm-up");
    reply({ type: "ready" });
  } else if (request.type === "run") {
    const verdicts = await Promise.all(request.calls.map((call) => breaker!.check(request.session, call)));
    reply({
      type: "verdicts",
      verdicts: verdicts.map((v) => ({ callId: v.callId, step: v.step, allowed: v.allowed, state: v.state, detector: v.findings[0]?.detector })),
    });
  } else {
    await store?.close();
    process.disconnect();
  }
}
