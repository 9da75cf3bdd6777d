/**
 * The delegation step of `airlock proxy`: a `tools/call` the pins admit runs only when
 * the agent's signed delegation chain, from one of the trusted roots, grants the tool's
 * capability. It is the tool guard (`createToolGuard`, one per root, sharing one
 * verifier) with the pins left to the proxy, which has already judged the definition
 * from its own listing: only the delegation question is asked here, and every failure of
 * the verifier refuses (`GUARD_UNAVAILABLE`).
 *
 * Re-exported by `agent-airlock/mcp`.
 *
 * @module
 */
import { ToolGuardError, type ToolGuardErrorCode } from "../guard/errors.js";
import { createToolGuard, type ToolGuard } from "../guard/tool-guard.js";
import type { DelegationVerifier } from "../guard/verifier.js";

/** Options of {@link createDelegationGate}. */
export interface DelegationGateOptions {
  /** Answers "may this agent use this capability?" (`localVerifier`, `didisVerifier`). */
  verifier: DelegationVerifier;
  /** The agent's DID: the audience its chain ends at. */
  agent: string;
  /** Trusted roots (at least one): a call runs when a chain from any of them grants it. */
  roots: readonly string[];
  /**
   * The capability each tool needs, by tool name. A tool not in the table needs the
   * capability named like the tool. Default: empty (every tool needs its own name).
   */
  capabilities?: Readonly<Record<string, string>>;
  /** How long an ALLOW is reused, in seconds (the tool guard's `allowCacheSeconds`; default 30). */
  allowCacheSeconds?: number;
  /** How long to wait for the verifier before refusing (the tool guard's `verifyTimeoutMs`; default 10,000 ms). */
  verifyTimeoutMs?: number;
}

/** What the gate answered about one call. */
export type DelegationAnswer =
  | {
      allowed: true;
      /** The capability that was checked. */
      capability: string;
      /** The root whose chain granted it. */
      root: string;
      /** True when the ALLOW came from the guard's cache (no verifier call). */
      cached: boolean;
      /** The verifier's reason. */
      reason: string;
    }
  | {
      allowed: false;
      /** The tool guard's code: `TOOL_NOT_AUTHORIZED`, `GUARD_UNAVAILABLE` or `GUARD_MISCONFIGURED`. */
      code: ToolGuardErrorCode;
      /** The capability that was checked, when it was known. */
      capability: string | undefined;
      /** One sentence a person (or the model) can read. */
      reason: string;
    };

/** The delegation check of a proxy: one question per call, never rejects. */
export interface DelegationGate {
  /** The agent DID checked. */
  readonly agent: string;
  /** The trusted roots, in the order they are asked. */
  readonly roots: readonly string[];
  /** The capability `toolName` needs. */
  capabilityOf(toolName: string): string;
  /** May the agent call `toolName`? Resolves with the answer; never rejects. */
  check(toolName: string): Promise<DelegationAnswer>;
}

/** Longest reason kept from the guard (several roots join theirs). */
const MAX_REASON_CHARS = 1_000;

function misconfigured(message: string): ToolGuardError {
  return new ToolGuardError("GUARD_MISCONFIGURED", undefined, message);
}

/** The capability table as a map (a tool named `constructor` must not find Object's). */
function readCapabilities(table: unknown, probe: ToolGuard): Map<string, string> {
  const out = new Map<string, string>();
  if (table === undefined) return out;
  if (table === null || typeof table !== "object" || Array.isArray(table)) {
    throw misconfigured("capabilities must be an object { toolName: capability }");
  }
  for (const [tool, capability] of Object.entries(table)) {
    if (typeof capability !== "string") {
      throw misconfigured(
        `the capability of tool ${JSON.stringify(tool.slice(0, 80))} is not a string`,
      );
    }
    // The guard's own checks (tool name syntax, capability syntax), once, up front.
    probe.wrap({ tool, capability }, () => undefined);
    out.set(tool, capability);
  }
  return out;
}

