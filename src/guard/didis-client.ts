/**
 * A client for a DID.is-compatible delegation service (the hosted `https://did.is/api`, or
 * your own `airlock delegate serve`). Every failure is a {@link DidisError} with a stable
 * code; nothing a service says is trusted unless it has the expected shape and echoes
 * back the agent, tool and root that were asked about.
 *
 * @module
 */
import { grants } from "./capability.js";
import { DidisError, type ProblemDetails } from "./delegation/errors.js";
import type { DelegationVerification } from "./delegation/verify.js";

/**
 * The hosted service, the default `baseUrl`.
 *
 * @example
 * ```ts
 * import { DIDIS_DEFAULT_BASE_URL, DidisClient } from "agent-airlock/guard";
 * new DidisClient().baseUrl === DIDIS_DEFAULT_BASE_URL; // true
 * ```
 */
export const DIDIS_DEFAULT_BASE_URL = "https://did.is/api";

/** Options of {@link DidisClient}. */
export interface DidisClientOptions {
  /** Base URL; endpoints are appended (`<baseUrl>/v1/agents/verify-tool`). Default `https://did.is/api`. */
  baseUrl?: string;
  /** Per-request timeout in milliseconds, body included (default 5,000). */
  timeoutMs?: number;
  /** A `fetch` implementation (default: the global one). */
  fetch?: typeof globalThis.fetch;
  /** Extra request headers, e.g. `authorization`. */
  headers?: Readonly<Record<string, string>>;
  /** Largest response body read, in bytes (default 1 MiB). */
  maxResponseBytes?: number;
}

/** A verify-tool question. */
export interface DidisToolQuestion {
  agent: string;
  /** The capability (or tool name) asked about. */
  tool: string;
  root: string;
  /** Abort the request early. */
  signal?: AbortSignal;
}

/** A verify-tool (or authorize) answer, as checked by the client. */
export interface DidisToolAnswer {
  agent: string;
  tool: string;
  root: string;
  decision: "ALLOW" | "DENY";
  reason: string;
  matchedCapability?: string;
  /** Epoch seconds. */
  expires?: number;
}

/** A verify-delegation request. */
export interface DidisDelegationQuestion {
  chain: readonly string[];
  trustedRoots: readonly string[];
  /** Ask the service to keep the chain for later verify-tool questions. */
  register?: boolean;
  /** The agent the chain must end at. */
  agent?: string;
  signal?: AbortSignal;
}

/** A verify-delegation answer: the verification, plus whether the chain was registered. */
export type DidisDelegationAnswer = DelegationVerification & { registered?: boolean; id?: string };

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** Seconds from a `Retry-After` header (delta-seconds or an HTTP date). */
function parseRetryAfter(value: string | null, nowMs: number): number | undefined {
  if (value === null) return undefined;
  const trimmed = value.trim();
  if (/^\d{1,10}$/.test(trimmed)) return Number(trimmed);
  const date = Date.parse(trimmed);
  if (Number.isNaN(date)) return undefined;
  return Math.max(0, Math.ceil((date - nowMs) / 1000));
}

function readExpires(value: unknown): number | undefined | null {
  if (value === undefined || value === null) return undefined;
  if (typeof value === "number" && Number.isFinite(value)) return Math.floor(value);
  if (typeof value === "string") {
    const ms = Date.parse(value);
    return Number.isNaN(ms) ? null : Math.floor(ms / 1000);
  }
  return null;
}

/**
 * The DID.is client.
 *
 * @example
 * ```ts
 * import { DidisClient } from "agent-airlock/guard";
 * const client = new DidisClient({ baseUrl: "http://127.0.0.1:8787", timeoutMs: 2000 });
 * const answer = await client.verifyTool({ agent: agentDid, tool: "weather:forecast", root: rootDid });
 * if (answer.decision === "ALLOW") console.log("allowed via", answer.matchedCapability);
 * ```
 */
export class DidisClient {
  readonly baseUrl: string;
  readonly timeoutMs: number;
  readonly #fetch: typeof globalThis.fetch;
  readonly #headers: Record<string, string>;
  readonly #maxBytes: number;

  constructor(options: DidisClientOptions = {}) {
    const base = options.baseUrl ?? DIDIS_DEFAULT_BASE_URL;
    let url: URL;
    try {
      url = new URL(base);
    } catch {
      throw new TypeError(`DidisClient: baseUrl ${JSON.stringify(base)} is not a URL`);
    }
    if (url.protocol !== "https:" && url.protocol !== "http:") {
      throw new TypeError("DidisClient: baseUrl must be http(s)");
    }
    this.baseUrl = base.replace(/\/+$/, "");
    const timeout = options.timeoutMs ?? 5000;
    this.timeoutMs = Number.isFinite(timeout) && timeout > 0 ? timeout : 5000;
    const f = options.fetch ?? globalThis.fetch;
    if (typeof f !== "function") throw new TypeError("DidisClient: no fetch implementation");
    this.#fetch = f;
    this.#headers = { ...(options.headers ?? {}) };
    this.#maxBytes = options.maxResponseBytes ?? 1024 * 1024;
  }

