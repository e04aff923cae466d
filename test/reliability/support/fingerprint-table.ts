import { canonicalArgs, fingerprintArgs, fingerprintOutput, summarizeOutcome } from "../../../breaker/index.js";
import { namedHostileValues, sampledHostileValues } from "./hostile-values.js";

/** Fingerprints of one value, every way the breaker takes them. */
export interface FingerprintRow {
  name: string;
  args: string;
  output: string;
  outcome: string;
  /** Length of the canonical arguments: catches a change that happens to hash alike. */
  canonicalLength: number;
}

/** Fingerprints of every named hostile value and `count` sampled ones: what two processes must agree on. */
export function fingerprintTable(seed: number, count: number): FingerprintRow[] {
  const named = namedHostileValues();
  const sampled = sampledHostileValues(seed, count).map((value, i): [string, unknown] => [`sample ${i}`, value]);
  return [...named, ...sampled].map(([name, value]) => ({
    name,
    args: fingerprintArgs(value),
    output: fingerprintOutput(value),
    outcome: summarizeOutcome({ output: value }).fingerprint,
    canonicalLength: canonicalArgs(value).length,
  }));
}
