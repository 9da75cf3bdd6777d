/**
 * The tool guard: before a tool handler runs, check that the definition served now is
 * the pinned one and that the agent holds a delegation granting the tool's capability.
 *
 * Order of checks (the first failure refuses, later checks do not run):
 * 1. configuration: `GUARD_MISCONFIGURED`
 * 2. pin: `TOOL_DEFINITION_MISSING`
 * 3. drift, compared in constant time, no verifier call: `TOOL_DRIFT`
 * 4. delegation: `TOOL_NOT_AUTHORIZED` or `GUARD_UNAVAILABLE`
 *
 * @module
 */
import { timingSafeEqual } from "node:crypto";
import { definitionSha256 } from "../canonical/index.js";
import { assertRequestedCapability, grants } from "./capability.js";
import { publicKeyBytesFromDidKey } from "./did/did-key.js";
import { ToolGuardError, type ToolGuardErrorCode, type ToolGuardErrorDetail } from "./errors.js";
import type { DelegationVerifier, VerifyToolResult } from "./verifier.js";

/** A definition, or a function returning the definition served now (sync or async). */
export type DefinitionSource = unknown | (() => unknown);

/** One tool call to check. */
export interface ToolCheck {
  /** The tool's name: letters, digits, `_`, `-`, `.`; 1 to 128 characters. */
  tool: string;
  /** The exact capability the call needs; defaults to the tool name. */
  capability?: string;
  /**
   * The definition the agent received, or a function fetching the one served now. Needed
   * when the tool is pinned; not fetched when it is not. A function that throws refuses
   * the call with `TOOL_DEFINITION_MISSING`, or with the code of the {@link ToolGuardError}
   * it throws for this tool.
   */
  definition?: DefinitionSource;
}

/** What the guard decided about one call. `onDecision` receives every one. */
export interface ToolGuardDecision {
  /** The tool name; `undefined` only when the call gave no usable name. */
  tool: string | undefined;
  /** The capability checked; `undefined` when the refusal came before it was known. */
  capability: string | undefined;
  agent: string;
  root: string;
  decision: "ALLOW" | "DENY";
  /** The refusal code; `undefined` on ALLOW. */
  code: ToolGuardErrorCode | undefined;
  /** One sentence a person can read. */
  reason: string;
  /** True when the ALLOW came from the cache (no verifier call). */
  cached: boolean;
  /** When the delegation stops being valid (epoch seconds), when the verifier said. */
  expires: number | undefined;
  /** Digest of the definition checked (lowercase hex), when one was checked. */
  digest: string | undefined;
  /** The grant that matched, when the verifier said. */
  matchedCapability: string | undefined;
}

/** Options of {@link createToolGuard}. */
export interface ToolGuardOptions {
  /** Answers "may this agent use this capability?" (`localVerifier`, `didisVerifier`). */
  verifier: DelegationVerifier;
  /** The agent's DID, e.g. `did:key:z6Mk...`. */
  agent: string;
  /** The DID of the trusted root the agent's delegation chain must start from. */
  root: string;
  /** Approved definitions: `{ toolName: sha256 }` (see `pinToolDefinitions`). */
  pins?: Readonly<Record<string, string>>;
  /**
   * Refuse tools that have no pin. Defaults to `true` when `pins` is given (an unseen tool
   * is refused, never learned) and `false` when it is not (delegation only).
   */
  requirePins?: boolean;
  /** How long an ALLOW is reused, in seconds; never past the delegation's expiry. 0 disables. Default 30. */
  allowCacheSeconds?: number;
  /** How long to wait for the verifier before refusing with `GUARD_UNAVAILABLE`. Default 10,000 ms. */
  verifyTimeoutMs?: number;
  /** Receives every decision. An exception in it is swallowed: it never changes a decision. */
  onDecision?: (decision: ToolGuardDecision) => void;
  /** Milliseconds since the epoch; defaults to `Date.now`. Injectable for tests. */
  clock?: () => number;
}

