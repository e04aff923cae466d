import { BoundedCache } from "../bounded-cache.js";
import type { CallRecord } from "../types.js";
import type { Detector } from "./detector.js";
import { findingAt } from "./detector.js";
import { calls } from "./wording.js";
import { isMiss } from "./progress.js";
import { sameRequest } from "./similarity.js";
import { isSweep } from "./sweep.js";
import { isNoOp } from "./no-op.js";
import { operationOf } from "./operation.js";

// The signature of calls that ran a no-op command: alike whatever they printed, or before they answered.
const NO_OP = "no-op";

/**
 * Many different requests to one tool, every one of them empty or failing
 * since the tool last returned something: the model is guessing, not
 * searching. Counts distinct requests (cosmetic variants are one), so a few
 * distinct lookups that each miss a couple of times still pass. Commands that
 * do no work (`echo ok`, `true`: see `isNoOp`) are misses too, answered or not:
 * a model emitting one after another is stalling.
 */
export const flailing: Detector = {
  id: "flailing",
  scope: "run",
  // With no earlier call there is no miss to flail over (see below).
  needsRun: true,
  detect({ candidate, run, levels }) {
    const level = levels.flailing;
    const misses: CallRecord[] = [];
    const operation = operationOf(candidate);
    for (let i = run.length - 1; i >= 0; i--) {
      const call = run[i]!;
      if (call.tool !== candidate.tool || call.outcome?.cancelled) continue;
      // A shell's reads between its searches are other work: they neither count nor break the searches' misses.
      if (operationOf(call) !== operation && !isNoOp(call)) continue;
      // A no-op command (`echo ok`) is a miss before it answers: its answer can hold nothing.
      if (isNoOp(call)) misses.push(call);
      else if (!call.outcome) continue;
      else if (isMiss(call)) misses.push(call);
      else break;
    }
    // No miss before it: nothing to flail over, whatever the levels (a warn level of 1 included).
    if (misses.length === 0 || misses.length + 1 < level.warn) return null;
    // Guessing gets the same miss back each time (nothing found, one error shape whatever it names);
    // misses that each say something different are answers being read, as when an API's error paths are
    // tried one by one. Count the distinct requests behind the commonest miss.
    const similarity = levels.semantic_stutter.similarity;
    const bySignature = new Map<string, CallRecord[]>();
    for (const call of misses) {
      const signature = isNoOp(call) ? NO_OP : call.outcome!.kind === "error" ? (call.outcome!.shape ?? call.outcome!.fingerprint) : call.outcome!.kind;
      const group = bySignature.get(signature);
      if (group) group.push(call);
      else bySignature.set(signature, [call]);
    }
    const alike = [...bySignature.values()].reduce((a, b) => (b.length > a.length ? b : a));
    // After no-ops, a real command is the model getting back to work: only another no-op continues the stall.
    const stalling = isNoOp(alike[0]!);
    if (stalling && !isNoOp(candidate)) return null;
    if (isSweep(candidate, alike, run)) return null;
    // One representative per request: the candidate, then each earlier miss unlike every one kept.
    const distinct: CallRecord[] = [candidate];
    for (const call of alike) if (!distinct.some((kept) => sameRequest(kept, call, similarity))) distinct.push(call);
    const steps = alike.map((c) => c.step).reverse().concat(candidate.step);
    const message = stalling
      ? `${candidate.tool} has been given ${distinct.length} commands in a row that do no work (only print their own words); run the real step instead.`
      : `${candidate.tool} has been asked ${distinct.length} different things in a row (${calls(misses.length)}) and the answer was the same miss each time; guessing further will not find it.`;
    return findingAt("flailing", distinct.length, level, steps, () => message);
  },
};