/**
 * Create the delegation check of `airlock proxy`: one tool guard per trusted root over one
 * verifier. A call is allowed when the first root whose chain grants the capability says
 * ALLOW (roots are asked in order, each with the guard's ALLOW cache). When none does,
 * the answer is `GUARD_UNAVAILABLE` if any root's verifier could not answer (retrying may
 * help), else `TOOL_NOT_AUTHORIZED`; a tool name or capability the guard cannot check is
 * `GUARD_MISCONFIGURED`. Every one of them refuses the call.
 *
 * @throws {ToolGuardError} `GUARD_MISCONFIGURED` when the agent or a root is not a DID,
 * `roots` is empty, or the capability table holds a bad tool name or capability.
 * @example
 * ```ts
 * import { generateDelegationKey, issueDelegation, localVerifier } from "agent-airlock/guard";
 * import { createDelegationGate } from "agent-airlock/mcp";
 * const root = generateDelegationKey();
 * const agent = generateDelegationKey();
 * const { chain } = await issueDelegation({ issuer: root, audience: agent.did, capabilities: ["fs:read:*"], ttlSeconds: 3600 });
 * const gate = createDelegationGate({
 *   verifier: localVerifier({ chains: [chain], trustedRoots: [root.did] }),
 *   agent: agent.did,
 *   roots: [root.did],
 *   capabilities: { read_file: "fs:read:file", write_file: "fs:write:file" },
 * });
 * console.log((await gate.check("read_file")).allowed); // true
 * console.log((await gate.check("write_file")).allowed); // false (TOOL_NOT_AUTHORIZED)
 * ```
 */
export function createDelegationGate(options: DelegationGateOptions): DelegationGate {
  if (options === null || typeof options !== "object") {
    throw misconfigured("createDelegationGate needs an options object");
  }
  const { roots } = options;
  if (!Array.isArray(roots) || roots.length === 0) {
    throw misconfigured("roots must be a non-empty array of root DIDs: pass at least one --root");
  }
  const guards = [...roots].map((root: unknown) =>
    createToolGuard({
      verifier: options.verifier,
      agent: options.agent,
      root: root as string,
      ...(options.allowCacheSeconds !== undefined && {
        allowCacheSeconds: options.allowCacheSeconds,
      }),
      ...(options.verifyTimeoutMs !== undefined && { verifyTimeoutMs: options.verifyTimeoutMs }),
    }),
  );
  const table = readCapabilities(options.capabilities, guards[0]!);
  const capabilityOf = (toolName: string) => table.get(toolName) ?? toolName;
  return Object.freeze({
    agent: guards[0]!.agent,
    roots: Object.freeze(guards.map((guard) => guard.root)),
    capabilityOf,
    check: (toolName: string) => askRoots(guards, toolName, capabilityOf(toolName)),
  });
}

async function askRoots(
  guards: readonly ToolGuard[],
  tool: string,
  capability: string,
): Promise<DelegationAnswer> {
  const refusals: ToolGuardError[] = [];
  for (const guard of guards) {
    try {
      const decision = await guard.check({ tool, capability });
      return {
        allowed: true,
        capability,
        root: guard.root,
        cached: decision.cached,
        reason: decision.reason,
      };
    } catch (error) {
      const refusal =
        error instanceof ToolGuardError
          ? error
          : new ToolGuardError("GUARD_UNAVAILABLE", tool, "the guard failed unexpectedly");
      // A name or capability the guard cannot check is refused the same under every root.
      if (refusal.code === "GUARD_MISCONFIGURED") return refused(refusal.code, undefined, refusal);
      refusals.push(refusal);
    }
  }
  const unavailable = refusals.some((r) => r.code === "GUARD_UNAVAILABLE");
  const code: ToolGuardErrorCode = unavailable ? "GUARD_UNAVAILABLE" : "TOOL_NOT_AUTHORIZED";
  if (refusals.length === 1) return refused(code, capability, refusals[0]!);
  const each = refusals.map((r, i) => `root ${i + 1}: ${r.message}`).join("; ");
  return {
    allowed: false,
    code,
    capability,
    reason: cut(`no trusted root grants ${JSON.stringify(capability)} (${each})`),
  };
}

function refused(
  code: ToolGuardErrorCode,
  capability: string | undefined,
  error: ToolGuardError,
): DelegationAnswer {
  return { allowed: false, code, capability, reason: cut(error.message) };
}

function cut(text: string): string {
  return text.length > MAX_REASON_CHARS ? `${text.slice(0, MAX_REASON_CHARS)}…` : text;
}
