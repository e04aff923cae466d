import { execFile } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";
import { CORPUS_DIR, loadCorpus } from "../../scripts/corpus/load.js";
import { corpusIndex, noveltyProblems, originsOf } from "../../scripts/corpus/novelty.js";

const run = promisify(execFile);
const index = corpusIndex(loadCorpus());
const seed = JSON.parse(readFileSync(join(CORPUS_DIR, "dev/project/seed/seed-clean-crm-finance.json"), "utf8")) as Record<string, unknown>;
const fresh = {
  id: "acme-agent-log-new-case",
  label: "legit",
  description: "A run nobody has added yet.",
  source: { repo: "acme-example/agent-logs", path: "logs/run-1.json", commit: "0".repeat(40) },
  toolCalls: [{ name: "lookup_order", args: { order_id: "ORD-9311" }, output: { status: "shipped" } }],
};

describe("a case built for the corpus", () => {
  it("is new evidence when nothing of it is in the corpus", () => {
    expect(noveltyProblems(fresh, "acme-agent-log", index)).toEqual([]);
  });

  it("is not when its id, source folder, repository, page or calls are already there", () => {
    const problems = noveltyProblems({ ...seed }, "project", index);
    expect(problems).toContain(`id ${seed.id} is already a corpus case`);
    expect(problems).toContain("source folder project is already in the corpus");
    expect(problems.some((p) => p.startsWith("its calls are those of corpus case"))).toBe(true);
    const used = loadCorpus().find((c) => typeof (c.data as { source?: { repo?: unknown } }).source?.repo === "string")!;
    const repo = (used.data as { source: { repo: string } }).source.repo;
    const viaPage = { ...fresh, source: { url: `https://github.com/${repo}/issues/1` } };
    expect(noveltyProblems(viaPage, "acme-agent-log", index)).toContain(`source ${repo.toLowerCase()} is already in the corpus`);
    expect(originsOf({ url: "https://github.com/Acme-Example/Agent-Logs/pull/7#issuecomment-1" })).toEqual([
      "https://github.com/acme-example/agent-logs/pull/7",
      "acme-example/agent-logs",
    ]);
  });

  it("holds no secret", () => {
    const leaked = { ...fresh, toolCalls: [{ ...fresh.toolCalls[0], output: "export OPENAI_API_KEY=sk-proj-0123456789abcdefghijklmn" }] };
    expect(noveltyProblems(leaked, "acme-agent-log", index)).toEqual([expect.stringMatching(/secret-shaped string/)]);
  });

  it("is checked by corpus-check when it lies outside the corpus, and a round with a copy fails", async () => {
    const round = mkdtempSync(join(tmpdir(), "corpus-round-"));
    mkdirSync(join(round, "acme-agent-log"));
    writeFileSync(join(round, "acme-agent-log", "new.json"), JSON.stringify(fresh));
    const check = (...paths: string[]) => run("npx", ["tsx", "scripts/corpus-check.ts", ...paths], { cwd: join(import.meta.dirname, "../..") });
    expect((await check(round)).stdout).toMatch(/^ok {3}.*new\.json: legit 1 calls, 1 results$/m);
    mkdirSync(join(round, "project"));
    writeFileSync(join(round, "project", "copy.json"), JSON.stringify(seed));
    await expect(check(round)).rejects.toMatchObject({ code: 1, stdout: expect.stringMatching(/^BAD .*copy\.json: id seed-clean-crm-finance is already a corpus case/m) });
  }, 60_000);
});
