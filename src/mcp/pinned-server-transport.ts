import { randomUUID } from "node:crypto";
import type {
  Transport,
  TransportSendOptions,
} from "@modelcontextprotocol/sdk/shared/transport.js";
import type { JSONRPCMessage, MessageExtraInfo } from "@modelcontextprotocol/sdk/types.js";
import type { ToolDefinitionPinGuard } from "../pins/index.js";
import type { ListingCheck, ToolDefinition } from "../pins/types.js";
import { checkToolArguments, type UnknownArgumentsPolicy } from "./argument-guard.js";
import { McpServerProbeError } from "./errors.js";
import {
  errorMessage,
  isObject,
  isRequest,
  isResponse,
  type JsonRpcRequest,
  resultMessage,
} from "./json-rpc.js";
import {
  blockedToolResult,
  LISTING_REFUSED_ERROR_CODE,
  listingRefusedMessage,
  quoteName,
} from "./refusal.js";
import { type ProbeRequest, rpcError } from "./server-probe.js";
import { judgeListing, readServerListing, type ServerToolJudgement } from "./server-tools.js";
import { checkMaxPages, DEFAULT_MAX_PAGES } from "./tool-pages.js";

/** What a secured server refused (or, with `enforce` off, would have refused). */
export interface ServerRefusal {
  /** `start`: the listing at start-up was not fully admitted; `listing`: tools left out; `call`, `arguments`. */
  kind: "start" | "listing" | "call" | "arguments";
  /** False with `enforce` off: logged only, nothing refused. */
  enforced: boolean;
  message: string;
  toolName?: string;
  check?: ListingCheck;
}

/** Options of {@link PinnedServerTransport} and `secureServer`. */
export interface ServerGuardOptions {
  /** The pins that decide which tools the server may serve. */
  pinGuard: ToolDefinitionPinGuard;
  /** Cap on the pages of the server's own listing (default 100). */
  maxPages?: number;
  /** Validate call arguments against the tool's inputSchema: every tool (`true`), none (default), or per tool. */
  guardArguments?: boolean | ((toolName: string) => boolean);
  /** Arguments the inputSchema does not declare: `refuse` (default) or `strip`. */
  unknownArguments?: UnknownArgumentsPolicy;
  /** Receives every refusal. Default: one line on stderr (stdout belongs to stdio transports). */
  onRefusal?: (refusal: ServerRefusal) => void;
  /** How long the server may take to answer agent-airlock's own tools/list (default 10 s). */
  timeoutMs?: number;
}

function logToStderr(refusal: ServerRefusal): void {
  process.stderr.write(
    `airlock: ${refusal.enforced ? "refused" : "would refuse (enforce off)"} ${refusal.kind}: ${refusal.message}\n`,
  );
}

/**
 * A server-side `Transport` wrapper that puts the pins between a client and any MCP
 * server (SDK `McpServer`, low-level `Server`, FastMCP) without touching private fields:
 * it reads the server's own tools through the protocol (its own `tools/list` requests,
 * which never reach the client) whenever a client lists or calls.
 *
 * - Start: until a listing is fully admitted, the server is not started: a client's
 *   `tools/list` gets the error `tools/list refused: not admitted by the pins: ...` and
 *   every call is refused.
 * - Every `tools/list` is answered with the admitted tools only (one page, no cursor), so
 *   a tool added or replaced after start is left out at the next listing.
 * - Every `tools/call` is judged against the server's current definition of that tool;
 *   a tool the pins do not admit (including one the server never lists) is refused with
 *   an `isError` result whose text starts `AIRLOCK_BLOCK:`.
 * - With `pinGuard.enforce` off nothing is refused; refusals are only reported.
 *
 * Usually created by `secureServer(...).connect(transport)`.
 *
 * @example
 * ```ts
 * import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
 * import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
 * import { ToolDefinitionPinGuard } from "agent-airlock";
 * import { PinnedServerTransport } from "agent-airlock/mcp";
 * const server = new McpServer({ name: "demo", version: "1.0.0" });
 * const [, serverSide] = InMemoryTransport.createLinkedPair();
 * await server.connect(new PinnedServerTransport(serverSide, { pinGuard: new ToolDefinitionPinGuard() }));
 * ```
 */
