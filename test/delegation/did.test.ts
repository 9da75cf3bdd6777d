import { generateKeyPairSync } from "node:crypto";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { DidError } from "../../src/guard/delegation/errors.js";
import {
  didKeyFromPublicKey,
  didKeyKid,
  didMethod,
  publicKeyBytesFromDidKey,
  publicKeyFromDid,
} from "../../src/guard/did/did-key.js";
import {
  didFromPublicJwk,
  exportPrivateJwk,
  exportPublicJwk,
  generateDelegationKey,
  importPrivateJwk,
} from "../../src/guard/did/keys.js";
import { didKeyResolver, methodResolver } from "../../src/guard/did/resolver.js";

describe("did:key", () => {
  it("decodes the W3C did:key Ed25519 test vector", () => {
    // An Ed25519 did:key from the did:key method specification examples.
    const did = "did:key:z6MkiTBz1ymuepAQ4HEHYSF1H8quG5GLVVQR3djdX3mDooWp";
    const raw = publicKeyBytesFromDidKey(did);
    expect(raw).toHaveLength(32);
    expect(didKeyFromPublicKey(raw)).toBe(did);
    expect(publicKeyFromDid(did).asymmetricKeyType).toBe("ed25519");
  });

  it("round-trips every 32-byte key", () => {
    fc.assert(
      fc.property(fc.uint8Array({ minLength: 32, maxLength: 32 }), (raw) => {
        const did = didKeyFromPublicKey(raw);
        expect(did.startsWith("did:key:z6Mk")).toBe(true);
        expect(Buffer.from(publicKeyBytesFromDidKey(did))).toEqual(Buffer.from(raw));
      }),
    );
  });

  it("names the did:key of a node:crypto key pair, private or public", () => {
    const { publicKey, privateKey } = generateKeyPairSync("ed25519");
    expect(didKeyFromPublicKey(privateKey)).toBe(didKeyFromPublicKey(publicKey));
    expect(() => didKeyFromPublicKey(generateKeyPairSync("x25519").publicKey)).toThrow(DidError);
  });

  it("refuses malformed, non-Ed25519 and non-canonical did:keys", () => {
    const good = generateDelegationKey().did;
    const cases: [unknown, string][] = [
      ["did:key:", "DID_INVALID"],
      ["did:key:abc", "DID_INVALID"],
      ["did:key:z0OIl", "DID_INVALID"],
      [`${good}x`, "DID_INVALID"],
      ["did:key:z6LSbysY2xFMRpGMhb7tFTLMpeuPRaqaWM1yECx2AtzE3KCc", "DID_INVALID"], // X25519 multicodec
      ["did:web:example.com", "DID_METHOD_UNSUPPORTED"],
      ["did:Key:z6Mk", "DID_INVALID"],
      ["not a did", "DID_INVALID"],
      [`did:key:z${"1".repeat(300)}`, "DID_INVALID"],
      [42, "DID_INVALID"],
    ];
    for (const [did, code] of cases) {
      try {
        publicKeyBytesFromDidKey(did as string);
        expect.unreachable(String(did));
      } catch (err) {
        expect(err, String(did)).toBeInstanceOf(DidError);
        expect((err as DidError).code, String(did)).toBe(code);
      }
    }
  });

  it("reads the method of any DID", () => {
    expect(didMethod("did:web:example.com:user:alice")).toBe("web");
    expect(() => didMethod("did::x")).toThrow(DidError);
  });

  it("builds the kid as did#fragment", () => {
    const { did } = generateDelegationKey();
    expect(didKeyKid(did)).toBe(`${did}#${did.slice(8)}`);
  });
});

describe("JWK import and export", () => {
  it("round-trips a private key and keeps the same did", () => {
    const key = generateDelegationKey();
    const jwk = exportPrivateJwk(key);
    expect(jwk).toMatchObject({ kty: "OKP", crv: "Ed25519", kid: key.did, alg: "EdDSA" });
    expect(typeof jwk.d).toBe("string");
    const back = importPrivateJwk(JSON.parse(JSON.stringify(jwk)));
    expect(back.did).toBe(key.did);
    expect(back.kid).toBe(key.kid);
    expect(didFromPublicJwk(exportPublicJwk(key))).toBe(key.did);
    expect(exportPublicJwk(key)).not.toHaveProperty("d");
  });

  it("refuses a JWK whose x does not match its d, and non-Ed25519 JWKs", () => {
    const a = exportPrivateJwk(generateDelegationKey());
    const b = exportPrivateJwk(generateDelegationKey());
    expect(() => importPrivateJwk({ ...a, x: b.x })).toThrow(DidError);
    expect(() => importPrivateJwk({ ...a, d: undefined })).toThrow(DidError);
    expect(() => importPrivateJwk({ ...a, crv: "X25519" })).toThrow(DidError);
    expect(() => importPrivateJwk(null)).toThrow(DidError);
    expect(() => didFromPublicJwk({ kty: "OKP", crv: "Ed25519", x: "short" })).toThrow(DidError);
  });
});

describe("resolvers", () => {
  it("did:key resolves offline; any other method is refused without a fetch", async () => {
    const key = generateDelegationKey();
    const resolved = didKeyResolver.resolveKey(key.did) as import("node:crypto").KeyObject;
    expect(resolved.equals(key.publicKey)).toBe(true);
    const resolver = methodResolver();
    await expect(resolver.resolveKey("did:web:example.com")).rejects.toMatchObject({
      code: "DID_METHOD_UNSUPPORTED",
    });
    await expect(resolver.resolveKey("https://example.com")).rejects.toMatchObject({
      code: "DID_INVALID",
    });
  });

  it("a plugged-in resolver must return an Ed25519 public key", async () => {
    const resolver = methodResolver({
      web: { resolveKey: () => generateKeyPairSync("x25519").publicKey },
    });
    await expect(resolver.resolveKey("did:web:example.com")).rejects.toMatchObject({
      code: "KEY_INVALID",
    });
  });
});