  /**
   * `GET /v1/agents/verify-tool?agent=&tool=&root=`: may `agent` use `tool` under `root`?
   *
   * @throws {DidisError} on any failure, including an answer about another agent, tool or root.
   * @example
   * ```ts
   * const { decision } = await client.verifyTool({ agent, tool: "weather:forecast", root });
   * ```
   */
  async verifyTool(question: DidisToolQuestion): Promise<DidisToolAnswer> {
    const { agent, tool, root, signal } = question;
    const query = new URLSearchParams({ agent, tool, root });
    const body = await this.#request("GET", `/v1/agents/verify-tool?${query}`, undefined, signal);
    return this.#readToolAnswer(body, { agent, tool, root });
  }

  /**
   * `POST /v1/agents/authorize` `{agent, tool, root}`: the same question as verify-tool,
   * asked as an authorization request. Same checks on the answer.
   *
   * @throws {DidisError}
   * @example
   * ```ts
   * const answer = await client.authorize({ agent, tool: "weather:forecast", root });
   * ```
   */
  async authorize(question: DidisToolQuestion): Promise<DidisToolAnswer> {
    const { agent, tool, root, signal } = question;
    const body = await this.#request("POST", "/v1/agents/authorize", { agent, tool, root }, signal);
    return this.#readToolAnswer(body, { agent, tool, root });
  }

  /**
   * `POST /v1/agents/verify-delegation` `{chain, trustedRoots, register}`: verify a chain
   * (and optionally register it for later verify-tool questions).
   *
   * @throws {DidisError}
   * @example
   * ```ts
   * const result = await client.verifyDelegation({ chain, trustedRoots: [root], register: true });
   * console.log(result.status, result.registered);
   * ```
   */
  async verifyDelegation(question: DidisDelegationQuestion): Promise<DidisDelegationAnswer> {
    const { chain, trustedRoots, register, agent, signal } = question;
    const payload: Record<string, unknown> = {
      chain: [...chain],
      trustedRoots: [...trustedRoots],
      register: register === true,
    };
    if (agent !== undefined) payload.agent = agent;
    const body = await this.#request("POST", "/v1/agents/verify-delegation", payload, signal);
    if (
      !isObject(body) ||
      (body.status !== "VALID" && body.status !== "INVALID") ||
      !Array.isArray(body.checks) ||
      !Array.isArray(body.links) ||
      !Array.isArray(body.effectiveCapabilities) ||
      !body.effectiveCapabilities.every((c) => typeof c === "string")
    ) {
      throw new DidisError(
        "DIDIS_BAD_RESPONSE",
        "verify-delegation answered something that is not a verification result",
      );
    }
    if (body.status === "INVALID" && body.effectiveCapabilities.length > 0) {
      throw new DidisError(
        "DIDIS_BAD_RESPONSE",
        "verify-delegation answered INVALID with capabilities",
      );
    }
    if (agent !== undefined && body.status === "VALID" && body.leaf !== agent) {
      throw new DidisError(
        "DIDIS_BAD_RESPONSE",
        `verify-delegation answered about ${String(body.leaf)}, not ${agent}`,
      );
    }
    return body as unknown as DidisDelegationAnswer;
  }

