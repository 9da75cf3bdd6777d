// The JSON-RPC shapes airlock proxy tells apart (src/proxy/json-rpc.ts): a message that
// mixes the shapes is invalid, since clients disagree on what it is (the proxy stops on
// one from the server and answers one from the client with an error).
import { describe, expect, it } from "vitest";
import { messageKind } from "../../src/proxy/json-rpc.js";

describe("messageKind", () => {
  it.each([
    [{ jsonrpc: "2.0", id: 1, method: "tools/list" }, "request"],
    [{ jsonrpc: "2.0", id: "a", method: "tools/list", params: {} }, "request"],
    [{ jsonrpc: "2.0", method: "notifications/initialized" }, "notification"],
    [{ jsonrpc: "2.0", id: 1, result: {} }, "response"],
    [{ jsonrpc: "2.0", id: null, error: { code: -32700, message: "parse" } }, "response"],
    [{ jsonrpc: "2.0", id: 1, method: "ping", result: { tools: [] } }, "invalid"],
    [{ jsonrpc: "2.0", method: "ping", error: { code: 1, message: "x" } }, "invalid"],
    [{ jsonrpc: "2.0", id: 1, result: {}, error: { code: 1, message: "x" } }, "invalid"],
    [{ jsonrpc: "2.0", id: 1, method: 7, result: {} }, "invalid"],
    [{ jsonrpc: "2.0", id: null, method: "tools/call" }, "invalid"],
    [{ jsonrpc: "2.0", id: { n: 1 }, result: {} }, "invalid"],
    [{ jsonrpc: "2.0", id: 1 }, "invalid"],
    [{ jsonrpc: "1.0", id: 1, method: "ping" }, "invalid"],
    [[{ jsonrpc: "2.0", id: 1, method: "ping" }], "invalid"],
    [null, "invalid"],
  ])("%j is %s", (message, kind) => {
    expect(messageKind(message)).toBe(kind);
  });
});
