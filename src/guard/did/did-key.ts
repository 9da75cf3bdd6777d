/**
 * `did:key` for Ed25519 public keys: `did:key:z` + base58btc(0xed 0x01 || 32-byte key).
 * Decoding is strict: one spelling per key (the decoded bytes must re-encode to the same
 * text), so two look-alike DIDs can never name the same key.
 *
 * @module
 */
import { createPublicKey, type KeyObject } from "node:crypto";
import { base58 } from "@scure/base";
import { base64url } from "jose";
import { DidError } from "../delegation/errors.js";

/** The multicodec prefix of an Ed25519 public key (0xed as an unsigned varint). */
const ED25519_MULTICODEC = [0xed, 0x01] as const;
/** A did:key for Ed25519 is 56 characters; anything much longer is not one. */
const MAX_DID_LENGTH = 256;
const DID_SYNTAX = /^did:([a-z0-9]+):([A-Za-z0-9._%-]+(?::[A-Za-z0-9._%-]*)*)$/;

/**
 * The method of a syntactically valid DID (`key` for `did:key:...`).
 *
 * @throws {DidError} `DID_INVALID` when `did` is not a DID.
 * @example
 * ```ts
 * import { didMethod } from "agent-airlock/guard";
 * didMethod("did:web:example.com"); // "web"
 * ```
 */
export function didMethod(did: unknown): string {
  if (typeof did !== "string" || did.length > MAX_DID_LENGTH) {
    throw new DidError("DID_INVALID", `not a DID: ${describe(did)}`);
  }
  const match = DID_SYNTAX.exec(did);
  if (!match) throw new DidError("DID_INVALID", `not a DID: ${describe(did)}`);
  return match[1]!;
}

function describe(value: unknown): string {
  if (typeof value !== "string") return typeof value;
  return JSON.stringify(value.length > 80 ? `${value.slice(0, 80)}...` : value);
}

/**
 * Encode a raw 32-byte Ed25519 public key, or a public/private `KeyObject`, as a did:key.
 *
 * @throws {DidError} `KEY_INVALID` when the key is not Ed25519.
 * @example
 * ```ts
 * import { generateKeyPairSync } from "node:crypto";
 * import { didKeyFromPublicKey } from "agent-airlock/guard";
 * const { publicKey } = generateKeyPairSync("ed25519");
 * didKeyFromPublicKey(publicKey); // "did:key:z6Mk..."
 * ```
 */
export function didKeyFromPublicKey(key: Uint8Array | KeyObject): string {
  const raw = key instanceof Uint8Array ? key : rawPublicKey(key);
  if (raw.length !== 32) throw new DidError("KEY_INVALID", "an Ed25519 public key is 32 bytes");
  const bytes = new Uint8Array(34);
  bytes.set(ED25519_MULTICODEC, 0);
  bytes.set(raw, 2);
  return `did:key:z${base58.encode(bytes)}`;
}

function rawPublicKey(key: KeyObject): Uint8Array {
  if (key.asymmetricKeyType !== "ed25519") {
    throw new DidError("KEY_INVALID", `expected an Ed25519 key, got ${key.asymmetricKeyType}`);
  }
  const jwk = (key.type === "private" ? createPublicKey(key) : key).export({ format: "jwk" });
  return base64url.decode(jwk.x as string);
}

/**
 * The raw 32-byte Ed25519 public key a did:key names.
 *
 * @throws {DidError} `DID_METHOD_UNSUPPORTED` for another method, `DID_INVALID` for a
 * did:key that is not a canonical Ed25519 did:key.
 * @example
 * ```ts
 * import { publicKeyBytesFromDidKey } from "agent-airlock/guard";
 * publicKeyBytesFromDidKey("did:key:z6MkhaXgBZDvotDkL5257faiztiGiC2QtKLGpbnnEGta2doK").length; // 32
 * ```
 */
export function publicKeyBytesFromDidKey(did: string): Uint8Array {
  const method = didMethod(did);
  if (method !== "key") {
    throw new DidError("DID_METHOD_UNSUPPORTED", `expected a did:key, got did:${method}`);
  }
  const id = did.slice("did:key:".length);
  if (!id.startsWith("z")) {
    throw new DidError(
      "DID_INVALID",
      `${describe(did)}: only base58btc ("z") did:key is supported`,
    );
  }
  let bytes: Uint8Array;
  try {
    bytes = base58.decode(id.slice(1));
  } catch (cause) {
    throw new DidError("DID_INVALID", `${describe(did)}: not base58btc`, { cause });
  }
  if (
    bytes.length !== 34 ||
    bytes[0] !== ED25519_MULTICODEC[0] ||
    bytes[1] !== ED25519_MULTICODEC[1]
  ) {
    throw new DidError(
      "DID_INVALID",
      `${describe(did)}: not an Ed25519 did:key (multicodec 0xed01, 32 bytes)`,
    );
  }
  if (`z${base58.encode(bytes)}` !== id) {
    throw new DidError("DID_INVALID", `${describe(did)}: not the canonical spelling of its key`);
  }
  return bytes.slice(2);
}

/**
 * The Node `KeyObject` of the Ed25519 public key a did:key names.
 *
 * @throws {DidError} as {@link publicKeyBytesFromDidKey}.
 * @example
 * ```ts
 * import { publicKeyFromDid } from "agent-airlock/guard";
 * publicKeyFromDid("did:key:z6MkhaXgBZDvotDkL5257faiztiGiC2QtKLGpbnnEGta2doK").asymmetricKeyType; // "ed25519"
 * ```
 */
export function publicKeyFromDid(did: string): KeyObject {
  const raw = publicKeyBytesFromDidKey(did);
  return createPublicKey({
    key: { kty: "OKP", crv: "Ed25519", x: base64url.encode(raw) },
    format: "jwk",
  });
}

/**
 * The verification-method id of a did:key (`did:key:z6Mk...#z6Mk...`), used as the JWS
 * `kid` of the links its holder signs.
 *
 * @example
 * ```ts
 * import { didKeyKid } from "agent-airlock/guard";
 * didKeyKid("did:key:z6MkhaXgBZDvotDkL5257faiztiGiC2QtKLGpbnnEGta2doK");
 * // "did:key:z6MkhaXgBZDvotDkL5257faiztiGiC2QtKLGpbnnEGta2doK#z6MkhaXgBZDvotDkL5257faiztiGiC2QtKLGpbnnEGta2doK"
 * ```
 */
export function didKeyKid(did: string): string {
  publicKeyBytesFromDidKey(did);
  return `${did}#${did.slice("did:key:".length)}`;
}
