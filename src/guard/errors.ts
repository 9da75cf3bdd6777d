/**
 * The error the tool guard refuses with. One class, five stable codes: switch on `code`.
 *
 * @module
 */
import { AirlockError } from "../errors.js";

/**
 * Why the tool guard refused a call. In the order the guard checks:
 *
 * - `GUARD_MISCONFIGURED`: the guard or the call is set up wrongly (an agent or root that
 *   is not a DID, a pin that is not 64 hex digits, a bad cache setting, a bad tool name or
 *   capability). Fix the configuration; retrying changes nothing.
 * - `TOOL_DEFINITION_MISSING`: the tool is pinned but no definition was supplied (or the
 *   definition could not be fetched), or `requirePins` is on and the tool has no pin.
 * - `TOOL_DRIFT`: the definition served now is not the pinned one (a rug pull, or an
 *   upgrade nobody approved). The verifier is not asked.
 * - `TOOL_NOT_AUTHORIZED`: the verifier answered DENY, the delegation expired, or the
 *   verifier checked a different root.
 * - `GUARD_UNAVAILABLE`: the verifier could not answer (threw, timed out, was rate
 *   limited, or answered something that is not a verdict). The call is refused.
 */
export type ToolGuardErrorCode =
  | "GUARD_MISCONFIGURED"
  | "TOOL_DEFINITION_MISSING"
  | "TOOL_DRIFT"
  | "TOOL_NOT_AUTHORIZED"
  | "GUARD_UNAVAILABLE";

/**
 * Every {@link ToolGuardErrorCode}, in check order.
 *
 * @example
 * ```ts
 * import { TOOL_GUARD_ERROR_CODES } from "agent-airlock/guard";
 * console.log(TOOL_GUARD_ERROR_CODES[0]); // "GUARD_MISCONFIGURED"
 * ```
 */
export const TOOL_GUARD_ERROR_CODES: readonly ToolGuardErrorCode[] = Object.freeze([
  "GUARD_MISCONFIGURED",
  "TOOL_DEFINITION_MISSING",
  "TOOL_DRIFT",
  "TOOL_NOT_AUTHORIZED",
  "GUARD_UNAVAILABLE",
]);

/** What a {@link ToolGuardError} knows about the refused call (JSON-serialisable). */
export interface ToolGuardErrorDetail {
  /** The capability the call needed; absent when the refusal came before it was known. */
  capability?: string;
  /** The agent DID of the guard. */
  agent?: string;
  /** The trusted root DID of the guard. */
  root?: string;
  /** The pinned digest (lowercase hex), on `TOOL_DRIFT`. */
  pinnedDigest?: string;
  /** The digest of the definition served now, on `TOOL_DRIFT` when it could be computed. */
  observedDigest?: string;
  /** The verifier's reason, on `TOOL_NOT_AUTHORIZED`. */
  reason?: string;
}

/**
 * A tool call refused by the tool guard. The handler did not run.
 *
 * @example
 * ```ts
 * import { ToolGuardError } from "agent-airlock/guard";
 * const err = new ToolGuardError("TOOL_DRIFT", "weather_forecast", "definition moved", {
 *   capability: "weather:forecast",
 * });
 * if (err instanceof ToolGuardError && err.code === "TOOL_DRIFT") console.log(err.tool, err.detail.capability);
 * ```
 */
export class ToolGuardError extends AirlockError {
  declare readonly code: ToolGuardErrorCode;
  /** The tool the call was for; `undefined` when the refusal is about the guard itself. */
  readonly tool: string | undefined;
  /** Structured context: capability, agent, root, digests, verifier reason. */
  readonly detail: Readonly<ToolGuardErrorDetail>;

  constructor(
    code: ToolGuardErrorCode,
    tool: string | undefined,
    message: string,
    detail: ToolGuardErrorDetail = {},
    options?: { cause?: unknown },
  ) {
    super(code, message, options);
    this.tool = tool;
    this.detail = Object.freeze({ ...detail });
  }
}
