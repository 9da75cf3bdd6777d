/**
 * The stdio MCP proxy behind `airlock proxy`: a real server (child process or Streamable
 * HTTP) behind the pins, at the JSON-RPC message level. Re-exported by
 * `agent-airlock/mcp`.
 *
 * @example
 * ```ts
 * import { guardFromPinFile, readPinFile } from "agent-airlock";
 * import { runPinProxy, spawnStdioUpstream } from "agent-airlock/mcp";
 * const guard = guardFromPinFile(await readPinFile("airlock.pins.json"), { server: "everything" });
 * const proxy = runPinProxy({
 *   guard,
 *   upstream: spawnStdioUpstream({ command: "npx", args: ["-y", "@modelcontextprotocol/server-everything"] }),
 *   client: { input: process.stdin, output: process.stdout },
 * });
 * console.error((await proxy.done).reason);
 * ```
 */
export { type AuditRecord, type AuditSink, openAuditLog } from "./audit-log.js";
export {
  createDelegationGate,
  type DelegationAnswer,
  type DelegationGate,
  type DelegationGateOptions,
} from "./delegation-gate.js";
export { ProxyError, type ProxyErrorCode } from "./errors.js";
export { connectHttpUpstream, type HttpUpstreamOptions } from "./http-upstream.js";
export { BLOCK_PREFIX, runPinProxy } from "./pin-proxy.js";
export { type StdioUpstreamOptions, spawnStdioUpstream } from "./stdio-upstream.js";
export type { ListingJudge, PinProxyOptions, PinProxyOutcome, RunningPinProxy } from "./types.js";
export type { Upstream, UpstreamEvents } from "./upstream.js";
