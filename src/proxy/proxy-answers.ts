/**
 * The answers `airlock proxy` writes to the client itself, in place of the server's: a
 * refused call, a refused request, an answer withheld, a request the proxy could not
 * complete. Wire messages (what the client and its model read); every refusal starts
 * `AIRLOCK_BLOCK:` so clients and people can recognise it.
 */
import { AIRLOCK_BLOCK, blockedToolResult, quoteName } from "../mcp/refusal.js";
import { auditId } from "./auditor.js";
import {
  errorResponse,
  type JsonRpcMessage,
  RPC_INTERNAL_ERROR,
  RPC_INVALID_REQUEST,
} from "./json-rpc.js";

/** Why a server's answer was replaced by an error. */
export type WithheldReason = "id_reused" | "duplicate_id";

/**
 * A `tools/call` the proxy refuses: a tool result with `isError`, which a model reads. It
 * names the verdict (a pin verdict such as `deny_schema_drift`, `closed`, `not_listed`,
 * or the tool guard's code such as `TOOL_NOT_AUTHORIZED`), the reason, and what to do.
 *
 * @example
 * ```ts
 * import { blockedCallAnswer } from "./proxy-answers.js";
 * const answer = blockedCallAnswer(4, "rm", "deny_unpinned", 'tool "rm" has no pin');
 * console.log(answer.result); // { content: [{ type: "text", text: "AIRLOCK_BLOCK: tool \"rm\" is not admitted (deny_unpinned): tool \"rm\" has no pin; ..." }], isError: true }
 * ```
 */
export function blockedCallAnswer(
  id: unknown,
  toolName: string | null,
  verdict: string,
  reason: string,
): JsonRpcMessage {
  const shown = toolName !== null ? quoteName(toolName) : "without a name";
  return {
    jsonrpc: "2.0",
    id,
    result: blockedToolResult(
      `tool ${shown} is not admitted (${verdict}): ${reason}; the call was not forwarded. ${blockHint(verdict)}`,
    ),
  };
}

/** What the reader of a refused call can do about it. */
function blockHint(verdict: string): string {
  switch (verdict) {
    case "not_listed":
      return "Use only the tools from tools/list.";
    case "no_name":
      return "Name the tool to call.";
    case "listing_failed":
      return "The proxy could not list the server's tools; retry once the server answers tools/list.";
    case "TOOL_NOT_AUTHORIZED":
      return "The agent's delegation does not grant this tool's capability: have one issued that does (`airlock delegate issue`).";
    case "GUARD_UNAVAILABLE":
      return "The delegation verifier could not answer and the proxy fails closed: retry later.";
    case "GUARD_MISCONFIGURED":
      return "The proxy's delegation settings cannot check this tool: fix them and restart the client.";
    default:
      return "Review it with `airlock check` and re-approve with `airlock pin`.";
  }
}

/**
 * A request in a JSON-RPC batch: batches are refused whole, since one could carry a call
 * past the per-message check.
 *
 * @example
 * ```ts
 * import { batchRefusal } from "./proxy-answers.js";
 * console.log(batchRefusal(9).error); // { code: -32600, message: "AIRLOCK_BLOCK: JSON-RPC batches are not accepted by airlock proxy" }
 * ```
 */
export function batchRefusal(id: unknown): JsonRpcMessage {
  return errorResponse(
    id,
    RPC_INVALID_REQUEST,
    `${AIRLOCK_BLOCK} JSON-RPC batches are not accepted by airlock proxy`,
  );
}

/**
 * A request whose id is, or reads as, the id of a request in flight.
 *
 * @example
 * ```ts
 * import { reusedIdRefusal } from "./proxy-answers.js";
 * console.log(reusedIdRefusal("3").error.code); // -32600
 * ```
 */
export function reusedIdRefusal(id: unknown): JsonRpcMessage {
  return errorResponse(
    id,
    RPC_INVALID_REQUEST,
    `${AIRLOCK_BLOCK} request id ${JSON.stringify(auditId(id))} is already in flight (or reads as the id of a request in flight, as "3" reads as 3); the request was not forwarded. Give each request in flight its own id.`,
  );
}

/**
 * A held call whose id another request reused while it waited: it is not forwarded.
 *
 * @example
 * ```ts
 * import { reusedCallRefusal } from "./proxy-answers.js";
 * console.log(reusedCallRefusal(5).error.code); // -32600
 * ```
 */
export function reusedCallRefusal(id: unknown): JsonRpcMessage {
  return errorResponse(
    id,
    RPC_INVALID_REQUEST,
    `${AIRLOCK_BLOCK} the client sent another request with this call's id while it was waiting; the call was not forwarded`,
  );
}

/**
 * An error in place of the server's answer to a request, when the answer could be read
 * as the answer to another one.
 *
 * @example
 * ```ts
 * import { withheldAnswer } from "./proxy-answers.js";
 * console.log(withheldAnswer(6, "tools/call", "duplicate_id").error.code); // -32603
 * ```
 */
export function withheldAnswer(
  id: unknown,
  method: string,
  reason: WithheldReason,
): JsonRpcMessage {
  const why =
    reason === "id_reused"
      ? "the client sent another request with the same id while this one was waiting"
      : "it names its id twice, so clients could read it as the answer to another request";
  return errorResponse(
    id,
    RPC_INTERNAL_ERROR,
    `${AIRLOCK_BLOCK} the server's answer to ${quoteName(method)} was withheld: ${why}`,
  );
}

/**
 * A request the proxy is stopping without an answer for: `held` when the server never had it.
 *
 * @example
 * ```ts
 * import { unansweredRequest } from "./proxy-answers.js";
 * console.log(unansweredRequest(2, "the server exited (code 1)", false).error.message);
 * // "airlock proxy: the server exited (code 1); the request was not answered"
 * ```
 */
export function unansweredRequest(id: unknown, why: string, held: boolean): JsonRpcMessage {
  return errorResponse(
    id,
    RPC_INTERNAL_ERROR,
    `airlock proxy: ${why}; ${held ? "the call was not forwarded" : "the request was not answered"}`,
  );
}
