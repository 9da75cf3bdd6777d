/**
 * Remembering verified link signatures.
 *
 * @module
 */

/**
 * A bounded set of link digests whose Ed25519 signature already verified under their
 * did:key issuer. Safe to share: a did:key names its key, so the verdict on the same bytes
 * never changes. Time, trust, chaining and revocation are always re-checked.
 *
 * @example
 * ```ts
 * import { SignatureCache, verifyDelegation } from "agent-airlock/guard";
 * const signatureCache = new SignatureCache(1000);
 * await verifyDelegation(chain, { trustedRoots: [root], signatureCache });
 * ```
 */
export class SignatureCache {
  readonly #limit: number;
  readonly #digests = new Set<string>();
  constructor(limit = 1024) {
    this.#limit = Math.max(1, Math.floor(limit));
  }
  /** Whether the link with this digest verified before. */
  has(digest: string): boolean {
    return this.#digests.has(digest);
  }
  /** Record a verified link. */
  add(digest: string): void {
    if (this.#digests.has(digest)) return;
    if (this.#digests.size >= this.#limit) {
      this.#digests.delete(this.#digests.values().next().value as string);
    }
    this.#digests.add(digest);
  }
  /** Forget everything. */
  clear(): void {
    this.#digests.clear();
  }
}
