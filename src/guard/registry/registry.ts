/**
 * A delegation registry holds the chains agents presented, per agent, and the revoked
 * link ids. It does not judge chains: `localVerifier` verifies a stored chain every time it
 * is used (signatures, trust, time, revocation), so a registry that was tampered with can
 * make the verifier refuse, never allow.
 *
 * @module
 */
import { RegistryError } from "../delegation/errors.js";
import { decodeLink, LinkFormatError, MAX_CHAIN_LENGTH, readClaims } from "../delegation/link.js";

/** A stored chain. */
export interface RegisteredChain {
  /** The digest of the chain's last link: stable, unique per chain. */
  id: string;
  /** The last audience: the agent the chain delegates to. */
  agent: string;
  /** The first issuer. */
  root: string;
  /** The links, root first. */
  chain: string[];
  /** When it was registered, epoch seconds. */
  registeredAt: number;
  /** The earliest expiry in the chain, epoch seconds (stored for pruning; not trusted). */
  notAfter: number;
}

/** Where `localVerifier` and `airlock delegate serve` keep chains and revocations. */
export interface DelegationRegistry {
  /** Store a chain (idempotent: the same chain registers once). Returns the record. */
  register(chain: readonly string[]): Promise<RegisteredChain>;
  /** The chains delegating to `agent`, oldest first (copies). */
  chainsFor(agent: string): Promise<RegisteredChain[]>;
  /** Every stored chain (copies). */
  list(): Promise<RegisteredChain[]>;
  /** Remove a chain by id; true when it was there. */
  unregister(id: string): Promise<boolean>;
  /** Revoke a link id (`jti`): every chain containing it stops verifying. */
  revoke(jti: string): Promise<void>;
  /** Whether a link id is revoked. */
  isRevoked(jti: string): Promise<boolean>;
  /** Release files or handles. */
  close(): Promise<void>;
}

/**
 * Limits every built-in registry enforces. When a limit is reached, chains that have
 * expired are dropped first; only if none has does `register` fail with `REGISTRY_FULL`.
 */
export interface RegistryLimits {
  /** Most chains kept per agent (default 64): a flood cannot make verification unbounded. */
  maxChainsPerAgent?: number;
  /** Most chains kept in all (default 100,000): a flood of agents cannot fill the disk. */
  maxChains?: number;
  /** Milliseconds since the epoch (default `Date.now`): registration time and expiry pruning. */
  clock?: () => number;
}

/**
 * Default for `RegistryLimits.maxChainsPerAgent`.
 *
 * @example
 * ```ts
 * import { createMemoryRegistry, DEFAULT_MAX_CHAINS_PER_AGENT } from "agent-airlock/guard";
 * createMemoryRegistry({ maxChainsPerAgent: DEFAULT_MAX_CHAINS_PER_AGENT * 2 });
 * ```
 */
export const DEFAULT_MAX_CHAINS_PER_AGENT = 64;

/**
 * Read what a registry needs from a chain (agent, root, id, expiry) without verifying it.
 *
 * @internal
 * @throws {RegistryError} `DELEGATION_EMPTY`, `DELEGATION_TOO_LONG`, `DELEGATION_MALFORMED`
 * or `DELEGATION_TOO_LARGE` when it is not a readable chain.
 */
export function describeChain(chain: unknown, now: number): RegisteredChain {
  if (!Array.isArray(chain))
    throw new RegistryError("DELEGATION_MALFORMED", "a chain is an array of links");
  if (chain.length === 0) throw new RegistryError("DELEGATION_EMPTY", "the chain has no links");
  if (chain.length > MAX_CHAIN_LENGTH) {
    throw new RegistryError(
      "DELEGATION_TOO_LONG",
      `a chain holds at most ${MAX_CHAIN_LENGTH} links`,
    );
  }
  const links: string[] = [];
  let notAfter = Number.POSITIVE_INFINITY;
  let root = "";
  let agent = "";
  let id = "";
  for (let i = 0; i < chain.length; i++) {
    try {
      const decoded = decodeLink(chain[i]);
      const claims = readClaims(decoded.claims);
      links.push(decoded.text);
      notAfter = Math.min(notAfter, claims.exp);
      if (i === 0) root = claims.iss;
      if (i === chain.length - 1) {
        agent = claims.aud;
        id = decoded.digest;
      }
    } catch (err) {
      if (err instanceof LinkFormatError) {
        throw new RegistryError(
          err.tooLarge ? "DELEGATION_TOO_LARGE" : "DELEGATION_MALFORMED",
          `link ${i}: ${err.message}`,
        );
      }
      throw err;
    }
  }
  return { id, agent, root, chain: links, registeredAt: now, notAfter };
}

/** A deep-enough copy: callers never hold the registry's own objects. @internal */
export function copyRecord(record: RegisteredChain): RegisteredChain {
  return { ...record, chain: [...record.chain] };
}

/** Validate a jti given to `revoke`/`isRevoked`. @internal */
export function assertJti(jti: unknown): asserts jti is string {
  if (typeof jti !== "string" || jti.length === 0 || jti.length > 128 || !/^[!-~]+$/.test(jti)) {
    throw new RegistryError("REGISTRY_INVALID", "a jti is 1 to 128 printable ASCII characters");
  }
}

/** The per-agent limit to apply. @internal */
export function maxPerAgent(limits: RegistryLimits | undefined): number {
  const n = limits?.maxChainsPerAgent ?? DEFAULT_MAX_CHAINS_PER_AGENT;
  return Number.isSafeInteger(n) && n > 0 ? n : DEFAULT_MAX_CHAINS_PER_AGENT;
}

/** Default for `RegistryLimits.maxChains`. @internal */
export const DEFAULT_MAX_CHAINS = 100_000;

/** The total limit to apply. @internal */
export function maxTotal(limits: RegistryLimits | undefined): number {
  const n = limits?.maxChains ?? DEFAULT_MAX_CHAINS;
  return Number.isSafeInteger(n) && n > 0 ? n : DEFAULT_MAX_CHAINS;
}