/** A guard several tools share, with one ALLOW cache. */
export interface ToolGuard {
  /** The agent DID this guard checks. */
  readonly agent: string;
  /** The trusted root DID this guard checks. */
  readonly root: string;
  /**
   * Check one call. Resolves with the ALLOW decision; rejects with {@link ToolGuardError}
   * otherwise.
   */
  check(call: ToolCheck): Promise<ToolGuardDecision>;
  /**
   * Wrap a handler: the returned function checks `spec` on every call and runs `handler`
   * only after an ALLOW. The spec is validated now, too.
   */
  wrap<A extends unknown[], R>(
    spec: ToolCheck,
    handler: (...args: A) => R,
  ): (...args: A) => Promise<Awaited<R>>;
  /**
   * The pin step alone, for a definition a server lists: resolves when `definition` is the
   * one pinned for `tool` (or the tool needs no pin); rejects with {@link ToolGuardError}
   * `TOOL_DRIFT` or `TOOL_DEFINITION_MISSING` otherwise. No delegation check and no
   * `onDecision` record: use it to keep a drifted tool's description from ever reaching
   * the model, and {@link ToolGuard.check} before each call.
   */
  checkDefinition(tool: string, definition: unknown): Promise<void>;
  /** Forget every cached ALLOW. */
  clearCache(): void;
}

/**
 * Most cached ALLOWs kept; the oldest is dropped first.
 *
 * @example
 * ```ts
 * import { MAX_CACHED_ALLOWS } from "agent-airlock/guard";
 * console.log(MAX_CACHED_ALLOWS); // 1024
 * ```
 */
export const MAX_CACHED_ALLOWS = 1024;

const TOOL_NAME = /^[A-Za-z0-9_.-]{1,128}$/;
const HEX64 = /^[0-9a-fA-F]{64}$/;
const MAX_DID_LENGTH = 2048;
// DID syntax (W3C DID Core 3.1): did:<method>:<method-specific-id>, idchar = ALPHA / DIGIT
// / "." / "-" / "_" / pct-encoded, with ":" between non-final parts. No overlapping
// quantifiers, so matching is linear.
const DID =
  /^did:[a-z0-9]+:(?:(?:[A-Za-z0-9._-]|%[0-9A-Fa-f]{2})*:)*(?:[A-Za-z0-9._-]|%[0-9A-Fa-f]{2})+$/;
const DEFAULT_CACHE_SECONDS = 30;
const DEFAULT_TIMEOUT_MS = 10_000;
const MAX_TIMER_MS = 2 ** 31 - 1;
const MAX_REASON_LENGTH = 500;

function misconfigured(message: string, tool?: string, detail?: ToolGuardErrorDetail) {
  return new ToolGuardError("GUARD_MISCONFIGURED", tool, message, detail);
}

function assertDid(value: unknown, role: "agent" | "root"): asserts value is string {
  if (typeof value !== "string" || value.length > MAX_DID_LENGTH || !DID.test(value)) {
    throw misconfigured(
      `${role} must be a DID ("did:<method>:<id>"), got ${describe(value)}; pass the ${role}'s did:key`,
    );
  }
  if (value.startsWith("did:key:")) {
    try {
      publicKeyBytesFromDidKey(value);
    } catch (err) {
      throw new ToolGuardError(
        "GUARD_MISCONFIGURED",
        undefined,
        `${role} ${describe(value)} is not a valid Ed25519 did:key: ${(err as Error).message}`,
        {},
        { cause: err },
      );
    }
  }
}

function describe(value: unknown): string {
  if (typeof value !== "string") return value === null ? "null" : typeof value;
  return JSON.stringify(value.length > 80 ? `${value.slice(0, 80)}...` : value);
}

function assertToolName(tool: unknown): asserts tool is string {
  if (typeof tool !== "string" || !TOOL_NAME.test(tool)) {
    throw misconfigured(
      `tool name ${describe(tool)} is invalid: use 1 to 128 letters, digits, "_", "-" or "."`,
      typeof tool === "string" ? tool : undefined,
    );
  }
}

