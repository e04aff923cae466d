/** Codes of the errors the example tools throw on input they cannot serve. */
export type ToolErrorCode =
  | "UNPARSEABLE_PATH"
  | "FILE_NOT_FOUND"
  | "UNSUPPORTED_SQL"
  | "UNKNOWN_RELATION"
  | "UNKNOWN_COLUMN"
  | "JOB_NOT_FOUND";

/** A typed tool failure with a sentence the model can act on; the tools node turns it into an error ToolMessage. */
export class ToolError extends Error {
  override readonly name = "ToolError";
  constructor(
    readonly code: ToolErrorCode,
    message: string,
  ) {
    super(message);
  }
}
