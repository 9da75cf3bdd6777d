/** @internal Minimal JSON-RPC shapes the transport guards look at (no SDK types needed). */

export type JsonRpcId = string | number;

export interface JsonRpcRequest {
  jsonrpc: "2.0";
  id: JsonRpcId;
  method: string;
  params?: Record<string, unknown>;
}

export function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function isId(value: unknown): value is JsonRpcId {
  return typeof value === "string" || typeof value === "number";
}

export function isRequest(message: unknown): message is JsonRpcRequest {
  return isObject(message) && isId(message.id) && typeof message.method === "string";
}

export function isResponse(
  message: unknown,
): message is { jsonrpc: "2.0"; id: JsonRpcId; result?: unknown; error?: unknown } {
  return (
    isObject(message) &&
    isId(message.id) &&
    message.method === undefined &&
    ("result" in message || "error" in message)
  );
}

export function resultMessage(id: JsonRpcId, result: unknown) {
  return { jsonrpc: "2.0" as const, id, result };
}

export function errorMessage(id: JsonRpcId, code: number, message: string, data?: unknown) {
  return {
    jsonrpc: "2.0" as const,
    id,
    error: data === undefined ? { code, message } : { code, message, data },
  };
}
