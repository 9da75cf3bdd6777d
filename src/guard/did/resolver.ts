/**
 * Resolving an issuer's DID to its Ed25519 public key. Only `did:key` is built in, and it
 * needs no network. Other methods (`did:web`, ...) are plugged in by the caller; an
 * unknown method is a refusal (`DID_METHOD_UNSUPPORTED`), never a fetch.
 *
 * @module
 */
import type { KeyObject } from "node:crypto";
import { DidError } from "../delegation/errors.js";
import { didMethod, publicKeyFromDid } from "./did-key.js";

/** Resolves a DID to the Ed25519 public key its links are signed with. */
export interface DidResolver {
  /**
   * The public key of `did`. Throw a `DidError` (or anything: it is wrapped as
   * `DID_RESOLUTION_FAILED`) when it cannot be resolved.
   */
  resolveKey(did: string): KeyObject | Promise<KeyObject>;
}

/** Most resolved did:key public keys kept in memory by {@link didKeyResolver}. */
const CACHE_LIMIT = 1024;
const cache = new Map<string, KeyObject>();

/**
 * The built-in resolver: did:key only, offline, with a small bounded cache.
 *
 * @example
 * ```ts
 * import { didKeyResolver, generateDelegationKey } from "agent-airlock/guard";
 * const key = generateDelegationKey();
 * didKeyResolver.resolveKey(key.did); // KeyObject
 * ```
 */
export const didKeyResolver: DidResolver = {
  resolveKey(did: string): KeyObject {
    const hit = cache.get(did);
    if (hit) return hit;
    const key = publicKeyFromDid(did);
    if (cache.size >= CACHE_LIMIT) cache.delete(cache.keys().next().value as string);
    cache.set(did, key);
    return key;
  },
};

/**
 * A resolver that dispatches on the DID method: `did:key` built in, plus the methods you
 * pass. A method with no resolver is refused with `DID_METHOD_UNSUPPORTED`.
 *
 * @example
 * ```ts
 * import { methodResolver } from "agent-airlock/guard";
 * const resolver = methodResolver({
 *   web: { resolveKey: async (did) => { throw new Error(`no did:web for ${did} offline`); } },
 * });
 * ```
 */
export function methodResolver(methods: Readonly<Record<string, DidResolver>> = {}): DidResolver {
  const table = new Map<string, DidResolver>([["key", didKeyResolver]]);
  for (const [name, resolver] of Object.entries(methods)) table.set(name, resolver);
  return {
    async resolveKey(did: string): Promise<KeyObject> {
      const method = didMethod(did);
      const resolver = table.get(method);
      if (!resolver) {
        throw new DidError(
          "DID_METHOD_UNSUPPORTED",
          `no resolver for did:${method}; configure one (agent-airlock never fetches a DID by default)`,
        );
      }
      try {
        const key = await resolver.resolveKey(did);
        if (key.type !== "public" || key.asymmetricKeyType !== "ed25519") {
          throw new DidError(
            "KEY_INVALID",
            `the resolver for did:${method} did not return an Ed25519 public key`,
          );
        }
        return key;
      } catch (err) {
        if (err instanceof DidError) throw err;
        throw new DidError(
          "DID_RESOLUTION_FAILED",
          `resolving a did:${method} failed: ${(err as Error)?.message ?? String(err)}`,
          { cause: err },
        );
      }
    },
  };
}
