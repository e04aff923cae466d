/**
 * A ToolError's code: any SCREAMING_SNAKE_CASE name a tool needs. There is no
 * closed list: each tool documents the codes it throws where it throws them.
 */
export type ToolErrorCode = string;

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
