// RedisStore's configuration and key layout: no server needed.
import { describe, expect, it } from "vitest";
import { urlSecrets } from "../../breaker/secrets.js";
import { redactUrl } from "../../breaker/stores/redis-connection.js";
import { metaKeyPattern, sessionKeys } from "../../breaker/stores/redis-keys.js";
import { RedisStore } from "../../breaker/stores/redis-store.js";

describe("redactUrl", () => {
  it("hides passwords and secret query values, keeps what helps find the server", () => {
    expect(redactUrl("redis://app:s3cret@cache.internal:6380/2")).toBe("redis://app:***@cache.internal:6380/2");
    expect(redactUrl("rediss://:s3cret@cache.internal")).toBe("rediss://:***@cache.internal");
    expect(redactUrl("redis://cache:6379?password=s3cret&db=1")).toBe("redis://cache:6379?password=***&db=1");
    expect(redactUrl("redis://cache:6379")).toBe("redis://cache:6379");
    expect(redactUrl("not a url s3cret")).toBe("<unparsable Redis URL>");
  });

  it("lists the secrets, percent-encoded and decoded, for scrubbing messages", () => {
    expect(urlSecrets("redis://app:p%40ss@host?token=t0k")).toEqual(["p%40ss", "p@ss", "t0k"]);
  });
});

describe("session keys", () => {
  it("share one hash tag made of a hash of the id, never of the id itself", () => {
    for (const id of ["{", "}", "a}b{c", "*", ":", "\n", "x".repeat(10_240)]) {
      const keys = Object.values(sessionKeys("cb:", id));
      const tags = keys.map((k) => /^cb:\{([A-Za-z0-9_-]{22})\}:(meta|window|log)$/.exec(k)?.[1]);
      expect(tags.every((t) => t !== undefined && t === tags[0])).toBe(true);
    }
    // JSON-encoding first keeps lone surrogates apart (plain UTF-8 would merge them).
    expect(sessionKeys("cb:", "\ud800").meta).not.toBe(sessionKeys("cb:", "\ud801").meta);
  });

  it("scan for meta keys with glob characters of the prefix escaped", () => {
    expect(metaKeyPattern("cb:")).toBe("cb:{*}:meta");
    expect(metaKeyPattern("a*b?[c]\\:")).toBe("a\\*b\\?\\[c\\]\\\\:{*}:meta");
  });
});

describe("RedisStore options", () => {
  const invalid = (options: ConstructorParameters<typeof RedisStore>[0]) => () => new RedisStore(options);
  it("refuses bad options before connecting, with INVALID_STORE_OPTIONS", () => {
    const code = expect.objectContaining({ code: "INVALID_STORE_OPTIONS" });
    expect(invalid({})).toThrow(code);
    expect(invalid({ url: "redis://h", prefix: "a{b}" })).toThrow(code);
    expect(invalid({ url: "redis://h", failMode: "sometimes" as "open" })).toThrow(code);
    expect(invalid({ url: "redis://h", commandTimeoutMs: 0 })).toThrow(code);
    expect(invalid({ url: "redis://h", connectTimeoutMs: Number.NaN })).toThrow(code);
    expect(invalid({ url: "http://user:pw@h" })).toThrow(/http:\/\/user:\*\*\*@h/);
  });
});
