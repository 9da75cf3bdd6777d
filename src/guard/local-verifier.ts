/**
 * The offline delegation verifier, the embedded default of the tool guard. It answers
 * "may this agent use this capability under this root?" from chains it was given or that
 * a registry holds, verifying each chain in full on every question (signatures are
 * remembered per link; trust, time and revocation are always re-checked).
 *
 * @module
 */
import { assertRequestedCapability, grantedBy } from "./capability.js";
import { decodeLink, type LinkClaims, readClaims } from "./delegation/link.js";
import { SignatureCache, verifyDelegation } from "./delegation/verify.js";
import type { DidResolver } from "./did/resolver.js";
import type { DelegationRegistry } from "./registry/registry.js";
import type { DelegationVerifier, VerifyToolRequest, VerifyToolResult } from "./verifier.js";

/** Options of {@link localVerifier}. Give `chains`, `registry`, or both. */
export interface LocalVerifierOptions {
  /** Chains (root first) known up front; each is used for the agent it ends at. */
  chains?: readonly (readonly string[])[];
  /** A registry of chains per agent (its revocations are honoured too). */
  registry?: DelegationRegistry;
  /** Roots this verifier trusts. A request for any other root is denied. Required. */
  trustedRoots: readonly string[];
  /** Extra revocation check by `jti`; a throw refuses the chain. */
  isRevoked?: (jti: string, claims: LinkClaims) => boolean | Promise<boolean>;
  /** Milliseconds since the epoch (default `Date.now`), like the tool guard's clock. */
  clock?: () => number;
  /** Clock skew tolerated on link windows, seconds (default 60). */
  skewSeconds?: number;
  /** Most links per chain (default 10). */
  maxLength?: number;
  /** Resolver for issuer DIDs (default: did:key only, offline). */
  resolver?: DidResolver;
  /** Remember verified link signatures (default: a cache of 1,024 links; `false` disables). */
  signatureCache?: SignatureCache | false;
}

/**
 * Most chains examined for one question: a flood of chains cannot make a check unbounded.
 *
 * @example
 * ```ts
 * import { MAX_CHAINS_PER_QUESTION } from "agent-airlock/guard";
 * console.log(MAX_CHAINS_PER_QUESTION); // 64
 * ```
 */
export const MAX_CHAINS_PER_QUESTION = 64;

/** A {@link DelegationVerifier} that never leaves the process. */
export interface LocalVerifier extends DelegationVerifier {
  /** The roots it trusts (a copy). */
  readonly trustedRoots: readonly string[];
}

function agentOf(chain: readonly string[]): string | undefined {
  try {
    const last = chain[chain.length - 1];
    return readClaims(decodeLink(last).claims).aud;
  } catch {
    return undefined;
  }
}

/**
 * Build the offline verifier.
 *
 * @throws {TypeError} when `trustedRoots` is missing or neither `chains` nor `registry` is given.
 * @example
 * ```ts
 * import { generateDelegationKey, issueDelegation, localVerifier } from "agent-airlock/guard";
 * const root = generateDelegationKey();
 * const agent = generateDelegationKey();
 * const { chain } = await issueDelegation({ issuer: root, audience: agent.did, capabilities: ["weather:*"], ttlSeconds: 3600 });
 * const verifier = localVerifier({ chains: [chain], trustedRoots: [root.did] });
 * await verifier.verifyTool({ agent: agent.did, capability: "weather:forecast", root: root.did });
 * // { decision: "ALLOW", matchedCapability: "weather:*", expires: ..., root: ... }
 * ```
 */
export function localVerifier(options: LocalVerifierOptions): LocalVerifier {
  if (!Array.isArray(options?.trustedRoots)) {
    throw new TypeError("localVerifier needs trustedRoots (an array of root DIDs)");
  }
  if (options.chains === undefined && options.registry === undefined) {
    throw new TypeError("localVerifier needs chains or a registry");
  }
  const trustedRoots = Object.freeze(
    options.trustedRoots.filter((r): r is string => typeof r === "string"),
  );
  const byAgent = new Map<string, string[][]>();
  for (const chain of options.chains ?? []) {
    if (!Array.isArray(chain)) continue;
    const copy = [...chain] as string[];
    const agent = agentOf(copy);
    if (agent === undefined) continue;
    const list = byAgent.get(agent) ?? [];
    list.push(copy);
    byAgent.set(agent, list);
  }
  const { registry } = options;
  const clock = options.clock ?? Date.now;
  const signatureCache =
    options.signatureCache === false ? undefined : (options.signatureCache ?? new SignatureCache());
  const isRevoked = async (jti: string, claims: LinkClaims): Promise<boolean> => {
    if (registry && (await registry.isRevoked(jti)) !== false) return true;
    if (options.isRevoked && (await options.isRevoked(jti, claims)) !== false) return true;
    return false;
  };

  async function candidates(agent: string): Promise<string[][]> {
    const found = [...(byAgent.get(agent) ?? [])];
    if (registry) for (const record of await registry.chainsFor(agent)) found.push(record.chain);
    return found.slice(0, MAX_CHAINS_PER_QUESTION);
  }

  return {
    trustedRoots,
    async verifyTool({ agent, capability, root }: VerifyToolRequest): Promise<VerifyToolResult> {
      assertRequestedCapability(capability);
      if (typeof root !== "string" || !trustedRoots.includes(root)) {
        return {
          decision: "DENY",
          reason: `root ${JSON.stringify(root)} is not one of this verifier's trusted roots`,
        };
      }
      if (typeof agent !== "string" || agent.length === 0) {
        return { decision: "DENY", reason: "no agent DID given" };
      }
      const chains = await candidates(agent);
      if (chains.length === 0) {
        return { decision: "DENY", reason: `no delegation chain for agent ${agent}`, root };
      }
      const now = Math.floor(clock() / 1000);
      const failures: string[] = [];
      for (const chain of chains) {
        const result = await verifyDelegation(chain, {
          trustedRoots: [root],
          agent,
          now,
          isRevoked,
          ...(options.skewSeconds !== undefined && { skewSeconds: options.skewSeconds }),
          ...(options.maxLength !== undefined && { maxLength: options.maxLength }),
          ...(options.resolver !== undefined && { resolver: options.resolver }),
          ...(signatureCache !== undefined && { signatureCache }),
        });
        if (result.status !== "VALID") {
          failures.push(result.code ?? "DELEGATION_MALFORMED");
          continue;
        }
        const matched = grantedBy(result.effectiveCapabilities, capability);
        if (matched === undefined) {
          failures.push(`grants ${JSON.stringify(result.effectiveCapabilities)}`);
          continue;
        }
        return {
          decision: "ALLOW",
          reason: `a ${result.links.length}-link chain from ${root} grants ${capability} via ${matched}`,
          matchedCapability: matched,
          ...(result.notAfter !== null && { expires: result.notAfter }),
          root,
        };
      }
      return {
        decision: "DENY",
        reason: `no valid chain from ${root} grants ${capability} to ${agent} (${failures.join("; ")})`,
        root,
      };
    },
  };
}