function resolveCapability(tool: string, capability: unknown): string {
  const wanted = capability === undefined ? tool : capability;
  try {
    assertRequestedCapability(wanted);
  } catch (err) {
    throw new ToolGuardError(
      "GUARD_MISCONFIGURED",
      tool,
      `capability of tool ${JSON.stringify(tool)} is invalid: ${(err as Error).message}`,
      typeof wanted === "string" ? { capability: wanted } : {},
      { cause: err },
    );
  }
  return wanted;
}

function readPins(pins: unknown): Map<string, string> {
  const out = new Map<string, string>();
  if (pins === undefined) return out;
  if (pins === null || typeof pins !== "object" || Array.isArray(pins)) {
    throw misconfigured("pins must be an object { toolName: sha256 }");
  }
  let entries: [string, unknown][];
  try {
    entries = Object.entries(pins);
  } catch (err) {
    throw new ToolGuardError(
      "GUARD_MISCONFIGURED",
      undefined,
      "pins could not be read",
      {},
      {
        cause: err,
      },
    );
  }
  for (const [name, digest] of entries) {
    assertToolName(name);
    if (typeof digest !== "string" || !HEX64.test(digest)) {
      throw misconfigured(
        `pin of tool ${JSON.stringify(name)} is not a SHA-256 digest (64 hex digits): ${describe(digest)}`,
        name,
      );
    }
    out.set(name, digest.toLowerCase());
  }
  return out;
}

function readSeconds(value: unknown): number {
  if (value === undefined) return DEFAULT_CACHE_SECONDS;
  if (typeof value !== "number" || !Number.isFinite(value) || value < 0 || value > 86_400) {
    throw misconfigured(
      `allowCacheSeconds must be a number of seconds from 0 to 86400, got ${describe(value)}`,
    );
  }
  return value;
}

function readTimeout(value: unknown): number {
  if (value === undefined) return DEFAULT_TIMEOUT_MS;
  if (typeof value !== "number" || !Number.isFinite(value) || value <= 0 || value > MAX_TIMER_MS) {
    throw misconfigured(`verifyTimeoutMs must be a positive number of milliseconds`);
  }
  return value;
}

function sameDigest(a: string, b: string): boolean {
  const x = Buffer.from(a, "utf8");
  const y = Buffer.from(b, "utf8");
  return x.length === y.length && timingSafeEqual(x, y);
}

function shorten(reason: string): string {
  return reason.length > MAX_REASON_LENGTH ? `${reason.slice(0, MAX_REASON_LENGTH)}...` : reason;
}

/** A verifier's answer reduced to what every caller sharing it needs. */
type Verdict =
  | { ok: true; reason: string; expires: number | undefined; matched: string | undefined }
  | { ok: false; code: ToolGuardErrorCode; reason: string; cause?: unknown };

function isRateLimit(err: unknown): boolean {
  if (err === null || typeof err !== "object") return false;
  try {
    const { status, code } = err as { status?: unknown; code?: unknown };
    return status === 429 || (typeof code === "string" && /RATE_LIMIT/i.test(code));
  } catch {
    return false;
  }
}

/** A thrown value's message, even when reading it throws (a hostile error object). */
function messageOf(err: unknown): string {
  try {
    const message = (err as { message?: unknown } | null)?.message;
    return shorten(typeof message === "string" ? message : String(err));
  } catch {
    return "an error that cannot be described";
  }
}

function unavailable(reason: string, cause?: unknown): Verdict {
  return { ok: false, code: "GUARD_UNAVAILABLE", reason, cause };
}

