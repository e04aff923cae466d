import { execFile } from "node:child_process";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";
import { SCENARIOS } from "../../demo/index.js";
import { REPO_ROOT } from "../support/langgraph-dev-server.js";

const run = promisify(execFile);

describe("npm run demo", () => {
  it("runs every scenario as expected and shows each call's own outcome beside the breaker's state", async () => {
    const env = { ...process.env, REDIS_URL: "", NO_COLOR: "1" };
    const { stdout } = await run(process.execPath, ["--import", "tsx", "demo/run-demo.ts"], { cwd: REPO_ROOT, env });
    for (const name of SCENARIOS.keys()) expect(stdout).toContain(`■ ${name}`);
    expect(stdout).not.toContain("did not behave as expected");
    // kb_stutter's second search finds nothing, as the first did; the advisory appended to its text does not make it "ok".
    const kb = stdout.slice(stdout.indexOf("■ kb_stutter"), stdout.indexOf("■ ", stdout.indexOf("■ kb_stutter") + 1));
    expect(kb).toMatch(/│ 2 +│ kb_search +│ .*│ empty +│ HALF_OPEN/);
  }, 120_000);
});
