import { execFile } from "node:child_process";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { BreakerError } from "../../breaker/errors.js";
import type { StoreEvent } from "../../breaker/stores/store.js";
import { describeRedis, startRedisServer, type RedisServer } from "../support/redis-server.js";
import { newCall } from "./store-contract.js";
import { TestStores } from "./redis-test-stores.js";

const LIMITS = { maxEntries: 50, ttlSeconds: 60 };
const PASSWORD = "hunter2-very-secret";
const FAST = { commandTimeoutMs: 300, connectTimeoutMs: 500 };

async function failure(promise: Promise<unknown>): Promise<BreakerError> {
  const error = await promise.then(() => undefined, (e: unknown) => e);
  expect(error).toBeInstanceOf(BreakerError);
  return error as BreakerError;
}

describeRedis("RedisStore with an ACL user", "binary", () => {
  let server: RedisServer;
  const stores = new TestStores(() => server.url);
  beforeAll(async () => {
    server = await startRedisServer();
    // A user that may only touch keys under the test prefixes.
    await server.cli("ACL", "SETUSER", "breaker", "on", `>${PASSWORD}`, "~cbtest:*", "+@all");
  });
  afterAll(async () => {
    await stores.cleanup();
    await server?.stop();
  });

  const urlFor = (user: string, password: string): string => `redis://${user}:${password}@127.0.0.1:${server.port}`;

  it("connects with username and password from the URL", async () => {
    const store = new TestStores(() => urlFor("breaker", PASSWORD));
    try {
      const result = await store.create().record("s1", newCall("a"), LIMITS);
      expect(result.record.step).toBe(1);
      // The ACL holds: keys outside the user's pattern are refused.
      const error = await failure(store.create({ prefix: "elsewhere:" }).record("s1", newCall("a"), LIMITS));
      expect(error.message).toMatch(/NOPERM/);
    } finally {
      await store.cleanup();
    }
  });

  it("never shows the password: not in errors, not in fallback events", async () => {
    const wrong = new TestStores(() => urlFor("breaker", `${PASSWORD}-wrong`));
    try {
      const error = await failure(wrong.create({ ...FAST, failMode: "closed" }).record("s1", newCall("a"), LIMITS));
      expect(error.code).toBe("STORE_UNAVAILABLE");
      expect(error.message).toContain(`redis://breaker:***@127.0.0.1:${server.port}`);
      expect(error.message).toMatch(/WRONGPASS/);
      expect(JSON.stringify({ ...error, message: error.message })).not.toContain(PASSWORD);

      const events: StoreEvent[] = [];
      const open = wrong.create({ ...FAST, failMode: "open", onEvent: (e) => events.push(e) });
      expect((await open.record("s1", newCall("a"), LIMITS)).record.step).toBe(1);
      expect(events.map((e) => e.type)).toEqual(["outage", "fallback"]);
      for (const event of events) {
        const message = "error" in event ? event.error.message : "";
        expect(message).toContain("***");
        expect(message).not.toContain(PASSWORD);
      }
    } finally {
      await wrong.cleanup();
    }
  });
});

// Self-signed CA and a server certificate for 127.0.0.1, made with openssl.
async function makeCertificates(dir: string): Promise<{ ca: string; cert: string; key: string }> {
  const run = promisify(execFile);
  const file = (name: string): string => path.join(dir, name);
  await writeFile(file("san.ext"), "subjectAltName=IP:127.0.0.1\n");
  await run("openssl", ["req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", file("ca.key"), "-out", file("ca.crt"), "-days", "1", "-subj", "/CN=breaker-test-ca"]);
  await run("openssl", ["req", "-newkey", "rsa:2048", "-nodes", "-keyout", file("server.key"), "-out", file("server.csr"), "-subj", "/CN=127.0.0.1"]);
  await run("openssl", ["x509", "-req", "-in", file("server.csr"), "-CA", file("ca.crt"), "-CAkey", file("ca.key"), "-CAcreateserial",
    "-out", file("server.crt"), "-days", "1", "-extfile", file("san.ext")]);
  return { ca: file("ca.crt"), cert: file("server.crt"), key: file("server.key") };
}

const hasOpenssl = (await promisify(execFile)("openssl", ["version"]).then(() => true, () => false));

describeRedis("RedisStore over TLS (rediss://)", "binary", () => {
  let dir: string;
  let server: RedisServer | undefined;
  let ca: Buffer;
  const stores = new TestStores(() => server!.url);
  beforeAll(async () => {
    if (!hasOpenssl) return;
    dir = await mkdtemp(path.join(os.tmpdir(), "redis-tls-"));
    const files = await makeCertificates(dir);
    ca = await readFile(files.ca);
    server = await startRedisServer({ tls: files });
  });
  afterAll(async () => {
    await stores.cleanup();
    await server?.stop();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  describe.skipIf(!hasOpenssl)("with a private CA", () => {
    it("works over rediss:// with the CA, and refuses an unverified server", async () => {
      expect(server!.url.startsWith("rediss://")).toBe(true);
      const result = await stores.create({ tls: { ca } }).record("s1", newCall("a"), LIMITS);
      expect(result.record.step).toBe(1);
      const error = await failure(stores.create({ ...FAST }).record("s1", newCall("a"), LIMITS));
      expect(error.code).toBe("STORE_UNAVAILABLE");
    });
  });
});
