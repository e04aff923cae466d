// Masking secrets in text: the one implementation the Redis store (its
// connection errors) and the graph's redactor (model and tool output, log
// lines) share.

/** What replaces a secret. */
export const MASK = "***";

/** URL query parameters whose values are secrets by their name. */
export const SECRET_PARAM = /pass|secret|token|key/i;

/** Secrets of a URL (its password, raw and decoded, and secret-looking query values), to scrub from any text that may echo them. */
export function urlSecrets(url: string): string[] {
  try {
    const parsed = new URL(url);
    const secrets = [parsed.password, decodeURIComponent(parsed.password)];
    for (const [name, value] of parsed.searchParams) if (SECRET_PARAM.test(name)) secrets.push(value);
    return secrets.filter((s) => s.length > 0);
  } catch {
    return [];
  }
}

/** The text with every occurrence of each secret replaced by MASK; pass the secrets longest first, so one inside another is masked whole. */
export function maskSecrets(text: string, secrets: readonly string[]): string {
  let out = text;
  for (const secret of secrets) if (out.includes(secret)) out = out.split(secret).join(MASK);
  return out;
}
