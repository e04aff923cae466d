/** Why a model name could not be loaded; each has a sentence saying what to do. */
export type ModelErrorCode =
  | "MALFORMED_NAME"
  | "UNKNOWN_PROVIDER"
  | "MISSING_PROVIDER_PACKAGE"
  | "MISSING_API_KEY"
  | "UNKNOWN_SCENARIO";

/** Thrown for a model name this template cannot load, with what it can load or what to install. */
export class UnknownModelError extends Error {
  override readonly name: string = "UnknownModelError";
  constructor(
    readonly code: ModelErrorCode,
    /** The model name as the caller gave it. */
    readonly model: string,
    message: string,
  ) {
    super(message);
  }
}

/** Thrown when a model's provider is known but its LangChain package is not installed; names the package. */
export class MissingModelPackageError extends UnknownModelError {
  override readonly name = "MissingModelPackageError";
  constructor(
    model: string,
    /** The npm package to install, such as `@langchain/anthropic`. */
    readonly packageName: string,
  ) {
    super(
      "MISSING_PROVIDER_PACKAGE",
      model,
      `Model "${model}" needs the package ${packageName}, which is not installed: run \`npm install ${packageName}\` and restart the server.`,
    );
  }
}
