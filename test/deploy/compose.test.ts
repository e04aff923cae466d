import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parse } from "yaml";
import { createBreaker, DEFAULT_POLICY, RedisStore } from "../../breaker/index.js";
import { CALLER_SESSIONS_VAR, deploymentFromEnv, KNOB_VARS, POLICY_FILE_VAR } from "../../graphs/deployment.js";
import { knobLimits } from "../../graphs/limit-knobs.js";
import { createStoreFromEnv } from "../../graphs/store-from-env.js";
import { REPO_ROOT } from "../support/langgraph-dev-server.js";
import { describeRedis, startRedisServer, type RedisServer } from "../support/redis-server.js";

interface Service {
  image?: string;
  build?: { context: string; dockerfile: string };
  ports?: string[];
  environment?: Record<string, string>;
  env_file?: { path: string; required: boolean }[];
  depends_on?: Record<string, { condition: string }>;
  healthcheck?: { test: string };
}

const compose = parse(await readFile(join(REPO_ROOT, "compose.yaml"), "utf8")) as { services: Record<string, Service> };
const api = compose.services["langgraph-api"]!;
const apiEnv = api.environment!;

/** Compose's `${VAR:-default}` interpolation, from a given shell environment. */
function interpolate(value: string, shell: Record<string, string>): string {
  return value.replace(/\$\{(\w+)(?::-([^}]*))?\}/g, (_, name: string, fallback = "") => shell[name] || fallback);
}
/** The server container's environment for a shell (or .env) holding `shell`. */
const containerEnv = (shell: Record<string, string> = {}): Record<string, string> =>
  Object.fromEntries(Object.entries(apiEnv).map(([k, v]) => [k, interpolate(String(v), shell)]));

const BREAKER_VARS = [...Object.values(KNOB_VARS), POLICY_FILE_VAR, CALLER_SESSIONS_VAR, "REDIS_URL", "BREAKER_REDIS_PREFIX", "BREAKER_FAIL_MODE"];

describe("compose.yaml", () => {
  it("runs the LangGraph server on its Redis and Postgres, as the standalone-server docs lay them out", () => {
    expect(Object.keys(compose.services).sort()).toEqual(["langgraph-api", "langgraph-postgres", "langgraph-redis"]);
    const postgres = compose.services["langgraph-postgres"]!;
    const redisUri = new URL(apiEnv.REDIS_URI!);
    const databaseUri = new URL(apiEnv.DATABASE_URI!);
    expect(redisUri.host).toBe("langgraph-redis:6379");
    expect(databaseUri.host).toBe("langgraph-postgres:5432");
    // The credentials and database the server uses are the ones Postgres is started with.
    const { POSTGRES_USER, POSTGRES_PASSWORD, POSTGRES_DB } = postgres.environment!;
    expect([databaseUri.username, databaseUri.password, databaseUri.pathname]).toEqual([POSTGRES_USER, POSTGRES_PASSWORD, `/${POSTGRES_DB}`]);
    // The server starts once both answer their health checks.
    for (const dependency of ["langgraph-redis", "langgraph-postgres"]) {
      expect(api.depends_on?.[dependency]).toEqual({ condition: "service_healthy" });
      expect(compose.services[dependency]!.healthcheck?.test).toBeTruthy();
    }
    // The server image listens on 8000; the image is the one `langgraphjs build -t guarded-agent` tags, or built from the generated Dockerfile.
    expect(api.ports?.some((p) => p.endsWith(":8000"))).toBe(true);
    expect(interpolate(api.image!, {})).toBe("guarded-agent");
    expect(api.build).toEqual({ context: ".", dockerfile: "Dockerfile" });
    expect(api.env_file).toEqual([{ path: ".env", required: false }]);
  });

  it("points the breaker at the server's Redis, in a logical DB the server does not use", () => {
    const server = new URL(apiEnv.REDIS_URI!);
    const breaker = new URL(apiEnv.REDIS_URL!);
    expect(breaker.host).toBe(server.host);
    expect(breaker.pathname).toBe("/1");
    expect(server.pathname).toBe("/0");
    expect(containerEnv().BREAKER_REDIS_PREFIX).toBe("cb:");
  });

  it("passes every deployment setting of the breaker, and a value set in .env becomes the deployment's ceiling", async () => {
    expect(Object.keys(apiEnv)).toEqual(expect.arrayContaining(BREAKER_VARS));
    // Nothing set: the graph loads with the default policy's limits.
    expect(knobLimits(deploymentFromEnv(containerEnv()).policy)).toEqual(knobLimits(DEFAULT_POLICY));
    expect(deploymentFromEnv(containerEnv()).callerSessions).toBe(false);
    const tight = deploymentFromEnv(containerEnv({ BREAKER_MAX_CALLS_PER_RUN: "40", BREAKER_MAX_IDENTICAL_CALLS: "1" }));
    expect(knobLimits(tight.policy)).toMatchObject({ maxCallsPerRun: 40, maxIdenticalCalls: 1 });
    const store = createStoreFromEnv(containerEnv({ BREAKER_FAIL_MODE: "closed" }));
    try {
      expect(store).toBeInstanceOf(RedisStore);
      expect([(store as RedisStore).prefix, (store as RedisStore).failMode]).toEqual(["cb:", "closed"]);
    } finally {
      await store.close?.();
    }
  });

  it("is described in docs/DEPLOYMENT.md: every service and every variable it sets", async () => {
    const doc = await readFile(join(REPO_ROOT, "docs/DEPLOYMENT.md"), "utf8");
    const start = doc.indexOf("## Docker Compose");
    expect(start).toBeGreaterThan(-1);
    const section = doc.slice(start, doc.indexOf("\n## ", start + 1));
    for (const name of [...Object.keys(compose.services), ...Object.keys(apiEnv)]) expect(section, name).toContain(`\`${name}\``);
  });
});

describeRedis("the breaker in compose.yaml's Redis layout", "binary", () => {
  let redis: RedisServer;
  beforeAll(async () => {
    redis = await startRedisServer();
  });
  afterAll(async () => {
    await redis?.stop();
  });

  it("keeps its sessions in logical DB 1, leaving the server's DB 0 untouched", async () => {
    // compose.yaml's REDIS_URL, pointed at this test's server.
    const url = new URL(containerEnv().REDIS_URL!);
    const store = createStoreFromEnv({ ...containerEnv(), REDIS_URL: `redis://${redis.host}:${redis.port}${url.pathname}` });
    try {
      const breaker = createBreaker({ store });
      const [verdict] = await breaker.checkBatch("thread:compose", [{ id: "c1", name: "lookup", args: { q: "Acme" } }]);
      expect(verdict?.allowed).toBe(true);
    } finally {
      await store.close?.();
    }
    const keys = (db: string) => redis.cli("-n", db, "--scan").then((out) => out.split("\n").filter(Boolean));
    expect(await keys("0")).toEqual([]);
    const inDb1 = await keys("1");
    expect(inDb1.length).toBeGreaterThan(0);
    expect(inDb1.every((key) => key.startsWith("cb:"))).toBe(true);
  });
});
