import type { CallRecord } from "../types.js";
import type { Detector } from "./detector.js";
import { requestKeysOf } from "./arg-features.js";
import { findingAt } from "./detector.js";
import { sameRequest } from "./similarity.js";
import { freshCalls } from "./streak.js";
import { times } from "./wording.js";

/** A call of the listing and the page it asks for (its request spelled with its paging). */
const pageOf = (call: CallRecord) => requestKeysOf(call).spelling;

/**
 * A pager asked again for a page of its listing it has already fetched:
 * the same query with the same cursor, page or offset. Pages that move on
 * with new records pass however many there are; going back to a page read
 * before brings nothing new at once, and a cursor that cycles back over the
 * listing is a loop. Other pages of the same listing are not new work, but
 * anything new done elsewhere (a record created, then the first page listed
 * again) starts afresh, and so does a page that came back changed (the
 * listing is live). Applies to tools of the `pagination` nature.
 */
export const pageRevisit: Detector = {
  id: "page_revisit",
  scope: "run",
  needsRun: true,
  detect({ candidate, run, levels, nature }) {
    if (nature !== "pagination") return null;
    const threshold = levels.semantic_stutter.similarity;
    const listing = (call: CallRecord) => sameRequest(call, candidate, threshold);
    const fresh = freshCalls(run);
    // Since the last new work outside the listing.
    let start = 0;
    for (let i = run.length - 1; i >= 0; i--) {
      if (fresh[i] && !listing(run[i]!)) {
        start = i + 1;
        break;
      }
    }
    // Pages fetched (finished with an answer, empty or not: a failed fetch is retried, not revisited), and their last answer.
    const fetched = new Map<string, string>();
    let revisits: CallRecord[] = [];
    for (let i = start; i < run.length; i++) {
      const call = run[i]!;
      const outcome = call.outcome;
      if (!listing(call) || !outcome || outcome.kind === "error") continue;
      const page = pageOf(call);
      const before = fetched.get(page);
      if (before === undefined) {
        fetched.set(page, outcome.fingerprint);
        continue;
      }
      if (before === outcome.fingerprint) revisits.push(call);
      else {
        // The page changed since it was read: the listing is live, what was fetched before is stale news.
        fetched.clear();
        revisits = [];
        fetched.set(page, outcome.fingerprint);
      }
    }
    if (!fetched.has(pageOf(candidate))) return null;
    const steps = [...revisits.map((c) => c.step), candidate.step];
    return findingAt("page_revisit", steps.length, levels.page_revisit, steps, () =>
      `${candidate.tool} has gone back ${times(steps.length)} to a page of this listing it had already fetched, with the same records each time; the pages ahead, not the ones behind, hold anything new.`,
    );
  },
};
