import { describe, expect, it } from "vitest";
import { createRedactor, secretsOf } from "../../nodes/redact.js";

describe("the redactor", () => {
  const redact = createRedactor({
    OPENAI_API_KEY: "sk-test-abcdefghijklmnopqrstu",
    REDIS_URL: "redis://:p%40ss%3Aword-99@cache:6379",
    INTERNAL_TOKEN: "tok-8f7e6d5c",
    SHORT_KEY: "abc",
    HOME: "/home/someone",
  });

  it.each([
    ["an environment secret", "key=sk-test-abcdefghijklmnopqrstu", "key=***"],
    ["a secret-named variable's value", "token tok-8f7e6d5c leaked", "token *** leaked"],
    ["a URL password, raw and decoded", "redis://:p%40ss%3Aword-99@cache and p@ss:word-99", "redis://:***@cache and ***"],
    ["any URL password", "https://bob:hunter2@example.com/x", "https://bob:***@example.com/x"],
    ["a bearer token", "Authorization: Bearer eyJhbGciOi.J9eyJzdWIi", "Authorization: Bearer ***"],
    ["an OpenAI-style key it was not told about", "sk-proj-0123456789ABCDEFGHIJ", "sk-***"],
    ["a GitHub token", "ghp_0123456789abcdefghijABCDEFGHIJ", "gh_***"],
  ])("masks %s", (_what, text, masked) => {
    expect(redact.text(text)).toBe(masked);
  });

  it("masks every string inside a value (tool arguments), keeping its shape, keys and other types", () => {
    const args = { q: "key=sk-test-abcdefghijklmnopqrstu", page: 2, nested: [{ auth: "Bearer eyJhbGciOi.J9eyJzdWIi", ok: true }, null] };
    expect(redact.value(args)).toEqual({ q: "key=***", page: 2, nested: [{ auth: "Bearer ***", ok: true }, null] });
    expect(redact.value("tok-8f7e6d5c")).toBe("***");
    expect(redact.value(7)).toBe(7);
  });

  it("masks a value nested past any sensible depth as one text, without recursing without bound", () => {
    let deep: unknown = { secret: "tok-8f7e6d5c" };
    for (let i = 0; i < 10_000; i++) deep = [deep];
    expect(JSON.stringify(redact.value(deep))).not.toContain("tok-8f7e6d5c");
  });

  it("leaves ordinary text, short values and non-secret variables alone", () => {
    const text = "Acme Corp owes 3 invoices; see /home/someone and https://example.com:8080/path, abc.";
    expect(redact.text(text)).toBe(text);
  });

  it("returns an error without secrets as it is, and a copy with its message and stack masked otherwise", () => {
    const clean = new Error("plain failure");
    expect(redact.error(clean)).toBe(clean);
    const leaky = Object.assign(new Error("401 Incorrect API key provided: sk-test-abcdefghijklmnopqrstu"), { status: 401 });
    const masked = redact.error(leaky) as Error & { status: number };
    expect(masked.message).toBe("401 Incorrect API key provided: ***");
    expect(masked.stack).not.toContain("sk-test-abcdefghijklmnopqrstu");
    expect(masked.status).toBe(401);
  });

  it("takes secrets from variables named like secrets and from URL passwords, longest first", () => {
    expect(secretsOf({ A_PASSWORD: "longer-secret-1", B_KEY: "secret-1", PATH: "/usr/bin:/bin" })).toEqual(["longer-secret-1", "secret-1"]);
    // URL secrets are read as the Redis store reads its own URL: the password, raw and decoded, and secret query values.
    expect(secretsOf({ DATABASE_URL: "postgres://app:p%40ssword1@db?access_token=tok-123456" })).toEqual(["p%40ssword1", "tok-123456", "p@ssword1"]);
  });
});
