import { createPrivateKey } from "node:crypto";
import { describe, expect, it } from "vitest";
import { issueDelegation } from "../../src/guard/delegation/issue.js";
import { linkDigest } from "../../src/guard/delegation/link.js";
import { verifyDelegation } from "../../src/guard/delegation/verify.js";
import { importPrivateJwk } from "../../src/guard/did/keys.js";

// The interoperability vector printed in docs/delegation.md. Ed25519 signatures and the
// JCS payload are deterministic, so issuing from the same seeds reproduces it byte for byte.
const VECTOR = {
  root: "did:key:z6Mkon3Necd6NkkyfoGoHxid2znGc59LU3K7mubaRcFbLfLX",
  team: "did:key:z6Mko9hTggMwjSTEaJaPUfE6tqcy2xvU6BnNq3e3o8qVBiyH",
  agent: "did:key:z6MkvRXNYcE7MMduynWTgeKbDaT1iijDSC8pZqXZc8rHPrf2",
  chain: [
    "eyJhbGciOiJFZERTQSIsImtpZCI6ImRpZDprZXk6ejZNa29uM05lY2Q2TmtreWZvR29IeGlkMnpuR2M1OUxVM0s3bXViYVJjRmJMZkxYI3o2TWtvbjNOZWNkNk5ra3lmb0dvSHhpZDJ6bkdjNTlMVTNLN211YmFSY0ZiTGZMWCIsInR5cCI6ImFpcmxvY2stZGVsZWdhdGlvbitqd3QifQ.eyJhdWQiOiJkaWQ6a2V5Ono2TWtvOWhUZ2dNd2pTVEVhSmFQVWZFNnRxY3kyeHZVNkJuTnEzZTNvOHFWQml5SCIsImNhcCI6WyJ3ZWF0aGVyOioiXSwiZXhwIjoxNzk4NzYxNjAwLCJpYXQiOjE3NjcyMjU2MDAsImlzcyI6ImRpZDprZXk6ejZNa29uM05lY2Q2TmtreWZvR29IeGlkMnpuR2M1OUxVM0s3bXViYVJjRmJMZkxYIiwianRpIjoibGluay0xIiwibmJmIjoxNzY3MjI1NjAwfQ.t3DzlvPDJv9FjrzkD1CthamQAoH1uH_2Jjo1Gy0AjzD9cKUAFNrIIDhQb2Cjd5xk3xzlznPlfQp1Z1HnipwzCA",
    "eyJhbGciOiJFZERTQSIsImtpZCI6ImRpZDprZXk6ejZNa285aFRnZ013alNURWFKYVBVZkU2dHFjeTJ4dlU2Qm5OcTNlM284cVZCaXlII3o2TWtvOWhUZ2dNd2pTVEVhSmFQVWZFNnRxY3kyeHZVNkJuTnEzZTNvOHFWQml5SCIsInR5cCI6ImFpcmxvY2stZGVsZWdhdGlvbitqd3QifQ.eyJhdWQiOiJkaWQ6a2V5Ono2TWt2UlhOWWNFN01NZHV5bldUZ2VLYkRhVDFpaWpEU0M4cFpxWFpjOHJIUHJmMiIsImNhcCI6WyJ3ZWF0aGVyOmZvcmVjYXN0Il0sImV4cCI6MTc4Mjg2NDAwMCwiaWF0IjoxNzY3MjI1NjAwLCJpc3MiOiJkaWQ6a2V5Ono2TWtvOWhUZ2dNd2pTVEVhSmFQVWZFNnRxY3kyeHZVNkJuTnEzZTNvOHFWQml5SCIsImp0aSI6ImxpbmstMiIsIm5iZiI6MTc2NzIyNTYwMCwicHJmIjoiOTdiYzQ5MTIwYjM4ZWQyZjE1MWJkMzM4ZGE4MTg5MTcyMzNlZjYyMGM1MDU0ZDAwOTc4ZDVkNzE2NDRlNDUwNSJ9.Znh20TnFJfdTbQVOX1SxrvxLZfkEIgdkVQTPDrutWfsYsqoX77M8VxvGKsF2BYrtGusQJKNOW55fSCB5rNSsCA",
  ],
  digests: [
    "97bc49120b38ed2f151bd338da818917233ef620c5054d00978d5d71644e4505",
    "82b15371e2aa653ec0fb1262ce1532f7d3a8c14eb20fe2fe7e6c68b985184315",
  ],
};

/** An Ed25519 key whose 32-byte seed is `byte` repeated. */
function keyFromSeed(byte: number) {
  const seed = Buffer.alloc(32, byte);
  const pkcs8 = Buffer.concat([Buffer.from("302e020100300506032b657004220420", "hex"), seed]);
  const x = createPrivateKey({ key: pkcs8, format: "der", type: "pkcs8" }).export({
    format: "jwk",
  }).x;
  return importPrivateJwk({ kty: "OKP", crv: "Ed25519", x, d: seed.toString("base64url") });
}

describe("the docs/delegation.md interoperability vector", () => {
  it("keys from seeds 0x01, 0x02, 0x03 have the documented did:keys", () => {
    expect([keyFromSeed(1).did, keyFromSeed(2).did, keyFromSeed(3).did]).toEqual([
      VECTOR.root,
      VECTOR.team,
      VECTOR.agent,
    ]);
  });

  it("issuing with the documented claims reproduces the chain byte for byte", async () => {
    const t = { notBefore: 1767225600, now: 1767225600 };
    const a = await issueDelegation({
      issuer: keyFromSeed(1),
      audience: VECTOR.team,
      capabilities: ["weather:*"],
      expires: 1798761600,
      jti: "link-1",
      ...t,
    });
    const b = await issueDelegation({
      issuer: keyFromSeed(2),
      audience: VECTOR.agent,
      capabilities: ["weather:forecast"],
      expires: 1782864000,
      jti: "link-2",
      parent: a.chain,
      ...t,
    });
    expect(b.chain).toEqual(VECTOR.chain);
    expect(VECTOR.chain.map(linkDigest)).toEqual(VECTOR.digests);
  });

  it("verifies as documented", async () => {
    const r = await verifyDelegation(VECTOR.chain, {
      trustedRoots: [VECTOR.root],
      agent: VECTOR.agent,
      now: 1770000000,
    });
    expect(r).toMatchObject({
      status: "VALID",
      root: VECTOR.root,
      leaf: VECTOR.agent,
      effectiveCapabilities: ["weather:forecast"],
      notAfter: 1782864000,
    });
  });
});
