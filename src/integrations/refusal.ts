/**
 * What a framework adapter does when the tool guard refuses: hand the model a short,
 * stable message, or throw the {@link ToolGuardError}.
 *
 * @module
 */
import { ToolGuardError } from "../guard/errors.js";

/** `"message"`: return {@link refusalMessage} as the tool's output. `"throw"`: rethrow the {@link ToolGuardError}. */
export type OnRefusal = "message" | "throw";

/**
 * The text a model sees when a call is refused: `Blocked by policy (CODE). Do not retry
 * this tool.` It names the code and nothing else (no digests, no verifier reasons), so a
 * refusal leaks nothing to a prompt.
 *
 * @example
 * ```ts
 * import { ToolGuardError } from "agent-airlock/guard";
 * import { refusalMessage } from "agent-airlock/guard";
 * refusalMessage(new ToolGuardError("TOOL_DRIFT", "t", "moved")); // "Blocked by policy (TOOL_DRIFT). Do not retry this tool."
 * ```
 */
export function refusalMessage(error: ToolGuardError): string {
  return `Blocked by policy (${error.code}). Do not retry this tool.`;
}

/** Validate an `onRefusal` option (default `"message"`). */
export function readOnRefusal(value: unknown): OnRefusal {
  if (value === undefined) return "message";
  if (value === "message" || value === "throw") return value;
  throw new ToolGuardError(
    "GUARD_MISCONFIGURED",
    undefined,
    `onRefusal must be "message" or "throw", got ${typeof value === "string" ? JSON.stringify(value) : typeof value}`,
  );
}

/**
 * Run `check`, then `run`; on a {@link ToolGuardError} from the check, return the refusal
 * message or rethrow. Errors of the tool itself always propagate.
 */
export async function guarded<R>(
  onRefusal: OnRefusal,
  check: () => Promise<unknown>,
  run: () => R | PromiseLike<R>,
): Promise<R | string> {
  try {
    await check();
  } catch (err) {
    if (onRefusal === "message" && err instanceof ToolGuardError) return refusalMessage(err);
    throw err;
  }
  return await run();
}
