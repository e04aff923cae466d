/** The environment variable that turns the ops routes on and holds their bearer token. */
export const ADMIN_TOKEN_VAR = "BREAKER_ADMIN_TOKEN";

/** Shortest token accepted: the routes can reset any session, so a guessable token is refused at startup. */
export const MIN_ADMIN_TOKEN_LENGTH = 16;

/** Thrown at startup for an admin token that cannot be used, naming the variable. */
export class AdminTokenError extends Error {
  override readonly name = "AdminTokenError";
  readonly code = "INVALID_DEPLOYMENT_SETTING";
  readonly variable = ADMIN_TOKEN_VAR;
}

/**
 * The operator's admin token, or undefined when the ops routes are off (the
 * variable unset or blank). A token shorter than MIN_ADMIN_TOKEN_LENGTH
 * stops the server with an error naming the variable.
 */
export function adminTokenFromEnv(env: Record<string, string | undefined> = process.env): string | undefined {
  const token = env[ADMIN_TOKEN_VAR]?.trim();
  if (!token) return undefined;
  if (token.length < MIN_ADMIN_TOKEN_LENGTH) {
    throw new AdminTokenError(
      `${ADMIN_TOKEN_VAR} must be at least ${MIN_ADMIN_TOKEN_LENGTH} characters (got ${token.length}): it guards routes that reset breaker sessions. Generate one with \`openssl rand -hex 32\`.`,
    );
  }
  return token;
}
