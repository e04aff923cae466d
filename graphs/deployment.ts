import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import { BreakerError, DEFAULT_POLICY, parsePolicy, type Policy } from "../breaker/index.js";
import { applyKnobs, knobSpec, knobVariable, LIMIT_KNOBS, type Knobs, type LimitKnob } from "./limit-knobs.js";

/** What the operator decides for a deployment, from its environment; callers cannot change it. */
export interface Deployment {
  /** The policy every run starts from: its levels are the defaults and the ceilings a run's context may only tighten. */
  policy: Policy;
  /** Whether a run's context may name a breaker session shared across threads (namespaced per caller). */
  callerSessions: boolean;
}

/** The environment variable that names the deployment's policy file (JSON, any subset of the breaker policy). */
export const POLICY_FILE_VAR = "BREAKER_POLICY_FILE";
/** The environment variable that lets callers name their own breaker sessions. */
export const CALLER_SESSIONS_VAR = "BREAKER_CALLER_SESSIONS";

/** The environment variable of each knob: BREAKER_MAX_CALLS_PER_RUN for maxCallsPerRun, and so on. */
export const KNOB_VARS: Readonly<Record<LimitKnob, string>> = Object.fromEntries(LIMIT_KNOBS.map((knob) => [knob, knobVariable(knob)])) as Record<
  LimitKnob,
  string
>;

/** Thrown at startup for a deployment setting that cannot be used, naming the variable. */
export class DeploymentConfigError extends Error {
  override readonly name = "DeploymentConfigError";
  readonly code = "INVALID_DEPLOYMENT_SETTING";
  constructor(
    readonly variable: string,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}

function readPolicyFile(path: string): Policy {
  let text: string;
  try {
    text = readFileSync(resolve(path), "utf8");
  } catch (error) {
    throw new DeploymentConfigError(POLICY_FILE_VAR, `${POLICY_FILE_VAR} names "${path}", which cannot be read (${(error as Error).message}).`, { cause: error });
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    throw new DeploymentConfigError(POLICY_FILE_VAR, `${POLICY_FILE_VAR} "${path}" is not JSON (${(error as Error).message}).`, { cause: error });
  }
  try {
    return parsePolicy(json);
  } catch (error) {
    const reason = error instanceof BreakerError ? error.message : String(error);
    throw new DeploymentConfigError(POLICY_FILE_VAR, `${POLICY_FILE_VAR} "${path}": ${reason}`, { cause: error });
  }
}

function knobsFromEnv(env: NodeJS.ProcessEnv): Knobs {
  const knobs: Knobs = {};
  for (const knob of LIMIT_KNOBS) {
    const variable = KNOB_VARS[knob];
    const raw = env[variable]?.trim();
    if (!raw) continue;
    const value = Number(raw);
    const least = knobSpec(knob).min;
    if (!Number.isInteger(value) || value < least) {
      throw new DeploymentConfigError(variable, `${variable} must be a whole number of at least ${least} (got "${raw}").`);
    }
    knobs[knob] = value;
  }
  return knobs;
}

function flag(env: NodeJS.ProcessEnv, variable: string): boolean {
  const raw = env[variable]?.trim().toLowerCase() ?? "";
  if (raw === "" || raw === "false" || raw === "0" || raw === "no") return false;
  if (raw === "true" || raw === "1" || raw === "yes") return true;
  throw new DeploymentConfigError(variable, `${variable} must be true or false (got "${env[variable]}").`);
}

/**
 * The operator's settings: the policy file (BREAKER_POLICY_FILE, else the
 * breaker's defaults), then the BREAKER_<KNOB> variables on top of it, and
 * whether callers may name sessions (BREAKER_CALLER_SESSIONS).
 */
export function deploymentFromEnv(env: NodeJS.ProcessEnv = process.env): Deployment {
  const file = env[POLICY_FILE_VAR]?.trim();
  const base = file ? readPolicyFile(file) : DEFAULT_POLICY;
  let policy: Policy;
  try {
    policy = applyKnobs(base, knobsFromEnv(env), "set");
  } catch (error) {
    if (error instanceof DeploymentConfigError) throw error;
    const vars = LIMIT_KNOBS.map((k) => KNOB_VARS[k]).filter((v) => env[v]?.trim());
    throw new DeploymentConfigError(vars.join(","), `${vars.join(", ")}: ${(error as Error).message}`, { cause: error });
  }
  return { policy, callerSessions: flag(env, CALLER_SESSIONS_VAR) };
}