/** Read a verifier's answer without trusting its shape: anything odd fails closed. */
function judgeAnswer(answer: unknown, capability: string, root: string, nowMs: number): Verdict {
  if (answer === null || typeof answer !== "object") {
    return unavailable("the verifier answered something that is not a verdict");
  }
  let decision: unknown;
  let reason: unknown;
  let expires: unknown;
  let matched: unknown;
  let checkedRoot: unknown;
  try {
    ({
      decision,
      reason,
      expires,
      matchedCapability: matched,
      root: checkedRoot,
    } = answer as Partial<VerifyToolResult>);
  } catch (err) {
    return unavailable("the verifier's answer could not be read", err);
  }
  if (decision !== "ALLOW" && decision !== "DENY") {
    return unavailable(`the verifier answered decision ${describe(decision)}, not ALLOW or DENY`);
  }
  if (reason !== undefined && typeof reason !== "string") {
    return unavailable("the verifier's reason is not a string");
  }
  const why = shorten(reason ?? "");
  if (checkedRoot !== undefined && checkedRoot !== root) {
    if (typeof checkedRoot !== "string") return unavailable("the verifier's root is not a string");
    return {
      ok: false,
      code: "TOOL_NOT_AUTHORIZED",
      reason: `the verifier checked root ${describe(checkedRoot)}, not the configured root`,
    };
  }
  if (decision === "DENY") {
    return { ok: false, code: "TOOL_NOT_AUTHORIZED", reason: why || "the verifier denied it" };
  }
  if (expires !== undefined && (typeof expires !== "number" || !Number.isFinite(expires))) {
    return unavailable("the verifier's expiry is not a number of seconds");
  }
  if (matched !== undefined) {
    let ok = false;
    try {
      ok = typeof matched === "string" && grants(matched, capability);
    } catch {
      ok = false;
    }
    if (!ok) {
      return unavailable(
        `the verifier matched ${describe(matched)}, which does not grant ${JSON.stringify(capability)}`,
      );
    }
  }
  if (expires !== undefined && expires * 1000 <= nowMs) {
    return { ok: false, code: "TOOL_NOT_AUTHORIZED", reason: "the delegation has expired" };
  }
  return {
    ok: true,
    reason: why || "delegation grants the capability",
    expires,
    matched: matched as string | undefined,
  };
}

interface CachedAllow {
  until: number;
  verdict: Extract<Verdict, { ok: true }>;
}

/**
 * Create a tool guard for one agent under one trusted root. Several tools share it and its
 * ALLOW cache.
 *
 * Caching: an ALLOW is reused for `allowCacheSeconds` (default 30), never past the
 * delegation's expiry; a DENY or an error is never cached. The cache key is agent, root
 * and capability, so two tool names mapped to one capability share one answer. Concurrent
 * checks of the same key share one in-flight verifier call, and its answer, even a DENY.
 *
 * @throws {ToolGuardError} `GUARD_MISCONFIGURED` when the options are invalid.
 * @example
 * ```ts
 * import { createToolGuard, pinToolDefinitions } from "agent-airlock/guard";
 * const forecast = { name: "weather_forecast", description: "Get the forecast", inputSchema: { type: "object" } };
 * const guard = createToolGuard({
 *   verifier: { verifyTool: async () => ({ decision: "ALLOW", reason: "demo" }) },
 *   agent: "did:key:z6MkhaXgBZDvotDkL5257faiztiGiC2QtKLGpbnnEGta2doK",
 *   root: "did:key:z6MkpTHR8VNsBxYAAWHut2Geadd9jSwuBV8xRoAnwWsdvktH",
 *   pins: pinToolDefinitions([forecast]),
 * });
 * await guard.check({ tool: "weather_forecast", capability: "weather:forecast", definition: forecast });
 * ```
 */
