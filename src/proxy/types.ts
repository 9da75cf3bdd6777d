/**
 * The shapes `airlock proxy` is run with and reports (public, re-exported by
 * `agent-airlock/mcp`), and the records its parts share about the requests in flight
 * (internal: `index.ts` does not export them).
 */
import type { Readable, Writable } from "node:stream";
import type { ListingCheck } from "../pins/types.js";
import type { AuditSink } from "./audit-log.js";
import type { DelegationGate } from "./delegation-gate.js";
import type { ProxyError } from "./errors.js";
import type { JsonRpcId } from "./json-rpc.js";
import type { ReceivedMessage } from "./line-channel.js";
import type { Upstream } from "./upstream.js";

/** What the proxy needs of a pin guard: `ToolDefinitionPinGuard` fits. */
export interface ListingJudge {
  checkListing(listing: unknown): ListingCheck;
}

/** Options of {@link runPinProxy}. */
export interface PinProxyOptions {
  /** The pins in force (`guardFromPinFile(file, { server })`). */
  guard: ListingJudge;
  /** The real server. */
  upstream: Upstream;
  /** The MCP client's side: what it writes, and where to answer it (stdin/stdout). */
  client: { input: Readable; output: Writable };
  /** Pin-file server section, for the audit log. */
  server?: string;
  /** Receives one record per decision. */
  audit?: AuditSink;
  /** Diagnostics for people (default: stderr). */
  log?: (line: string) => void;
  /** Page cap of the proxy's own full listings (default 100). */
  maxPages?: number;
  /** How long the proxy waits for the server to answer its own `tools/list` (default 30 s). */
  listTimeoutMs?: number;
  /** Largest message accepted from the client, in bytes. */
  maxMessageBytes?: number;
  /**
   * List the server again before each `tools/call` (one full listing per call): catches a
   * server that changes a definition without `list_changed`. Default false.
   */
  relistBeforeEachCall?: boolean;
  /**
   * Observe mode: judge everything, block nothing. Every listing reaches the client whole
   * and every call is forwarded; what would have been refused is logged (diagnostics and
   * audit, each record `observe: true`). Protocol checks (ids, batches, malformed
   * messages) still apply. Default false.
   */
  observe?: boolean;
  /**
   * The delegation check (`createDelegationGate`): a call the pins admit is forwarded only
   * when the gate allows it. Default: none (pins only).
   */
  delegation?: DelegationGate;
}

/** Why the proxy stopped. */
export interface PinProxyOutcome {
  reason: "client_closed" | "upstream_closed" | "upstream_fault" | "stopped";
  /** What went wrong with the server, when it did. */
  error?: ProxyError;
}

/** A running proxy. */
export interface RunningPinProxy {
  /** Settles when the proxy has stopped, the server is stopped and the client has every answer. */
  done: Promise<PinProxyOutcome>;
  /** Stop now: answer what is waiting, stop the server. */
  stop(): Promise<PinProxyOutcome>;
}

/** A request of the client's, from the time the proxy reads it until it is answered. */
export interface ClientRequest {
  from: "client";
  id: JsonRpcId;
  method: string;
  /** The cursor a `tools/list` asked for. */
  cursor: string | undefined;
  /** Whether the server has it: a `tools/call` is held until it is judged. */
  sent: boolean;
  /**
   * Another request came, while this one was in flight, with an id that reads as this
   * one's. The client may hand this answer to either, so only a form that is safe for
   * any request reaches it: a filtered listing, or an error.
   */
  reused: boolean;
}

/** A `tools/call` of the client's that the proxy holds until it is judged. */
export interface HeldCall {
  received: ReceivedMessage;
  request: ClientRequest;
}

/** A request the proxy sends itself (its own `tools/list`). */
export interface OwnRequest {
  from: "proxy";
  method: string;
  resolve(value: unknown): void;
  reject(error: Error): void;
  timer: NodeJS.Timeout | undefined;
}

/** Anything the server may answer. */
export type InFlight = ClientRequest | OwnRequest;
