import { execFile } from "node:child_process";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";

const run = promisify(execFile);
const corpus = (...args: string[]) => run("npx", ["tsx", "scripts/corpus.ts", ...args], { cwd: join(import.meta.dirname, "../..") });

describe("npm run corpus", () => {
  it("tries a policy file against a split, and refuses to publish its figures", async () => {
    const dir = mkdtempSync(join(tmpdir(), "corpus-policy-"));
    // Refusing the first call of every turn stops every run, loop or not: recall 1, false-positive rate 1.
    // (A repeat level would not do: a tool's nature, a send's, sets its own repeat levels.)
    const strict = join(dir, "strict.json");
    writeFileSync(strict, JSON.stringify({ detectors: { run_calls: { warn: 1, block: 1 } } }));
    const [withDefault, withStrict] = await Promise.all([corpus("--split", "heldout"), corpus("--split", "heldout", "--policy", strict)]);
    expect(withDefault.stdout).not.toMatch(/false-positive rate 1\.000/);
    expect(withStrict.stdout).toMatch(/^heldout: \d+ cases .* recall 1\.000, false-positive rate 1\.000/);
    await expect(corpus("--policy", strict, "--write")).rejects.toThrow(/--write publishes the default policy's figures/);
  }, 120_000);
});
