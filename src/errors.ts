/**
 * Every error agent-airlock throws is an {@link AirlockError} with a stable `code`
 * string. Switch on `code`, not on the message: messages may improve between releases,
 * codes do not.
 *
 * @example
 * ```ts
 * import { AirlockError } from "agent-airlock";
 * try {
 *   guard.validate(tool);
 * } catch (err) {
 *   if (err instanceof AirlockError && err.code === "ERR_TOOL_DEFINITION_DRIFT") refuse();
 *   else throw err;
 * }
 * ```
 */
export class AirlockError extends Error {
  /** Stable, machine-readable error code. */
  readonly code: string;

  constructor(code: string, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.code = code;
    this.name = new.target.name;
  }
}
