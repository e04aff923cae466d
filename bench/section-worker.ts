// One benchmark section in its own process (see lib/isolate.ts); bench/run.ts starts it.
import pc from "picocolors";
import { scalePlan } from "./lib/plan.js";
import { startedRedisVersion, stopBenchRedis } from "./lib/redis.js";
import type { BenchContext, SectionResult } from "./lib/section.js";
import type { WorkerReply } from "./lib/isolate.js";
import { SECTIONS } from "./sections/index.js";

const [id, flag] = process.argv.slice(2);
const section = SECTIONS.find((s) => s.id === id);
if (!section || !process.send) {
  console.error(`section-worker: unknown section "${id}" or not started by bench/run.ts`);
  process.exit(2);
}
const quick = flag === "--quick";
const ctx: BenchContext = {
  quick,
  plan: (full) => scalePlan(full, quick),
  log: (message) => console.log(pc.dim(`… ${message}`)),
};

let result: SectionResult;
let redisVersion: string | undefined;
try {
  result = await section.run(ctx);
} catch (error) {
  console.error(pc.red(`\n${section.title} failed: ${error instanceof Error ? (error.stack ?? error.message) : error}`));
  result = { id: section.id, title: section.title, tables: [], targets: [], notes: [], data: null, failed: error instanceof Error ? error.message : String(error) };
} finally {
  redisVersion = await startedRedisVersion();
  await stopBenchRedis().catch(() => {});
}
const reply: WorkerReply = { result, ...(redisVersion ? { redisVersion } : {}) };
process.send(reply, () => process.exit(0));