export class PinnedServerTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: <T extends JSONRPCMessage>(message: T, extra?: MessageExtraInfo) => void;

  readonly #inner: Transport;
  readonly #guard: ToolDefinitionPinGuard;
  readonly #maxPages: number;
  readonly #guardArguments: (toolName: string) => boolean;
  readonly #unknownArguments: UnknownArgumentsPolicy;
  readonly #onRefusal: (refusal: ServerRefusal) => void;
  readonly #timeoutMs: number;
  readonly #idPrefix = `airlock-${randomUUID()}-`;
  #nextId = 1;
  readonly #probes = new Map<
    string,
    { resolve: (v: unknown) => void; reject: (e: Error) => void }
  >();
  #started = false;

  constructor(inner: Transport, options: ServerGuardOptions) {
    this.#inner = inner;
    this.#guard = options.pinGuard;
    this.#maxPages = checkMaxPages(options.maxPages ?? DEFAULT_MAX_PAGES);
    const guardArguments = options.guardArguments ?? false;
    this.#guardArguments =
      typeof guardArguments === "function" ? guardArguments : () => guardArguments;
    this.#unknownArguments = options.unknownArguments ?? "refuse";
    this.#onRefusal = options.onRefusal ?? logToStderr;
    this.#timeoutMs = options.timeoutMs ?? 10_000;
    inner.onmessage = (message, extra) => this.#fromClient(message, extra);
    inner.onclose = () => {
      for (const probe of this.#probes.values())
        probe.reject(new McpServerProbeError("the connection closed"));
      this.#probes.clear();
      this.onclose?.();
    };
    inner.onerror = (error) => this.onerror?.(error);
  }

  /** True once a listing of the server was fully admitted in this session. */
  get started(): boolean {
    return this.#started;
  }

  get sessionId(): string | undefined {
    return this.#inner.sessionId;
  }

  setProtocolVersion(version: string): void {
    this.#inner.setProtocolVersion?.(version);
  }

  start(): Promise<void> {
    return this.#inner.start();
  }

  close(): Promise<void> {
    return this.#inner.close();
  }

  async send(message: JSONRPCMessage, options?: TransportSendOptions): Promise<void> {
    if (isResponse(message) && typeof message.id === "string") {
      const probe = this.#probes.get(message.id);
      if (probe) {
        this.#probes.delete(message.id);
        if (message.error !== undefined) probe.reject(rpcError(message.error));
        else probe.resolve(message.result);
        return;
      }
    }
    return this.#inner.send(message, options);
  }

  #report(refusal: ServerRefusal): void {
    try {
      this.#onRefusal(refusal);
    } catch {
      // A faulty listener must not change the decision.
    }
  }

  #reply(message: unknown): void {
    this.#inner
      .send(message as JSONRPCMessage)
      .catch((err: unknown) => this.onerror?.(err as Error));
  }

  #fromClient(message: JSONRPCMessage, extra?: MessageExtraInfo): void {
    if (isRequest(message) && message.method === "tools/list") {
      void this.#answerList(message, extra);
    } else if (isRequest(message) && message.method === "tools/call") {
      void this.#answerCall(message, extra);
    } else {
      this.onmessage?.(message, extra);
    }
  }

  #probe(extra: MessageExtraInfo | undefined): ProbeRequest {
    return (method, params) =>
      new Promise((resolve, reject) => {
        const deliver = this.onmessage;
        if (!deliver) {
          reject(new McpServerProbeError("the server is not connected to this transport"));
          return;
        }
        const id = `${this.#idPrefix}${this.#nextId++}`;
        const timer = setTimeout(() => {
          this.#probes.delete(id);
          reject(
            new McpServerProbeError(
              `the server did not answer ${method} within ${this.#timeoutMs} ms`,
            ),
          );
        }, this.#timeoutMs);
        this.#probes.set(id, {
          resolve: (v) => {
            clearTimeout(timer);
            resolve(v);
          },
          reject: (e) => {
            clearTimeout(timer);
            reject(e);
          },
        });
        deliver({ jsonrpc: "2.0", id, method, params } as JSONRPCMessage, extra);
      });
  }

  async #judge(extra: MessageExtraInfo | undefined): Promise<ServerToolJudgement> {
    const listing = await readServerListing(this.#probe(extra), this.#maxPages);
    const judgement = judgeListing(listing, this.#guard);
    if (judgement.check.allowed) this.#started = true;
    return judgement;
  }

  async #answerList(message: JsonRpcRequest, extra: MessageExtraInfo | undefined): Promise<void> {
    if (message.params?.cursor !== undefined) {
      this.#reply(
        errorMessage(
          message.id,
          -32602,
          "tools/list: unknown cursor (this server lists every tool on one page)",
        ),
      );
      return;
    }
    let judgement: ServerToolJudgement;
    try {
      judgement = await this.#judge(extra);
    } catch (err) {
      const text = `tools/list refused: the server's own tool listing could not be read: ${(err as Error).message}`;
      this.#report({ kind: "listing", enforced: true, message: text });
      this.#reply(errorMessage(message.id, LISTING_REFUSED_ERROR_CODE, text));
      return;
    }
    const { listing, check } = judgement;
    const enforce = this.#guard.enforce;
    if (!check.allowed) {
      const text = listingRefusedMessage(check.refused.map((r) => r.name));
      const kind = this.#started ? "listing" : "start";
      this.#report({ kind, enforced: enforce, message: text, check });
      if (enforce && !this.#started) {
        this.#reply(
          errorMessage(message.id, LISTING_REFUSED_ERROR_CODE, text, {
            refused: check.refused.map((r) => r.name),
          }),
        );
        return;
      }
    }
    const tools = enforce ? [...judgement.admitted.values()] : listing.tools;
    this.#reply(resultMessage(message.id, { ...listing, tools }));
  }

  async #answerCall(message: JsonRpcRequest, extra: MessageExtraInfo | undefined): Promise<void> {
    const name = message.params?.name;
    const enforce = this.#guard.enforce;
    const block = (kind: ServerRefusal["kind"], reason: string, check?: ListingCheck) => {
      this.#report({
        kind,
        enforced: enforce,
        message: reason,
        toolName: String(name),
        ...(check ? { check } : {}),
      });
      if (enforce) this.#reply(resultMessage(message.id, blockedToolResult(reason)));
      return enforce;
    };
    let judgement: ServerToolJudgement;
    try {
      judgement = await this.#judge(extra);
    } catch (err) {
      // Fail closed whatever the mode: nothing is known about the tool.
      const reason = `tool ${quoteName(name)} cannot be checked: the server's own tool listing could not be read (${(err as Error).message}).`;
      this.#report({ kind: "call", enforced: true, message: reason, toolName: String(name) });
      this.#reply(resultMessage(message.id, blockedToolResult(reason)));
      return;
    }
    const { check } = judgement;
    let definition = typeof name === "string" ? judgement.admitted.get(name) : undefined;
    if (!this.#started) {
      const refused = check.refused.map((r) => r.name);
      const reason = `this server has not started: its tools are not admitted by the pins (${listingRefusedMessage(refused).replace(/^tools\/list refused: not admitted by the pins: /, "")}). Ask the operator to review and approve them.`;
      if (block("start", reason, check)) return;
    } else if (definition === undefined) {
      const refusal = check.refused.find((r) => r.name === name);
      const reason = refusal
        ? `tool ${quoteName(name)} is not admitted by the pins (${refusal.reason}): ${refusal.detail} Ask the operator to review and approve it.`
        : `tool ${quoteName(name)} is not admitted by the pins: the server does not list it. Use only the tools from tools/list.`;
      if (block("call", reason, check)) return;
    }
    definition ??= judgement.listing.tools.find((t) => isObject(t) && t.name === name);
    let forwarded: JsonRpcRequest = message;
    if (typeof name === "string" && definition !== undefined && this.#guardArguments(name)) {
      const verdict = checkToolArguments(definition as ToolDefinition, message.params?.arguments, {
        unknownArguments: this.#unknownArguments,
      });
      if (!verdict.ok) {
        if (block("arguments", verdict.reason)) return;
      } else if (verdict.stripped.length > 0) {
        forwarded = { ...message, params: { ...message.params, arguments: verdict.arguments } };
      }
    }
    this.onmessage?.(forwarded as JSONRPCMessage, extra);
  }
}
