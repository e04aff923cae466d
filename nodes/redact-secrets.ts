/** Shorter strings are not treated as secrets: replacing them would mangle ordinary text. */
const MIN_SECRET_LENGTH = 8;

/** The secrets a run holds: the model API key and the Redis password (raw and URL-encoded). */
export function secretsOf(env: NodeJS.ProcessEnv): string[] {
  const secrets = [env.OPENAI_API_KEY];
  if (env.REDIS_URL) {
    try {
      const password = new URL(env.REDIS_URL).password;
      if (password) secrets.push(password, decodeURIComponent(password));
    } catch {
      // An unparseable URL holds no password we can find; the store reports it without the URL.
    }
  }
  return secrets.filter((s): s is string => typeof s === "string" && s.length >= MIN_SECRET_LENGTH);
}

/**
 * The error with every known secret masked, or the error itself when it holds
 * none. Some OpenAI-compatible proxies echo the whole API key in a 401; that
 * message would otherwise reach the run's error, logs and Studio.
 */
export function redactError(error: unknown, secrets: readonly string[]): unknown {
  if (!(error instanceof Error) || secrets.length === 0) return error;
  const text = `${error.message}\n${error.stack ?? ""}`;
  if (!secrets.some((s) => text.includes(s))) return error;
  const mask = (value: string) => secrets.reduce((out, s) => out.split(s).join("***"), value);
  const redacted = new Error(mask(error.message));
  redacted.name = error.name;
  redacted.stack = mask(error.stack ?? "");
  const status = (error as { status?: unknown }).status;
  if (status !== undefined) Object.assign(redacted, { status });
  return redacted;
}
