/**
 * Resolving an issuer's DID to its Ed25519 public key. Only `did:key` is built in, and it
 * needs no network. Other methods (`did:web`, ...) are plugged in by the caller; an
 * unknown method is a refusal (`DID_METHOD_UNSUPPORTED`), never a fetch.
 *
 * @module
 */
import type { KeyObject } from "node:crypto";
import { DidError } from "../delegation/errors.js";
import { didKeyKid, didMethod, publicKeyFromDid } from "./did-key.js";

/** A DID's key and the ids of the verification methods that publish it. */
export interface VerificationMethodKey {
  /** The Ed25519 public key. */
  key: KeyObject;
  /**
   * Every `<did>#<fragment>` under which the DID publishes `key`: a link's `kid` must be
   * one. Absent when the resolver cannot say; then only the `kid`'s DID part is checked.
   */
  ids?: readonly string[];
}

/** Resolves a DID to the Ed25519 public key its links are signed with. */
export interface DidResolver {
  /**
   * The public key of `did`. Throw a `DidError` (or anything: it is wrapped as
   * `DID_RESOLUTION_FAILED`) when it cannot be resolved.
   */
  resolveKey(did: string): KeyObject | Promise<KeyObject>;
  /**
   * Optional: the key with the ids of its verification methods. Verification uses it when
   * present, and refuses a link whose `kid` is not one of the ids
   * (`DELEGATION_KEY_MISMATCH`). Without it only the `kid`'s DID part can be checked for
   * methods other than did:key (whose one id is `<did>#<multibase>`).
   */
  resolveMethod?(did: string): VerificationMethodKey | Promise<VerificationMethodKey>;
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
  resolveKey: resolveDidKey,
  resolveMethod: (did: string): VerificationMethodKey => ({
    key: resolveDidKey(did),
    ids: [didKeyKid(did)],
  }),
};

function resolveDidKey(did: string): KeyObject {
  const hit = cache.get(did);
  if (hit) return hit;
  const key = publicKeyFromDid(did);
  if (cache.size >= CACHE_LIMIT) cache.delete(cache.keys().next().value as string);
  cache.set(did, key);
  return key;
}

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
  const resolveKey = async (did: string): Promise<KeyObject> => (await resolveMethod(did)).key;
  const resolveMethod = async (did: string): Promise<VerificationMethodKey> => {
    const method = didMethod(did);
    const resolver = table.get(method);
    if (!resolver) {
      throw new DidError(
        "DID_METHOD_UNSUPPORTED",
        `no resolver for did:${method}; configure one (agent-airlock never fetches a DID by default)`,
      );
    }
    try {
      const found = await lookUp(resolver, did, method);
      if (found.key.type !== "public" || found.key.asymmetricKeyType !== "ed25519") {
        throw new DidError(
          "KEY_INVALID",
          `the resolver for did:${method} did not return an Ed25519 public key`,
        );
      }
      return found;
    } catch (err) {
      if (err instanceof DidError) throw err;
      throw new DidError(
        "DID_RESOLUTION_FAILED",
        `resolving a did:${method} failed: ${(err as Error)?.message ?? String(err)}`,
        { cause: err },
      );
    }
  };
  return { resolveKey, resolveMethod };
}

/**
 * Ask one method's resolver for the key and its method ids. A resolver with only
 * `resolveKey` gives no ids, except for did:key, whose one id the DID itself names.
 */
async function lookUp(
  resolver: DidResolver,
  did: string,
  method: string,
): Promise<VerificationMethodKey> {
  if (resolver.resolveMethod === undefined) {
    const key = await resolver.resolveKey(did);
    return method === "key" ? { key, ids: [didKeyKid(did)] } : { key };
  }
  const found = await resolver.resolveMethod(did);
  const ids: unknown = found?.ids;
  if (ids === undefined) return { key: found.key };
  if (
    !Array.isArray(ids) ||
    ids.length > 64 ||
    !ids.every((id) => typeof id === "string" && id.startsWith(`${did}#`))
  ) {
    throw new DidError(
      "DID_RESOLUTION_FAILED",
      `the resolver for did:${method} gave verification method ids that are not ${did}#...`,
    );
  }
  return { key: found.key, ids: [...ids] };
}
