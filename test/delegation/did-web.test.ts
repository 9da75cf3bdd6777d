import { readFileSync } from "node:fs";
import type { ServerResponse } from "node:http";
import { createServer, type Server } from "node:https";
import type { AddressInfo } from "node:net";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DidError } from "../../src/guard/delegation/errors.js";
import { issueDelegation } from "../../src/guard/delegation/issue.js";
import { verifyDelegation } from "../../src/guard/delegation/verify.js";
import { didWebResolver, didWebUrl } from "../../src/guard/did/did-web.js";
import {
  type DelegationKey,
  exportPublicJwk,
  generateDelegationKey,
} from "../../src/guard/did/keys.js";
import { methodResolver } from "../../src/guard/did/resolver.js";
import { localVerifier } from "../../src/guard/local-verifier.js";

// A real HTTPS server on loopback with a test certificate for localhost
// (test/fixtures/tls, self-signed, valid to 2126): the resolver is given its CA.
const tls = new URL("../fixtures/tls/", import.meta.url);
const cert = readFileSync(new URL("localhost.crt", tls));
const key = readFileSync(new URL("localhost.key", tls));

type Answer = (res: ServerResponse) => void;
let server: Server;
let answer: Answer;
let requests: string[] = [];
let did: string;

beforeAll(async () => {
  server = createServer({ cert, key }, (req, res) => {
    requests.push(req.url ?? "");
    answer(res);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  did = `did:web:localhost%3A${(server.address() as AddressInfo).port}`;
});
afterAll(
  () =>
    new Promise<void>((resolve) => {
      server.close(() => resolve());
      server.closeAllConnections();
    }),
);

const root = generateDelegationKey();
const agent = generateDelegationKey();
const NOW = Math.floor(Date.now() / 1000);

/** The root key under its did:web identity (issuing signs with `kid`, `iss` from here). */
function webRoot(): DelegationKey {
  return { ...root, did, kid: `${did}#key-1` };
}

function document(overrides: Record<string, unknown> = {}) {
  return {
    "@context": ["https://www.w3.org/ns/did/v1"],
    id: did,
    verificationMethod: [
      {
        id: `${did}#key-1`,
        type: "JsonWebKey2020",
        controller: did,
        publicKeyJwk: exportPublicJwk(root),
      },
    ],
    assertionMethod: ["#key-1"],
    ...overrides,
  };
}

function serve(body: unknown, status = 200, headers: Record<string, string> = {}): Answer {
  return (res) => {
    res.writeHead(status, { "content-type": "application/did+json", ...headers });
    res.end(typeof body === "string" ? body : JSON.stringify(body));
  };
}

async function chain() {
  return (
    await issueDelegation({
      issuer: webRoot(),
      audience: agent.did,
      capabilities: ["weather:*"],
      notBefore: NOW - 60,
      expires: NOW + 3600,
      now: NOW,
    })
  ).chain;
}

async function verifyWith(resolverOptions: Parameters<typeof didWebResolver>[0] = { ca: cert }) {
  return verifyDelegation(await chain(), {
    trustedRoots: [did],
    agent: agent.did,
    now: new Date(NOW * 1000),
    resolver: methodResolver({ web: didWebResolver(resolverOptions) }),
  });
}

describe("didWebUrl", () => {
  it("maps the host, an encoded port and path segments to the document's HTTPS URL", () => {
    expect(didWebUrl("did:web:example.com").href).toBe("https://example.com/.well-known/did.json");
    expect(didWebUrl("did:web:example.com%3A8443:teams:ops").href).toBe(
      "https://example.com:8443/teams/ops/did.json",
    );
  });

  it("refuses what cannot be a host or a path, and other methods", () => {
    for (const bad of [
      "did:web:example.com:..",
      "did:web:example.com::x",
      "did:web:exa%2Fmple.com",
      "did:web:-bad.com",
      "did:web:example.com:a%2Fb",
      // Host names the URL parser would turn into an address: 0.0.0.0 and 127.0.0.1.
      "did:web:0",
      "did:web:2130706433",
      "did:web:0x7f.1",
      // Not a URL at all: a numeric last label makes the parser want an IPv4 address.
      "did:web:a.0",
    ]) {
      expect(() => didWebUrl(bad), bad).toThrow(expect.objectContaining({ code: "DID_INVALID" }));
    }
    expect(() => didWebUrl(agent.did)).toThrow(
      expect.objectContaining({ code: "DID_METHOD_UNSUPPORTED" }),
    );
  });
});

describe("didWebUrl on any input", () => {
  it("either refuses with a DidError or names exactly the DID's host, over HTTPS, at a did.json", () => {
    const part = fc.stringMatching(/^[A-Za-z0-9._%:@/?#~-]{0,24}$/);
    fc.assert(
      fc.property(part, (rest) => {
        const did = `did:web:${rest}`;
        let url: URL;
        try {
          url = didWebUrl(did);
        } catch (err) {
          expect(err).toBeInstanceOf(DidError);
          return;
        }
        const [host = ""] = rest.split(":");
        expect(url.protocol).toBe("https:");
        expect(url.host).toBe(host.replace(/%3A/gi, ":").toLowerCase().replace(/:443$/, ""));
        expect(url.username + url.password + url.search + url.hash).toBe("");
        expect(url.pathname.endsWith("/did.json")).toBe(true);
        expect(url.pathname.includes("/../")).toBe(false);
      }),
      { numRuns: 2000 },
    );
  });
});

describe("didWebResolver over real HTTPS", () => {
  it("verifies a chain whose root is a did:web, and the guard's local verifier allows", async () => {
    answer = serve(document());
    requests = [];
    const result = await verifyWith();
    expect(result.status).toBe("VALID");
    expect(requests).toEqual(["/.well-known/did.json"]);

    const verifier = localVerifier({
      chains: [await chain()],
      trustedRoots: [did],
      resolver: methodResolver({ web: didWebResolver({ ca: cert }) }),
    });
    const decision = await verifier.verifyTool({
      agent: agent.did,
      capability: "weather:forecast",
      root: did,
    });
    expect(decision.decision).toBe("ALLOW");
  });

  it("a link whose kid is not the document's method id for the key is DELEGATION_KEY_MISMATCH", async () => {
    answer = serve(document());
    const link = (
      await issueDelegation({
        issuer: { ...webRoot(), kid: `${did}#key-2` },
        audience: agent.did,
        capabilities: ["weather:*"],
        notBefore: NOW - 60,
        expires: NOW + 3600,
        now: NOW,
      })
    ).chain;
    const result = await verifyDelegation(link, {
      trustedRoots: [did],
      now: new Date(NOW * 1000),
      resolver: methodResolver({ web: didWebResolver({ ca: cert }) }),
    });
    expect(result.code).toBe("DELEGATION_KEY_MISMATCH");
    expect(result.links[0]?.checks.find((c) => c.rule === "kid")?.detail).toContain(`${did}#key-1`);
    // The document's own id for the key, relative ("#key-1") or absolute, verifies.
    answer = serve(document({ assertionMethod: [`${did}#key-1`] }));
    expect((await verifyWith()).status).toBe("VALID");
  });

  it("takes a publicKeyMultibase key, and reuses a resolved key within cacheSeconds", async () => {
    answer = serve(
      document({
        verificationMethod: [
          {
            id: `${did}#key-1`,
            type: "Multikey",
            controller: did,
            publicKeyMultibase: root.did.slice("did:key:".length),
          },
        ],
      }),
    );
    requests = [];
    const resolver = didWebResolver({ ca: cert });
    const first = await resolver.resolveKey(did);
    const second = await resolver.resolveKey(did);
    expect(first.equals(root.publicKey)).toBe(true);
    expect(second).toBe(first);
    expect(requests).toHaveLength(1);
  });

  it("refuses every document that does not name exactly one Ed25519 assertion key of its own", async () => {
    const other = generateDelegationKey();
    const cases: [string, Answer][] = [
      ["another DID's document", serve(document({ id: "did:web:example.com" }))],
      ["no assertionMethod", serve(document({ assertionMethod: undefined }))],
      ["a key in authentication only", serve(document({ assertionMethod: [] }))],
      [
        "two Ed25519 assertion keys",
        serve(
          document({
            verificationMethod: [
              ...document().verificationMethod,
              {
                id: `${did}#key-2`,
                type: "JsonWebKey2020",
                controller: did,
                publicKeyJwk: exportPublicJwk(other),
              },
            ],
            assertionMethod: ["#key-1", `${did}#key-2`],
          }),
        ),
      ],
      [
        "a key controlled by someone else",
        serve(
          document({
            verificationMethod: [
              { ...document().verificationMethod[0], controller: "did:web:evil.example" },
            ],
          }),
        ),
      ],
      [
        "a published private key",
        serve(
          document({
            verificationMethod: [
              {
                ...document().verificationMethod[0],
                publicKeyJwk: { ...exportPublicJwk(root), d: "AAAA" },
              },
            ],
          }),
        ),
      ],
      ["not JSON", serve("<html>")],
      ["a 404", serve({}, 404)],
      ["a redirect", serve("", 302, { location: "https://localhost/elsewhere.json" })],
      ["a document over the size cap", serve({ ...document(), padding: "x".repeat(70 * 1024) })],
    ];
    const reasons: Record<string, string> = {
      "another DID's document": 'the DID document is for "did:web:example.com"',
      "no assertionMethod": "no assertionMethod list",
      "a key in authentication only": "no Ed25519 assertion key",
      "two Ed25519 assertion keys": "2 Ed25519 assertion keys; agent-airlock needs exactly one",
      "a key controlled by someone else": "no Ed25519 assertion key",
      "a published private key": "publishes a private key",
      "not JSON": "is not JSON",
      "a 404": "answered 404, not 200",
      "a redirect": "answered 302, not 200",
      "a document over the size cap": "larger than 65536 bytes",
    };
    expect(Object.keys(reasons).sort()).toEqual(cases.map(([why]) => why).sort());
    for (const [why, served] of cases) {
      answer = served;
      const result = await verifyWith();
      expect(result.status, why).toBe("INVALID");
      const issuerKey = result.links[0]?.checks.find((c) => c.rule === "issuer_key");
      expect(issuerKey, why).toMatchObject({
        result: "FAIL",
        code: "DELEGATION_ISSUER_UNRESOLVABLE",
      });
      expect(issuerKey?.detail, why).toContain(reasons[why]);
    }
  });

  it("a wrong key in the document fails the signature, not the chain's rules", async () => {
    answer = serve(
      document({
        verificationMethod: [
          {
            ...document().verificationMethod[0],
            publicKeyJwk: exportPublicJwk(generateDelegationKey()),
          },
        ],
      }),
    );
    const result = await verifyWith();
    expect(result.status).toBe("INVALID");
    expect(result.code).toBe("DELEGATION_SIGNATURE_INVALID");
  });

  it("checks the certificate (no CA: refused), times out, and never fetches unless plugged in", async () => {
    answer = serve(document());
    const detail = (result: Awaited<ReturnType<typeof verifyWith>>) =>
      result.links[0]?.checks.find((c) => c.rule === "issuer_key")?.detail ?? "";
    const untrusted = await verifyWith({});
    expect(untrusted.status).toBe("INVALID");
    expect(detail(untrusted)).toMatch(/cannot fetch .*self[- ]signed certificate/);
    answer = () => {}; // never answers
    const slow = await verifyWith({ ca: cert, timeoutMs: 200 });
    expect(slow.status).toBe("INVALID");
    expect(detail(slow)).toContain("did not answer within 200 ms");
    requests = [];
    const offline = await verifyDelegation(await chain(), {
      trustedRoots: [did],
      now: new Date(NOW * 1000),
    });
    expect(offline.status).toBe("INVALID");
    expect(requests).toEqual([]);
  });
});