export function createToolGuard(options: ToolGuardOptions): ToolGuard {
  if (options === null || typeof options !== "object") {
    throw misconfigured("createToolGuard needs an options object");
  }
  const { verifier, agent, root, onDecision } = options;
  assertDid(agent, "agent");
  assertDid(root, "root");
  if (
    verifier === null ||
    typeof verifier !== "object" ||
    typeof verifier.verifyTool !== "function"
  ) {
    throw misconfigured("verifier must have a verifyTool({ agent, capability, root }) method");
  }
  const pins = readPins(options.pins);
  if (options.requirePins !== undefined && typeof options.requirePins !== "boolean") {
    throw misconfigured("requirePins must be a boolean");
  }
  const requirePins = options.requirePins ?? options.pins !== undefined;
  const cacheSeconds = readSeconds(options.allowCacheSeconds);
  const timeoutMs = readTimeout(options.verifyTimeoutMs);
  if (onDecision !== undefined && typeof onDecision !== "function") {
    throw misconfigured("onDecision must be a function");
  }
  const clock = options.clock ?? Date.now;
  if (typeof clock !== "function") throw misconfigured("clock must be a function returning ms");

  const cache = new Map<string, CachedAllow>();
  const inFlight = new Map<string, Promise<Verdict>>();
  // Bumped by clearCache, so an answer already in flight is not cached after a clear.
  let generation = 0;

  function report(decision: ToolGuardDecision): void {
    if (onDecision === undefined) return;
    try {
      const result: unknown = onDecision(Object.freeze({ ...decision }));
      // A rejected promise from an async hook must not surface as an unhandled rejection.
      if (result instanceof Promise) result.catch(() => {});
    } catch {
      // By contract an audit hook never changes the decision.
    }
  }

  function now(): number {
    const t = clock();
    if (typeof t !== "number" || !Number.isFinite(t)) {
      throw misconfigured("clock returned something that is not a finite number of ms");
    }
    return t;
  }

  function ask(capability: string): Promise<Verdict> {
    return new Promise<Verdict>((resolve) => {
      const timer = setTimeout(
        () => resolve(unavailable(`the verifier did not answer within ${timeoutMs} ms`)),
        timeoutMs,
      );
      const settle = (verdict: Verdict) => {
        clearTimeout(timer);
        resolve(verdict);
      };
      let pending: Promise<unknown>;
      try {
        pending = Promise.resolve(verifier.verifyTool({ agent, capability, root }));
      } catch (err) {
        pending = Promise.reject(err);
      }
      pending.then(
        (answer) => {
          let verdict: Verdict;
          try {
            verdict = judgeAnswer(answer, capability, root, now());
          } catch (err) {
            verdict = unavailable("the verifier's answer could not be judged", err);
          }
          settle(verdict);
        },
        (err: unknown) =>
          settle(
            unavailable(
              isRateLimit(err)
                ? "the verifier is rate limiting requests (429)"
                : `the verifier failed: ${messageOf(err)}`,
              err,
            ),
          ),
      );
    });
  }

  function remember(key: string, verdict: Extract<Verdict, { ok: true }>, at: number): void {
    if (cacheSeconds === 0) return;
    let until = at + cacheSeconds * 1000;
    if (verdict.expires !== undefined) until = Math.min(until, verdict.expires * 1000);
    if (until <= at) return;
    if (cache.size >= MAX_CACHED_ALLOWS) {
      for (const [k, entry] of cache) if (entry.until <= at) cache.delete(k);
      if (cache.size >= MAX_CACHED_ALLOWS) {
        const oldest = cache.keys().next();
        if (!oldest.done) cache.delete(oldest.value);
      }
    }
    cache.set(key, { until, verdict });
  }

  async function fetchDefinition(tool: string, source: DefinitionSource): Promise<unknown> {
    try {
      return typeof source === "function" ? await (source as () => unknown)() : source;
    } catch (err) {
      // A source may refuse with its own code (an MCP listing naming the tool twice).
      if (err instanceof ToolGuardError && err.tool === tool) throw err;
      throw new ToolGuardError(
        "TOOL_DEFINITION_MISSING",
        tool,
        `the definition of tool ${JSON.stringify(tool)} could not be fetched: ${messageOf(err)}`,
        {},
        { cause: err },
      );
    }
  }

  function unpinned(tool: string, detail: ToolGuardErrorDetail): ToolGuardError {
    return new ToolGuardError(
      "TOOL_DEFINITION_MISSING",
      tool,
      `tool ${JSON.stringify(tool)} has no pin and requirePins is on: approve its definition first`,
      detail,
    );
  }

  /**
   * The drift step for a pinned tool: refuses a missing definition
   * (`TOOL_DEFINITION_MISSING`) and one that is not the pinned one (`TOOL_DRIFT`). Records
   * the observed digest on `base` (a refusal's audit record carries it too).
   */
  function judgePinned(
    tool: string,
    pinned: string,
    definition: unknown,
    detail: ToolGuardErrorDetail,
    base: ToolGuardDecision | undefined,
  ): void {
    if (definition === undefined || definition === null) {
      throw new ToolGuardError(
        "TOOL_DEFINITION_MISSING",
        tool,
        `tool ${JSON.stringify(tool)} is pinned but no definition was supplied: pass the definition the agent received`,
        detail,
      );
    }
    let observed: string;
    try {
      observed = definitionSha256(definition);
    } catch (err) {
      throw new ToolGuardError(
        "TOOL_DRIFT",
        tool,
        `the definition of tool ${JSON.stringify(tool)} cannot be canonicalised, so it cannot match its pin: ${(err as Error).message}`,
        { ...detail, pinnedDigest: pinned },
        { cause: err },
      );
    }
    if (base !== undefined) base.digest = observed;
    let servedName: unknown;
    try {
      servedName = (definition as { name?: unknown }).name;
    } catch {
      servedName = null; // a definition that cannot show its name is not the pinned one
    }
    if (!sameDigest(observed, pinned) || (servedName !== undefined && servedName !== tool)) {
      throw new ToolGuardError(
        "TOOL_DRIFT",
        tool,
        `the definition of tool ${JSON.stringify(tool)} is not the pinned one: refuse it until someone reviews and re-pins it`,
        { ...detail, pinnedDigest: pinned, observedDigest: observed },
      );
    }
  }

  async function decide(call: ToolCheck, base: ToolGuardDecision): Promise<ToolGuardDecision> {
    if (call === null || typeof call !== "object") {
      throw misconfigured("check needs { tool, capability?, definition? }");
    }
    let tool: unknown;
    let requested: unknown;
    let source: DefinitionSource;
    try {
      ({ tool, capability: requested, definition: source } = call);
    } catch (err) {
      throw new ToolGuardError(
        "GUARD_MISCONFIGURED",
        undefined,
        "the call could not be read",
        {},
        {
          cause: err,
        },
      );
    }
    assertToolName(tool);
    base.tool = tool;
    const capability = resolveCapability(tool, requested);
    base.capability = capability;
    const detail: ToolGuardErrorDetail = { capability, agent, root };

    // Pin, then drift: a drifted tool never reaches the verifier.
    const pinned = pins.get(tool);
    if (pinned === undefined && requirePins) throw unpinned(tool, detail);
    if (pinned !== undefined) {
      const definition = source === undefined ? undefined : await fetchDefinition(tool, source);
      judgePinned(tool, pinned, definition, detail, base);
    }

    const key = JSON.stringify([agent, root, capability]);
    const started = now();
    const hit = cache.get(key);
    if (hit !== undefined) {
      if (started < hit.until) {
        base.cached = true;
        base.reason = hit.verdict.reason;
        base.expires = hit.verdict.expires;
        base.matchedCapability = hit.verdict.matched;
        return base;
      }
      cache.delete(key);
    }
    let shared = inFlight.get(key);
    if (shared === undefined) {
      const fresh = ask(capability);
      const askedIn = generation;
      shared = fresh;
      inFlight.set(key, fresh);
      fresh.then(
        (verdict) => {
          if (inFlight.get(key) === fresh) inFlight.delete(key);
          if (verdict.ok && askedIn === generation) remember(key, verdict, started);
        },
        () => inFlight.delete(key),
      );
    }
    const verdict = await shared;
    if (!verdict.ok) {
      throw new ToolGuardError(
        verdict.code,
        tool,
        verdict.code === "GUARD_UNAVAILABLE"
          ? `tool ${JSON.stringify(tool)} refused: ${verdict.reason}; the guard fails closed`
          : `agent is not authorized for ${JSON.stringify(capability)}: ${verdict.reason}`,
        verdict.code === "TOOL_NOT_AUTHORIZED" ? { ...detail, reason: verdict.reason } : detail,
        { cause: verdict.cause },
      );
    }
    base.reason = verdict.reason;
    base.expires = verdict.expires;
    base.matchedCapability = verdict.matched;
    return base;
  }

  async function check(call: ToolCheck): Promise<ToolGuardDecision> {
    const base: ToolGuardDecision = {
      tool: undefined,
      capability: undefined,
      agent,
      root,
      decision: "ALLOW",
      code: undefined,
      reason: "",
      cached: false,
      expires: undefined,
      digest: undefined,
      matchedCapability: undefined,
    };
    try {
      const allowed = await decide(call, base);
      report(allowed);
      return { ...allowed };
    } catch (err) {
      const refusal =
        err instanceof ToolGuardError
          ? err
          : new ToolGuardError(
              "GUARD_UNAVAILABLE",
              base.tool,
              `the guard failed unexpectedly: ${messageOf(err)}`,
              {},
              { cause: err },
            );
      report({
        ...base,
        decision: "DENY",
        code: refusal.code,
        reason: refusal.message,
        cached: false,
        expires: undefined,
        matchedCapability: undefined,
      });
      throw refusal;
    }
  }

  function wrap<A extends unknown[], R>(
    spec: ToolCheck,
    handler: (...args: A) => R,
  ): (...args: A) => Promise<Awaited<R>> {
    if (spec === null || typeof spec !== "object") throw misconfigured("wrap needs a tool spec");
    assertToolName(spec.tool);
    resolveCapability(spec.tool, spec.capability);
    if (typeof handler !== "function")
      throw misconfigured("wrap needs a handler function", spec.tool);
    const frozen: ToolCheck = { ...spec };
    return async (...args: A): Promise<Awaited<R>> => {
      await check(frozen);
      return await handler(...args);
    };
  }

  async function checkDefinition(tool: string, definition: unknown): Promise<void> {
    assertToolName(tool);
    const detail = { agent, root };
    const pinned = pins.get(tool);
    if (pinned !== undefined) judgePinned(tool, pinned, definition, detail, undefined);
    else if (requirePins) throw unpinned(tool, detail);
  }

  return Object.freeze({
    agent,
    root,
    check,
    checkDefinition,
    wrap,
    clearCache: () => {
      generation++;
      cache.clear();
      inFlight.clear();
    },
  });
}

