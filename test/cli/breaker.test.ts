import { execFile } from "node:child_process";
import { promisify } from "node:util";
import { afterAll, beforeAll, expect, it } from "vitest";
import { createBreaker } from "../../breaker/breaker.js";
import { runBreakerCli } from "../../breaker/cli/run-breaker.js";
import { describeRedis, standaloneRedis, uniquePrefix } from "../support/redis-server.js";
import { TestStores } from "../stores/redis-test-stores.js";

// Colour codes would get in the way of matching text.
const plain = (text: string): string => text.replace(/\x1b\[[0-9;]*m/g, "");

async function cli(argv: string[], env: Record<string, string | undefined>) {
  const out: string[] = [];
  const err: string[] = [];
  const code = await runBreakerCli(argv, { env, out: (t) => out.push(plain(t)), err: (t) => err.push(plain(t)) });
  return { code, out: out.join("\n"), err: err.join("\n") };
}

it("explains itself when REDIS_URL is missing or the command is wrong", async () => {
  const missing = await cli(["list"], {});
  expect([missing.code, missing.err]).toEqual([2, expect.stringContaining("REDIS_URL is not set")]);
  const wrong = await cli(["inspect"], { REDIS_URL: "redis://127.0.0.1:1" });
  expect([wrong.code, wrong.err]).toEqual([2, expect.stringContaining('"inspect" needs a session id: npm run breaker -- inspect <session>.')]);
  expect(wrong.err).toContain("Usage: npm run breaker");
  const unknown = await cli(["inpsect", "s1"], { REDIS_URL: "redis://127.0.0.1:1" });
  expect(unknown.err).toContain('Unknown command "inpsect".');
  const bad = await cli(["list", "--prefix", "a{b}"], { REDIS_URL: "redis://127.0.0.1:1" });
  expect([bad.code, bad.err]).toEqual([2, expect.stringContaining("without \"{\" or \"}\"")]);
});

describeRedis("npm run breaker against REDIS_URL", "server", () => {
  let redis: Awaited<ReturnType<typeof standaloneRedis>> | undefined;
  const prefix = uniquePrefix("cli");
  const stores = new TestStores(() => redis!.url);
  let env: Record<string, string | undefined>;
  beforeAll(async () => {
    redis = await standaloneRedis();
    env = { REDIS_URL: redis.url, BREAKER_REDIS_PREFIX: prefix };
    const breaker = createBreaker({ store: stores.create({ prefix }), policy: { detectors: { identical_repeat: { warn: 2, block: 3 } } } });
    for (let i = 1; i <= 4; i++) {
      await breaker.check("user-42", { id: `c${i}`, name: "search", args: { q: "weather" }, usage: { inputTokens: 100, outputTokens: 10 } });
      await breaker.complete("user-42", `c${i}`, { output: "sunny" });
    }
    await breaker.check("quiet", { id: "q1", name: "fetch", args: { url: "https://example.com" } });
  });
  afterAll(async () => {
    await stores.cleanup();
    await redis?.stop();
  });

  it("lists active sessions with their state", async () => {
    const { code, out } = await cli(["list"], env);
    expect(code).toBe(0);
    expect(out).toMatch(/user-42\s*│\s*OPEN\s*│\s*4\s*│/);
    expect(out).toMatch(/quiet\s*│\s*CLOSED\s*│\s*1\s*│/);
    const json = JSON.parse((await cli(["list", "--json"], env)).out) as { sessionId: string; state: string; totalCalls: number }[];
    expect(json.map(({ sessionId, state, totalCalls }) => [sessionId, state, totalCalls]).sort()).toEqual([["quiet", "CLOSED", 1], ["user-42", "OPEN", 4]]);
  });

  it("inspects a session: state, last verdict with its findings, usage and window", async () => {
    const { code, out } = await cli(["inspect", "user-42"], env);
    expect(code).toBe(0);
    expect(out).toMatch(/State\s+OPEN until \d{4}-/);
    expect(out).toContain("Last verdict OPEN at step 4");
    expect(out).toMatch(/block identical_repeat: search was called 3 times/);
    expect(out).toContain("400 input + 40 output tokens");
    expect(out).toContain("last 4 of 4 calls");
    const json = JSON.parse((await cli(["inspect", "user-42", "--json"], env)).out);
    expect(json.window.map((c: { step: number }) => c.step)).toEqual([1, 2, 3, 4]);
    expect(json.circuit.findings[0].detector).toBe("identical_repeat");
    const unknown = await cli(["inspect", "nobody"], env);
    expect([unknown.code, unknown.err]).toEqual([1, expect.stringContaining("not found")]);
  });

  it("resets a session and leaves the others", async () => {
    const { code, out } = await cli(["reset", "user-42"], env);
    expect([code, out]).toEqual([0, 'Reset session "user-42": 4 calls forgotten.']);
    expect((await cli(["inspect", "user-42"], env)).code).toBe(1);
    expect(JSON.parse((await cli(["list", "--json"], env)).out).map((s: { sessionId: string }) => s.sessionId)).toEqual(["quiet"]);
  });

  it("runs as `npm run breaker`", async () => {
    const { stdout } = await promisify(execFile)("npm", ["run", "--silent", "breaker", "--", "list", "--json"], {
      env: { ...process.env, ...env, NO_COLOR: "1" },
    });
    expect(JSON.parse(stdout).map((s: { sessionId: string }) => s.sessionId)).toContain("quiet");
  });
});
