/**
 * Ed25519 delegation keys: generate, import and export as JWK. A key's identity is its
 * did:key; its JWS `kid` is the did:key verification method.
 *
 * @module
 */
import {
  createPrivateKey,
  createPublicKey,
  generateKeyPairSync,
  type KeyObject,
} from "node:crypto";
import { DidError } from "../delegation/errors.js";
import { didKeyFromPublicKey, didKeyKid } from "./did-key.js";

/** An Ed25519 key pair with its did:key identity. */
export interface DelegationKey {
  /** The did:key of the public key. */
  readonly did: string;
  /** The JWS `kid` links signed by this key carry. */
  readonly kid: string;
  readonly privateKey: KeyObject;
  readonly publicKey: KeyObject;
}

/** An Ed25519 JWK (RFC 8037). `d` is present on private keys only. */
export interface Ed25519Jwk {
  kty: "OKP";
  crv: "Ed25519";
  x: string;
  d?: string;
  kid?: string;
  alg?: "EdDSA";
}

function fromPrivate(privateKey: KeyObject): DelegationKey {
  const publicKey = createPublicKey(privateKey);
  const did = didKeyFromPublicKey(publicKey);
  return { did, kid: didKeyKid(did), privateKey, publicKey };
}

/**
 * Generate a fresh Ed25519 delegation key.
 *
 * @example
 * ```ts
 * import { generateDelegationKey } from "agent-airlock/guard";
 * const root = generateDelegationKey();
 * console.log(root.did); // did:key:z6Mk...
 * ```
 */
export function generateDelegationKey(): DelegationKey {
  return fromPrivate(generateKeyPairSync("ed25519").privateKey);
}

function assertEd25519Jwk(jwk: unknown, requirePrivate: boolean): asserts jwk is Ed25519Jwk {
  const j = jwk as Partial<Ed25519Jwk> | null;
  if (
    typeof j !== "object" ||
    j === null ||
    j.kty !== "OKP" ||
    j.crv !== "Ed25519" ||
    typeof j.x !== "string" ||
    (requirePrivate && typeof j.d !== "string")
  ) {
    throw new DidError(
      "KEY_INVALID",
      requirePrivate
        ? 'expected an Ed25519 private JWK ({ kty: "OKP", crv: "Ed25519", x, d })'
        : 'expected an Ed25519 JWK ({ kty: "OKP", crv: "Ed25519", x })',
    );
  }
}

/**
 * Import a private Ed25519 JWK (as written by {@link exportPrivateJwk}). The `x` member
 * must match `d`: a JWK whose public half was swapped is refused.
 *
 * @throws {DidError} `KEY_INVALID`.
 * @example
 * ```ts
 * import { exportPrivateJwk, generateDelegationKey, importPrivateJwk } from "agent-airlock/guard";
 * const key = importPrivateJwk(exportPrivateJwk(generateDelegationKey()));
 * ```
 */
export function importPrivateJwk(jwk: unknown): DelegationKey {
  assertEd25519Jwk(jwk, true);
  let privateKey: KeyObject;
  try {
    privateKey = createPrivateKey({
      key: { kty: "OKP", crv: "Ed25519", x: jwk.x, d: jwk.d as string },
      format: "jwk",
    });
  } catch (cause) {
    throw new DidError("KEY_INVALID", "the JWK is not a usable Ed25519 private key", { cause });
  }
  const key = fromPrivate(privateKey);
  if (createPublicKey(privateKey).export({ format: "jwk" }).x !== jwk.x) {
    throw new DidError("KEY_INVALID", "the JWK's x does not belong to its d");
  }
  return key;
}

/**
 * Import a public Ed25519 JWK and return its did:key.
 *
 * @throws {DidError} `KEY_INVALID`.
 * @example
 * ```ts
 * import { didFromPublicJwk, exportPublicJwk, generateDelegationKey } from "agent-airlock/guard";
 * const key = generateDelegationKey();
 * didFromPublicJwk(exportPublicJwk(key)) === key.did; // true
 * ```
 */
export function didFromPublicJwk(jwk: unknown): string {
  assertEd25519Jwk(jwk, false);
  try {
    return didKeyFromPublicKey(
      createPublicKey({ key: { kty: "OKP", crv: "Ed25519", x: jwk.x }, format: "jwk" }),
    );
  } catch (cause) {
    throw new DidError("KEY_INVALID", "the JWK is not a usable Ed25519 public key", { cause });
  }
}

/**
 * Export the private key as a JWK (with `kid` set to the did:key). Store it with `0600`
 * permissions: anyone who reads it can delegate in its name.
 *
 * @example
 * ```ts
 * import { exportPrivateJwk, generateDelegationKey } from "agent-airlock/guard";
 * const jwk = exportPrivateJwk(generateDelegationKey()); // { kty: "OKP", crv: "Ed25519", x, d, kid, alg }
 * ```
 */
export function exportPrivateJwk(key: DelegationKey): Ed25519Jwk {
  const jwk = key.privateKey.export({ format: "jwk" });
  return {
    kty: "OKP",
    crv: "Ed25519",
    x: jwk.x as string,
    d: jwk.d as string,
    kid: key.did,
    alg: "EdDSA",
  };
}

/**
 * Export the public key as a JWK (with `kid` set to the did:key).
 *
 * @example
 * ```ts
 * import { exportPublicJwk, generateDelegationKey } from "agent-airlock/guard";
 * const jwk = exportPublicJwk(generateDelegationKey()); // { kty: "OKP", crv: "Ed25519", x, kid, alg }
 * ```
 */
export function exportPublicJwk(key: DelegationKey): Ed25519Jwk {
  const jwk = key.publicKey.export({ format: "jwk" });
  return { kty: "OKP", crv: "Ed25519", x: jwk.x as string, kid: key.did, alg: "EdDSA" };
}
