import { beforeEach, describe, expect, it } from "vitest";
import { summarizeOutcome } from "../../breaker/outcome.js";
import { resetToolFixtures } from "../../tools/index.js";
import { checkJobStatus } from "../../tools/check-job-status.js";
import { run, SCHEMA_REJECTION, stable } from "./invoke.js";

const poll = (job_id: string) => run(checkJobStatus, { job_id });

describe("check_job_status", () => {
  beforeEach(() => resetToolFixtures());

  it("moves export-7 from queued through running to done", async () => {
    const answers = [];
    for (let i = 0; i < 5; i++) answers.push(stable(await poll("export-7")));
    expect(answers.map((a) => [a.status, a.progress])).toEqual([
      ["queued", 0],
      ["running", 30],
      ["running", 70],
      ["done", 100],
      ["done", 100],
    ]);
    expect(answers[3]!.result_url).toMatch(/^https:\/\/.+export-7\.csv$/);
    expect(answers[2]!.result_url).toBeUndefined();
  });

  it("never finishes export-stuck, and the breaker sees the same outcome every poll", async () => {
    const answers = [];
    for (let i = 0; i < 12; i++) answers.push(await poll("export-stuck"));
    for (const answer of answers) expect(stable(answer)).toEqual({ job_id: "export-stuck", status: "running", progress: 40 });
    const fingerprints = new Set(answers.map((a) => summarizeOutcome({ output: a }).fingerprint));
    expect(fingerprints.size).toBe(1);
  });

  it("stamps every poll with an ISO checked_at", async () => {
    const { checked_at } = await poll("export-7");
    expect(new Date(checked_at).toISOString()).toBe(checked_at);
  });

  it("counts polls per job id", async () => {
    await poll("export-stuck");
    await poll("export-stuck");
    expect((await poll("export-7")).status).toBe("queued");
  });

  it("replays the same sequence after a reset", async () => {
    const sequence = async () => {
      const out = [];
      for (let i = 0; i < 4; i++) out.push(stable(await poll("export-7")));
      return out;
    };
    const first = await sequence();
    resetToolFixtures();
    expect(await sequence()).toEqual(first);
  });

  it("throws job not found for an unknown id, on every poll", async () => {
    await expect(poll("export-8")).rejects.toMatchObject({ code: "JOB_NOT_FOUND", message: expect.stringMatching(/job not found/) });
    await expect(poll("export-8")).rejects.toMatchObject({ code: "JOB_NOT_FOUND" });
  });

  it.each([{}, { job_id: "" }, { job_id: 7 }])("rejects %j", async (args) => {
    await expect(run(checkJobStatus, args)).rejects.toThrow(SCHEMA_REJECTION);
  });
});
