import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DEFAULT_POLICY } from "../../breaker/index.js";
import { DeploymentConfigError, deploymentFromEnv, KNOB_VARS } from "../../graphs/deployment.js";

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "deployment-"));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

async function file(name: string, content: string): Promise<string> {
  const path = join(dir, name);
  await writeFile(path, content);
  return path;
}

describe("the deployment's settings", () => {
  it("are the breaker's defaults, with caller sessions off, when the environment sets nothing", () => {
    expect(deploymentFromEnv({})).toEqual({ policy: DEFAULT_POLICY, callerSessions: false });
  });

  it("name one variable per context knob", () => {
    expect(KNOB_VARS).toEqual({
      maxIdenticalCalls: "BREAKER_MAX_IDENTICAL_CALLS",
      halfOpenMargin: "BREAKER_HALF_OPEN_MARGIN",
      windowSeconds: "BREAKER_WINDOW_SECONDS",
      maxCallsPerWindow: "BREAKER_MAX_CALLS_PER_WINDOW",
      maxCallsPerRun: "BREAKER_MAX_CALLS_PER_RUN",
      openSeconds: "BREAKER_OPEN_SECONDS",
    });
  });

  it("take the policy file, then the knob variables on top of it, which may loosen the defaults", async () => {
    const path = await file("policy.json", JSON.stringify({ detectors: { run_calls: { warn: 60, block: 80 } }, openSeconds: 900, tools: { send_email: { nature: "side_effecting" } } }));
    const { policy, callerSessions } = deploymentFromEnv({
      BREAKER_POLICY_FILE: path,
      BREAKER_MAX_IDENTICAL_CALLS: "5",
      BREAKER_MAX_CALLS_PER_WINDOW: "100",
      BREAKER_CALLER_SESSIONS: "true",
    });
    expect(policy.detectors.run_calls).toMatchObject({ warn: 60, block: 80 });
    expect(policy.openSeconds).toBe(900);
    expect(policy.tools.send_email).toEqual({ nature: "side_effecting" });
    expect(policy.detectors.identical_repeat.block).toBe(6);
    expect(policy.detectors.no_progress.block).toBe(6);
    expect(policy.detectors.call_rate.block).toBe(100);
    // The store window must hold a whole rate window's calls.
    expect(policy.windowSize).toBe(100);
    expect(callerSessions).toBe(true);
  });

  it("scale the policy's warning zone with a limit they move, so a lower run limit is not warned about from its first call", () => {
    const d = DEFAULT_POLICY.detectors.run_calls;
    const { run_calls } = deploymentFromEnv({ BREAKER_MAX_CALLS_PER_RUN: "20" }).policy.detectors;
    expect(run_calls.block).toBe(20);
    expect(run_calls.warn).toBe(20 - Math.round(((d.block - d.warn) * 20) / d.block));
    expect(run_calls.warn).toBeGreaterThan(1);
    // An explicit margin wins.
    expect(deploymentFromEnv({ BREAKER_MAX_CALLS_PER_RUN: "20", BREAKER_HALF_OPEN_MARGIN: "0" }).policy.detectors.run_calls.warn).toBe(20);
  });

  it.each<[string, Record<string, string>, RegExp]>([
    ["a policy file that is missing", { BREAKER_POLICY_FILE: "/nonexistent/policy.json" }, /BREAKER_POLICY_FILE names "\/nonexistent\/policy.json", which cannot be read/],
    ["a knob that is not a whole number", { BREAKER_MAX_CALLS_PER_RUN: "lots" }, /BREAKER_MAX_CALLS_PER_RUN must be a whole number of at least 1 \(got "lots"\)/],
    ["a knob below its least value", { BREAKER_OPEN_SECONDS: "0" }, /BREAKER_OPEN_SECONDS must be a whole number of at least 1/],
    ["a rate window larger than the store keeps", { BREAKER_MAX_CALLS_PER_WINDOW: "5000" }, /BREAKER_MAX_CALLS_PER_WINDOW: Invalid breaker policy at windowSize/],
    ["a caller-sessions flag that is neither true nor false", { BREAKER_CALLER_SESSIONS: "sometimes" }, /BREAKER_CALLER_SESSIONS must be true or false \(got "sometimes"\)/],
  ])("refuse %s at startup, naming the variable", (_what, env, message) => {
    expect(() => deploymentFromEnv(env)).toThrow(DeploymentConfigError);
    expect(() => deploymentFromEnv(env)).toThrow(message);
  });

  it("refuse a policy file that is not JSON or not a policy, naming the file and the field", async () => {
    const notJson = await file("broken.json", "{ detectors: ");
    expect(() => deploymentFromEnv({ BREAKER_POLICY_FILE: notJson })).toThrow(/BREAKER_POLICY_FILE ".*broken.json" is not JSON/);
    const wrong = await file("wrong.json", JSON.stringify({ detectors: { run_calls: { block: -1 } } }));
    expect(() => deploymentFromEnv({ BREAKER_POLICY_FILE: wrong })).toThrow(/wrong.json": Invalid breaker policy at detectors.run_calls.block/);
  });
});