/** Options of {@link withToolGuard}: the guard's options plus the one tool's spec. */
export type WithToolGuardOptions = ToolGuardOptions & ToolCheck;

/**
 * Guard a single tool handler in one call: a guard of its own, checked before every call.
 *
 * @throws {ToolGuardError} `GUARD_MISCONFIGURED` when the options are invalid.
 * @example
 * ```ts
 * import { withToolGuard } from "agent-airlock/guard";
 * const forecast = withToolGuard(async (city: string) => `Sunny in ${city}`, {
 *   verifier: { verifyTool: async () => ({ decision: "ALLOW", reason: "demo" }) },
 *   agent: "did:key:z6MkhaXgBZDvotDkL5257faiztiGiC2QtKLGpbnnEGta2doK",
 *   root: "did:key:z6MkpTHR8VNsBxYAAWHut2Geadd9jSwuBV8xRoAnwWsdvktH",
 *   tool: "weather_forecast",
 *   capability: "weather:forecast",
 * });
 * console.log(await forecast("Oslo"));
 * ```
 */
export function withToolGuard<A extends unknown[], R>(
  handler: (...args: A) => R,
  options: WithToolGuardOptions,
): (...args: A) => Promise<Awaited<R>> {
  if (options === null || typeof options !== "object") {
    throw misconfigured("withToolGuard needs an options object");
  }
  const { tool, capability, definition, ...guardOptions } = options;
  return createToolGuard(guardOptions).wrap({ tool, capability, definition }, handler);
}
