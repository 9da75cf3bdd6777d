/**
 * The few JSON-RPC 2.0 shapes the proxy tells apart. Messages are kept as the parsed
 * objects they arrived as: the proxy forwards them byte-for-byte equivalent and only
 * builds new objects for what it changes (a filtered listing, a refusal).
 */

/** A JSON-RPC id: the proxy matches responses to requests by it. */
export type JsonRpcId = string | number;

/** Any parsed JSON-RPC message (an object with `jsonrpc`). */
export type JsonRpcMessage = Record<string, unknown>;

/** What a message is, by its members. */
export type MessageKind = "request" | "notification" | "response" | "invalid";

/**
 * Classify a parsed message: a request has `method` and `id`, a notification `method`
 * and no `id`, a response `id` and exactly one of `result` and `error`. A message that
 * mixes the shapes (a `method` with a `result`, a `result` with an `error`) is invalid:
 * clients disagree on what it is, so the proxy treats it as neither.
 *
 * @example
 * ```ts
 * import { messageKind } from "./json-rpc.js";
 * console.log(messageKind({ jsonrpc: "2.0", id: 1, method: "tools/list" })); // "request"
 * console.log(messageKind({ jsonrpc: "2.0", id: 1, method: "ping", result: {} })); // "invalid"
 * ```
 */
export function messageKind(message: unknown): MessageKind {
  if (typeof message !== "object" || message === null || Array.isArray(message)) return "invalid";
  const m = message as JsonRpcMessage;
  if (m.jsonrpc !== "2.0") return "invalid";
  const hasId = Object.hasOwn(m, "id");
  const hasResult = Object.hasOwn(m, "result");
  const hasError = Object.hasOwn(m, "error");
  if (Object.hasOwn(m, "method")) {
    if (typeof m.method !== "string" || hasResult || hasError) return "invalid";
    if (!hasId) return "notification";
    return isId(m.id) ? "request" : "invalid";
  }
  if (hasId && hasResult !== hasError) {
    return isId(m.id) || m.id === null ? "response" : "invalid";
  }
  return "invalid";
}

function isId(id: unknown): id is JsonRpcId {
  return typeof id === "string" || (typeof id === "number" && Number.isFinite(id));
}

/**
 * A JSON-RPC error response.
 *
 * @example
 * ```ts
 * import { errorResponse } from "./json-rpc.js";
 * console.log(errorResponse(7, -32603, "upstream gone").error); // { code: -32603, message: "upstream gone" }
 * ```
 */
export function errorResponse(id: unknown, code: number, message: string): JsonRpcMessage {
  return { jsonrpc: "2.0", id: id ?? null, error: { code, message } };
}

/** JSON-RPC error codes the proxy uses. */
export const RPC_PARSE_ERROR = -32700;
export const RPC_INVALID_REQUEST = -32600;
export const RPC_INTERNAL_ERROR = -32603;
