import { createHash, timingSafeEqual } from "node:crypto";

const digest = (text: string): Buffer => createHash("sha256").update(text, "utf8").digest();

/**
 * True when an Authorization header carries `Bearer <token>`. The tokens are
 * compared as SHA-256 digests with timingSafeEqual: equal lengths, so neither
 * the time taken nor an early length mismatch tells a caller how close a
 * guess came.
 */
export function bearerMatches(header: string | undefined, token: string): boolean {
  const match = /^Bearer[ \t]+(\S+)[ \t]*$/i.exec(header ?? "");
  const given = match?.[1] ?? "";
  // Compared even when the header is missing, so a bad header costs what a bad token costs.
  const same = timingSafeEqual(digest(given), digest(token));
  return match !== null && same;
}