  /**
   * `GET /v1/mcp/inspect?endpoint=`: the service's report on an MCP endpoint, as sent.
   *
   * @throws {DidisError}
   * @example
   * ```ts
   * const report = await client.inspectMcp("https://mcp.example.com/mcp");
   * ```
   */
  async inspectMcp(
    endpoint: string,
    options: { signal?: AbortSignal } = {},
  ): Promise<Record<string, unknown>> {
    const body = await this.#request(
      "GET",
      `/v1/mcp/inspect?${new URLSearchParams({ endpoint })}`,
      undefined,
      options.signal,
    );
    if (!isObject(body))
      throw new DidisError(
        "DIDIS_BAD_RESPONSE",
        "inspect answered something that is not an object",
      );
    return body;
  }

  #readToolAnswer(
    body: unknown,
    asked: { agent: string; tool: string; root: string },
  ): DidisToolAnswer {
    if (!isObject(body))
      throw new DidisError("DIDIS_BAD_RESPONSE", "the answer is not a JSON object");
    const { decision, reason, matchedCapability, agent, tool, root } = body;
    if (decision !== "ALLOW" && decision !== "DENY") {
      throw new DidisError(
        "DIDIS_BAD_RESPONSE",
        `the answer's decision is ${JSON.stringify(decision)}, not ALLOW or DENY`,
      );
    }
    if (agent !== asked.agent || tool !== asked.tool) {
      throw new DidisError(
        "DIDIS_BAD_RESPONSE",
        `the answer is about agent ${JSON.stringify(agent)} and tool ${JSON.stringify(tool)}, not the ones asked about`,
      );
    }
    if (root !== undefined && root !== asked.root) {
      throw new DidisError(
        "DIDIS_BAD_RESPONSE",
        `the answer was checked against root ${JSON.stringify(root)}, not the one asked about`,
      );
    }
    if (reason !== undefined && typeof reason !== "string") {
      throw new DidisError("DIDIS_BAD_RESPONSE", "the answer's reason is not a string");
    }
    const expires = readExpires(body.expires);
    if (expires === null)
      throw new DidisError("DIDIS_BAD_RESPONSE", "the answer's expires is not a time");
    const answer: DidisToolAnswer = {
      agent: asked.agent,
      tool: asked.tool,
      root: asked.root,
      decision,
      reason: reason ?? "",
    };
    if (decision === "ALLOW") {
      if (matchedCapability !== undefined) {
        let ok = false;
        try {
          ok = typeof matchedCapability === "string" && grants(matchedCapability, asked.tool);
        } catch {
          ok = false;
        }
        if (!ok) {
          throw new DidisError(
            "DIDIS_BAD_RESPONSE",
            `the answer matched ${JSON.stringify(matchedCapability)}, which does not grant ${asked.tool}`,
          );
        }
        answer.matchedCapability = matchedCapability as string;
      }
      if (expires !== undefined) answer.expires = expires;
    }
    return answer;
  }

  async #request(
    method: "GET" | "POST",
    path: string,
    json: unknown,
    signal: AbortSignal | undefined,
  ): Promise<unknown> {
    const controller = new AbortController();
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      controller.abort();
    }, this.timeoutMs);
    const onAbort = () => controller.abort();
    if (signal?.aborted) controller.abort();
    signal?.addEventListener("abort", onAbort, { once: true });
    const url = `${this.baseUrl}${path}`;
    try {
      let response: Response;
      try {
        response = await this.#fetch(url, {
          method,
          headers: {
            accept: "application/json, application/problem+json",
            ...(json !== undefined && { "content-type": "application/json" }),
            ...this.#headers,
          },
          ...(json !== undefined && { body: JSON.stringify(json) }),
          signal: controller.signal,
          redirect: "error",
        });
      } catch (cause) {
        throw this.#networkError(cause, timedOut, url);
      }
      let text: string;
      try {
        text = await this.#readBody(response);
      } catch (cause) {
        if (cause instanceof DidisError) throw cause;
        throw this.#networkError(cause, timedOut, url);
      }
      const parsed = parseJson(text);
      if (!response.ok) {
        const problem = isObject(parsed) ? (parsed as ProblemDetails) : undefined;
        const what = problem?.detail ?? problem?.title ?? response.statusText;
        if (response.status === 429) {
          const retryAfter = parseRetryAfter(response.headers.get("retry-after"), Date.now());
          throw new DidisError(
            "DIDIS_RATE_LIMITED",
            `${url}: rate limited (429)${retryAfter === undefined ? "" : `, retry after ${retryAfter}s`}: ${what}`,
            {
              status: 429,
              ...(retryAfter !== undefined && { retryAfter }),
              ...(problem && { problem }),
            },
          );
        }
        throw new DidisError("DIDIS_HTTP_ERROR", `${url}: HTTP ${response.status}: ${what}`, {
          status: response.status,
          ...(problem && { problem }),
        });
      }
      if (parsed === undefined) {
        throw new DidisError("DIDIS_BAD_RESPONSE", `${url}: the body is not JSON`, {
          status: response.status,
        });
      }
      return parsed;
    } finally {
      clearTimeout(timer);
      signal?.removeEventListener("abort", onAbort);
    }
  }

  async #readBody(response: Response): Promise<string> {
    const length = Number(response.headers.get("content-length"));
    if (Number.isFinite(length) && length > this.#maxBytes) {
      await response.body?.cancel().catch(() => {});
      throw new DidisError(
        "DIDIS_BAD_RESPONSE",
        `the response is larger than ${this.#maxBytes} bytes`,
        { status: response.status },
      );
    }
    if (!response.body) return "";
    const reader = response.body.getReader();
    const chunks: Uint8Array[] = [];
    let total = 0;
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      total += value.byteLength;
      if (total > this.#maxBytes) {
        await reader.cancel().catch(() => {});
        throw new DidisError(
          "DIDIS_BAD_RESPONSE",
          `the response is larger than ${this.#maxBytes} bytes`,
          { status: response.status },
        );
      }
      chunks.push(value);
    }
    return new TextDecoder("utf-8", { fatal: false }).decode(Buffer.concat(chunks));
  }

  #networkError(cause: unknown, timedOut: boolean, url: string): DidisError {
    if (timedOut)
      return new DidisError("DIDIS_TIMEOUT", `${url}: no answer within ${this.timeoutMs} ms`, {
        cause,
      });
    const why =
      (cause as Error)?.name === "AbortError"
        ? "aborted"
        : ((cause as Error)?.message ?? String(cause));
    return new DidisError("DIDIS_UNAVAILABLE", `${url}: unreachable (${why})`, { cause });
  }
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
