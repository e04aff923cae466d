// What a case built for the corpus must not share with it: a held-out case is only evidence when nothing
// in the corpus came from its source, and no case is worth counting twice.
import { createRedactor } from "../../nodes/redact.js";
import type { LabelledTrajectory } from "./load.js";

/** What the corpus already holds: case ids, source folders, the repositories and pages its sources name, call lists. */
export interface CorpusIndex {
  ids: Set<string>;
  folders: Set<string>;
  origins: Set<string>;
  calls: Map<string, string>;
}

const GITHUB_REPO = /github\.com\/([^/\s#?]+\/[^/\s#?]+)/i;

/** The repositories (owner/name) and pages a case's `source` names, lowercased. */
export function originsOf(source: unknown): string[] {
  if (source === null || source === undefined) return [];
  const fields = typeof source === "object" ? (source as Record<string, unknown>) : { url: source };
  const origins: string[] = [];
  if (typeof fields.repo === "string") origins.push(fields.repo.toLowerCase());
  for (const value of Object.values(fields)) {
    if (typeof value !== "string" || !/^https?:\/\//i.test(value)) continue;
    origins.push(value.toLowerCase().replace(/[#?].*$/, ""));
    const repo = GITHUB_REPO.exec(value)?.[1];
    if (repo) origins.push(repo.toLowerCase().replace(/\.git$/, ""));
  }
  return origins;
}

// The calls of a case as one text: the same list in two cases is one case counted twice.
function callsOf(data: unknown): string {
  const record = data as { toolCalls?: unknown[]; messages?: unknown[] };
  const list = record.toolCalls ?? record.messages ?? [];
  return JSON.stringify(list.map((c) => {
    const call = c as Record<string, unknown>;
    return [call.name, call.args, call.output ?? call.error];
  }));
}

/** Index the corpus for `noveltyProblems`. */
export function corpusIndex(corpus: readonly LabelledTrajectory[]): CorpusIndex {
  const index: CorpusIndex = { ids: new Set(), folders: new Set(), origins: new Set(), calls: new Map() };
  for (const c of corpus) {
    index.ids.add(c.id);
    index.folders.add(c.source);
    for (const origin of originsOf((c.data as { source?: unknown }).source)) index.origins.add(origin);
    index.calls.set(callsOf(c.data), c.id);
  }
  return index;
}

const redact = createRedactor({});

/** Why a case built in `folder` cannot join the corpus as new evidence; empty when it can. */
export function noveltyProblems(data: Record<string, unknown>, folder: string, index: CorpusIndex): string[] {
  const problems: string[] = [];
  if (typeof data.id === "string" && index.ids.has(data.id)) problems.push(`id ${data.id} is already a corpus case`);
  if (index.folders.has(folder)) problems.push(`source folder ${folder} is already in the corpus`);
  for (const origin of new Set(originsOf(data.source))) if (index.origins.has(origin)) problems.push(`source ${origin} is already in the corpus`);
  const same = index.calls.get(callsOf(data));
  if (same !== undefined) problems.push(`its calls are those of corpus case ${same}`);
  const text = JSON.stringify(data);
  if (redact.text(text) !== text) problems.push("holds a secret-shaped string (a key, a token, a URL password): replace it with <redacted>");
  return problems;
}
