import { z } from "zod";
import { defineTool } from "./define-tool.js";
import { JOB_TIMELINES } from "./fixtures/jobs.js";
import { ToolError } from "./tool-error.js";

const schema = z.object({
  job_id: z.string().trim().min(1).describe('Id of the background job, e.g. "export-7".'),
  wait_seconds: z
    .number()
    .int()
    .min(0)
    .max(300)
    .optional()
    .describe("Long poll: how long the service may hold the answer waiting for the status to change (this fixture answers at once)."),
});

// Polls seen per job id in this process: a job's answer depends on how often it was asked.
const polls = new Map<string, number>();

/** Forget every job's poll count, so the next poll of each job is its first again. */
function resetJobPolls(): void {
  polls.clear();
}

/**
 * Job status by poll count: "export-7" reaches done on the 4th poll,
 * "export-stuck" reports the same progress forever. `checked_at` changes on every poll.
 * Throws ToolError JOB_NOT_FOUND for an unknown job id.
 */
export const checkJobStatus = defineTool(
  {
    name: "check_job_status",
    description:
      'Check a background job (e.g. a data export). Returns status ("queued", "running" or "done"), progress in percent and, once done, result_url. Poll again while it is not done.',
    schema,
    nature: "polling",
    timeoutMs: 5_000,
    examples: [{ job_id: "export-7" }, { job_id: "export-stuck", wait_seconds: 30 }],
    reset: resetJobPolls,
  },
  ({ job_id }) => {
    const timeline = JOB_TIMELINES[job_id];
    if (!timeline) throw new ToolError("JOB_NOT_FOUND", `job not found: "${job_id}". Check the job id you were given.`);
    const seen = (polls.get(job_id) ?? 0) + 1;
    polls.set(job_id, seen);
    const snapshot = timeline[Math.min(seen, timeline.length) - 1];
    return { job_id, ...snapshot, checked_at: new Date().toISOString() };
  },
);
