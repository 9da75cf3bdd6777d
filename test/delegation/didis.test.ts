import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DidisError } from "../../src/guard/delegation/errors.js";
import { generateDelegationKey } from "../../src/guard/did/keys.js";
import { bearerAuthenticator, isLoopbackHost } from "../../src/guard/didis-auth.js";
import { DidisClient } from "../../src/guard/didis-client.js";
import { type RunningDidisServer, startDidisServer } from "../../src/guard/didis-listener.js";
import { didisVerifier } from "../../src/guard/didis-verifier.js";
import { createMemoryRegistry } from "../../src/guard/registry/memory.js";
import { chainOf } from "./helpers.js";

type Script = (req: IncomingMessage, res: ServerResponse, url: URL) => void;

/** A real HTTP server on loopback whose answer each test scripts. */
async function scripted(script: Script) {
  const server = createServer((req, res) => script(req, res, new URL(req.url ?? "/", "http://x")));
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((r) => {
        server.close(() => r());
        server.closeAllConnections();
      }),
  };
}

const Q = { agent: "did:key:z6MkAgent", tool: "weather:forecast", root: "did:key:z6MkRoot" };
function json(
  res: ServerResponse,
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
) {
  res.writeHead(status, { "content-type": "application/json", ...headers });
  res.end(typeof body === "string" ? body : JSON.stringify(body));
}

async function failure(script: Script, opts: { timeoutMs?: number } = {}) {
  const s = await scripted(script);
  try {
    const client = new DidisClient({ baseUrl: s.url, timeoutMs: opts.timeoutMs ?? 2000 });
    return (await client.verifyTool(Q).then(
      () => undefined,
      (e) => e,
    )) as DidisError;
  } finally {
    await s.close();
  }
}

describe("DidisClient failures (real HTTP on loopback)", () => {
  it("429 with Retry-After seconds is DIDIS_RATE_LIMITED with retryAfter and the problem", async () => {
    const err = await failure((_q, res) =>
      json(
        res,
        429,
        { type: "about:blank", title: "Too Many Requests", status: 429, detail: "slow down" },
        { "retry-after": "17", "content-type": "application/problem+json" },
      ),
    );
    expect(err).toBeInstanceOf(DidisError);
    expect(err.code).toBe("DIDIS_RATE_LIMITED");
    expect(err.status).toBe(429);
    expect(err.retryAfter).toBe(17);
    expect(err.problem?.detail).toBe("slow down");
  });

  it("429 with an HTTP-date Retry-After", async () => {
    const when = new Date(Date.now() + 120_000).toUTCString();
    const err = await failure((_q, res) => json(res, 429, "", { "retry-after": when }));
    expect(err.code).toBe("DIDIS_RATE_LIMITED");
    expect(err.retryAfter).toBeGreaterThan(100);
    expect(err.retryAfter).toBeLessThanOrEqual(121);
  });

  it("500 is DIDIS_HTTP_ERROR with the status and RFC 9457 problem", async () => {
    const err = await failure((_q, res) =>
      json(
        res,
        500,
        { title: "Internal", status: 500, detail: "db down" },
        { "content-type": "application/problem+json" },
      ),
    );
    expect(err.code).toBe("DIDIS_HTTP_ERROR");
    expect(err.status).toBe(500);
    expect(err.problem?.detail).toBe("db down");
    expect(err.message).toContain("db down");
  });

  it("malformed body is DIDIS_BAD_RESPONSE", async () => {
    for (const body of [
      "{not json",
      "[]",
      '"ALLOW"',
      JSON.stringify({ ...Q, decision: "MAYBE" }),
      JSON.stringify({ ...Q, decision: "ALLOW", expires: "never" }),
      JSON.stringify({ ...Q, decision: "ALLOW", reason: 5 }),
    ]) {
      const err = await failure((_q, res) => json(res, 200, body));
      expect(err.code, body).toBe("DIDIS_BAD_RESPONSE");
    }
  });

  it("timeout is DIDIS_TIMEOUT, also when the body trickles", async () => {
    const silent = await failure(() => {}, { timeoutMs: 150 });
    expect(silent.code).toBe("DIDIS_TIMEOUT");
    const trickle = await failure(
      (_q, res) => {
        res.writeHead(200, { "content-type": "application/json" });
        res.write("{");
      },
      { timeoutMs: 150 },
    );
    expect(trickle.code).toBe("DIDIS_TIMEOUT");
  });

  it("connection refused is DIDIS_UNAVAILABLE", async () => {
    const s = await scripted(() => {});
    await s.close();
    const client = new DidisClient({ baseUrl: s.url, timeoutMs: 2000 });
    const err = await client.verifyTool(Q).catch((e) => e);
    expect(err).toBeInstanceOf(DidisError);
    expect(err.code).toBe("DIDIS_UNAVAILABLE");
  });

  it("a caller abort is DIDIS_UNAVAILABLE", async () => {
    const s = await scripted(() => {});
    try {
      const client = new DidisClient({ baseUrl: s.url, timeoutMs: 5000 });
      const controller = new AbortController();
      const pending = client.verifyTool({ ...Q, signal: controller.signal }).catch((e) => e);
      controller.abort();
      expect((await pending).code).toBe("DIDIS_UNAVAILABLE");
    } finally {
      await s.close();
    }
  });

  it("wrong agent, tool or root echoed back is DIDIS_BAD_RESPONSE", async () => {
    const wrong = [
      { ...Q, agent: "did:key:z6MkOther" },
      { ...Q, tool: "payments:refund" },
      { ...Q, root: "did:key:z6MkOtherRoot" },
      { tool: Q.tool, root: Q.root },
    ];
    for (const echo of wrong) {
      const err = await failure((_q, res) =>
        json(res, 200, { ...echo, decision: "ALLOW", reason: "ok" }),
      );
      expect(err.code, JSON.stringify(echo)).toBe("DIDIS_BAD_RESPONSE");
    }
  });

  it("an ALLOW whose matched grant does not grant the tool is DIDIS_BAD_RESPONSE", async () => {
    const err = await failure((_q, res) =>
      json(res, 200, { ...Q, decision: "ALLOW", reason: "ok", matchedCapability: "payments:*" }),
    );
    expect(err.code).toBe("DIDIS_BAD_RESPONSE");
  });

  it("an oversized body is refused", async () => {
    const s = await scripted((_q, res) =>
      json(res, 200, JSON.stringify({ ...Q, decision: "DENY", reason: "x".repeat(5000) })),
    );
    try {
      const client = new DidisClient({ baseUrl: s.url, maxResponseBytes: 1000 });
      expect((await client.verifyTool(Q).catch((e) => e)).code).toBe("DIDIS_BAD_RESPONSE");
    } finally {
      await s.close();
    }
  });

  it("a redirect is not followed", async () => {
    const err = await failure((_q, res) => {
      res.writeHead(302, { location: "http://127.0.0.1:1/elsewhere" });
      res.end();
    });
    expect(err).toBeInstanceOf(DidisError);
    expect(["DIDIS_UNAVAILABLE", "DIDIS_HTTP_ERROR"]).toContain(err.code);
  });

  it("sends the question as query parameters and accepts a well-formed answer", async () => {
    let seen: URL | undefined;
    const s = await scripted((_q, res, url) => {
      seen = url;
      json(res, 200, {
        ...Q,
        decision: "ALLOW",
        reason: "granted",
        matchedCapability: "weather:*",
        expires: "2030-01-01T00:00:00Z",
      });
    });
    try {
      const answer = await new DidisClient({ baseUrl: `${s.url}/api/` }).verifyTool(Q);
      expect(seen?.pathname).toBe("/api/v1/agents/verify-tool");
      expect(Object.fromEntries(seen!.searchParams)).toEqual(Q);
      expect(answer).toEqual({
        ...Q,
        decision: "ALLOW",
        reason: "granted",
        matchedCapability: "weather:*",
        expires: 1893456000,
      });
    } finally {
      await s.close();
    }
  });

  it("uses an injected fetch", async () => {
    const calls: string[] = [];
    const client = new DidisClient({
      fetch: async (input) => {
        calls.push(String(input));
        return new Response(JSON.stringify({ ...Q, decision: "DENY", reason: "no" }), {
          status: 200,
        });
      },
    });
    expect((await client.verifyTool(Q)).decision).toBe("DENY");
    expect(calls[0]).toMatch(/^https:\/\/did\.is\/api\/v1\/agents\/verify-tool\?/);
  });

  it("refuses a base URL that is not http(s)", () => {
    expect(() => new DidisClient({ baseUrl: "file:///etc" })).toThrow(TypeError);
    expect(() => new DidisClient({ baseUrl: "nope" })).toThrow(TypeError);
  });
});

describe("airlock delegate serve endpoints, over real HTTP with DidisClient", () => {
  let running: RunningDidisServer;
  let client: DidisClient;
  let setup: Awaited<ReturnType<typeof chainOf>>;
  const registry = createMemoryRegistry();

  beforeAll(async () => {
    setup = await chainOf(Math.floor(Date.now() / 1000));
    running = await startDidisServer({ registry, port: 0 });
    client = new DidisClient({ baseUrl: running.url, timeoutMs: 5000 });
  });
  afterAll(async () => {
    await running.close();
  });

  it("denies before registration, registers a valid chain, then allows", async () => {
    const { root, agent, chain } = setup;
    const q = { agent: agent.did, tool: "weather:forecast", root: root.did };
    expect((await client.verifyTool(q)).decision).toBe("DENY");
    const v = await client.verifyDelegation({
      chain,
      trustedRoots: [root.did],
      register: true,
      agent: agent.did,
    });
    expect(v.status).toBe("VALID");
    expect(v.registered).toBe(true);
    expect(v.effectiveCapabilities).toEqual(["weather:forecast"]);
    const allowed = await client.verifyTool(q);
    expect(allowed).toMatchObject({
      decision: "ALLOW",
      matchedCapability: "weather:forecast",
      root: root.did,
    });
    expect(allowed.expires).toBe(v.notAfter);
    expect((await client.authorize(q)).decision).toBe("ALLOW");
    expect((await client.verifyTool({ ...q, tool: "weather:alerts" })).decision).toBe("DENY");
    expect((await client.verifyTool({ ...q, root: setup.middle.did })).decision).toBe("DENY");
  });

  it("didisVerifier adapts the client to the guard's verifier interface", async () => {
    const { root, agent, chain } = setup;
    await client.verifyDelegation({ chain, trustedRoots: [root.did], register: true });
    const verifier = didisVerifier(client);
    const r = await verifier.verifyTool({
      agent: agent.did,
      capability: "weather:forecast",
      root: root.did,
    });
    expect(r).toMatchObject({
      decision: "ALLOW",
      matchedCapability: "weather:forecast",
      root: root.did,
    });
    expect(typeof r.expires).toBe("number");
  });

  it("does not register an invalid chain and explains why", async () => {
    const { chain } = await chainOf(Math.floor(Date.now() / 1000));
    const other = generateDelegationKey().did;
    const v = await client.verifyDelegation({ chain, trustedRoots: [other], register: true });
    expect(v.status).toBe("INVALID");
    expect(v.code).toBe("DELEGATION_UNTRUSTED_ROOT");
    expect(v.registered).toBe(false);
    expect(v.checks.find((c) => c.rule === "trusted_root")?.result).toBe("FAIL");
  });

  it("answers malformed questions with RFC 9457 problems", async () => {
    const { root, agent } = setup;
    const bad = await client
      .verifyTool({ agent: agent.did, tool: "weather:*", root: root.did })
      .catch((e) => e);
    expect(bad.code).toBe("DIDIS_HTTP_ERROR");
    expect(bad.status).toBe(400);
    expect(bad.problem?.type).toContain("invalid-capability");
    const noRoots = await client
      .verifyDelegation({ chain: setup.chain, trustedRoots: [] })
      .catch((e) => e);
    expect(noRoots.status).toBe(400);
    const res = await fetch(`${running.url}/v1/agents/verify-delegation`, {
      method: "POST",
      body: "{oops",
    });
    expect(res.status).toBe(400);
    expect(res.headers.get("content-type")).toBe("application/problem+json");
    const big = await fetch(`${running.url}/v1/agents/authorize`, {
      method: "POST",
      body: "x".repeat(300_000),
    }).catch(() => undefined);
    expect(big?.status).toBe(413);
    expect((await fetch(`${running.url}/v1/nothing`)).status).toBe(404);
    expect(
      (await fetch(`${running.url}/v1/agents/verify-tool`, { method: "POST", body: "{}" })).status,
    ).toBe(405);
  });

  it("inspectMcp is not offered by the local server (501)", async () => {
    const err = await client.inspectMcp("http://127.0.0.1:1/mcp").catch((e) => e);
    expect(err.code).toBe("DIDIS_HTTP_ERROR");
    expect(err.status).toBe(501);
  });

  it("with a server allow-list, other roots are denied and not registered", async () => {
    const reg = createMemoryRegistry();
    const allowed = generateDelegationKey().did;
    const s = await startDidisServer({ registry: reg, trustedRoots: [allowed], port: 0 });
    try {
      const c = new DidisClient({ baseUrl: s.url });
      const { root, agent, chain } = setup;
      const v = await c.verifyDelegation({ chain, trustedRoots: [root.did], register: true });
      expect(v.status).toBe("INVALID");
      expect(v.code).toBe("DELEGATION_NO_TRUSTED_ROOTS");
      expect(await reg.list()).toEqual([]);
      const r = await c.verifyTool({ agent: agent.did, tool: "weather:forecast", root: root.did });
      expect(r.decision).toBe("DENY");
    } finally {
      await s.close();
    }
  });
});

describe("airlock delegate serve with bearer tokens", () => {
  const TOKEN = "kq3V0m8yF2cJt7Lx9aPzR4wE";

  it("answers only callers with a token: 401 with WWW-Authenticate before anything is read or registered", async () => {
    const reg = createMemoryRegistry();
    const s = await startDidisServer({
      registry: reg,
      port: 0,
      tokens: ["other-token-0123456789", TOKEN],
    });
    try {
      const setup = await chainOf(Math.floor(Date.now() / 1000));
      const { root, agent, chain } = setup;
      const body = JSON.stringify({ chain, trustedRoots: [root.did], register: true });
      for (const authorization of [
        undefined,
        "Bearer wrong-token-0123456789",
        `Basic ${TOKEN}`,
        TOKEN,
      ]) {
        const response = await fetch(`${s.url}/v1/agents/verify-delegation`, {
          method: "POST",
          headers: {
            "content-type": "application/json",
            ...(authorization === undefined ? {} : { authorization }),
          },
          body,
        });
        expect(response.status).toBe(401);
        expect(response.headers.get("www-authenticate")).toBe('Bearer realm="agent-airlock"');
        expect(((await response.json()) as { type: string }).type).toMatch(/unauthorized$/);
      }
      // Unknown paths answer 401 too: nothing about the server shows before authentication.
      expect((await fetch(`${s.url}/nope`)).status).toBe(401);
      expect(await reg.list()).toEqual([]);

      // The guard's client without the token: refused, which the guard turns into a refusal.
      const anonymous = new DidisClient({ baseUrl: s.url });
      const err = await anonymous
        .verifyTool({ agent: agent.did, tool: "weather:forecast", root: root.did })
        .catch((e) => e);
      expect(err).toBeInstanceOf(DidisError);
      expect(err.status).toBe(401);

      const client = new DidisClient({
        baseUrl: s.url,
        headers: { authorization: `bearer ${TOKEN}` },
      });
      const v = await client.verifyDelegation({ chain, trustedRoots: [root.did], register: true });
      expect(v.registered).toBe(true);
      const q = { agent: agent.did, tool: "weather:forecast", root: root.did };
      expect((await client.verifyTool(q)).decision).toBe("ALLOW");
    } finally {
      await s.close();
    }
  });

  it("refuses to listen beyond loopback without tokens, and refuses weak token lists", async () => {
    const reg = createMemoryRegistry();
    for (const host of ["0.0.0.0", "::"]) {
      await expect(startDidisServer({ registry: reg, host, port: 0 })).rejects.toMatchObject({
        code: "DIDIS_SERVER_MISCONFIGURED",
      });
    }
    for (const tokens of [[], ["short"], ["has space in it 0123456789"], [42 as never]]) {
      await expect(startDidisServer({ registry: reg, port: 0, tokens })).rejects.toMatchObject({
        code: "DIDIS_SERVER_MISCONFIGURED",
      });
    }
    const open = await startDidisServer({
      registry: createMemoryRegistry(),
      host: "0.0.0.0",
      port: 0,
      allowUnauthenticated: true,
    });
    await open.close();
    const guarded = await startDidisServer({
      registry: createMemoryRegistry(),
      host: "0.0.0.0",
      port: 0,
      tokens: [TOKEN],
    });
    await guarded.close();
  });
});

describe("didis-auth", () => {
  it("bearerAuthenticator: the scheme is case-insensitive, the token is exact", () => {
    const allowed = bearerAuthenticator(["kq3V0m8yF2cJt7Lx9aPz"]);
    expect(allowed("Bearer kq3V0m8yF2cJt7Lx9aPz")).toBe(true);
    expect(allowed("bearer  kq3V0m8yF2cJt7Lx9aPz ")).toBe(true);
    for (const header of [
      undefined,
      "",
      "Bearer",
      "Bearer kq3V0m8yF2cJt7Lx9aP",
      "Bearer kq3V0m8yF2cJt7Lx9aPzz",
      "Bearer KQ3V0m8yF2cJt7Lx9aPz",
      "Token kq3V0m8yF2cJt7Lx9aPz",
      "Bearer kq3V0m8yF2cJt7Lx9aPz, Bearer x",
    ]) {
      expect(allowed(header)).toBe(false);
    }
  });

  it("bearerAuthenticator: on any header, true exactly for the scheme and one of the tokens", () => {
    const tokens = ["kq3V0m8yF2cJt7Lx9aPz", "Zt1q8W4mXc7VbN2pLs9R0yKe+/=="];
    const allowed = bearerAuthenticator(tokens);
    const header = fc.oneof(
      fc.string({ maxLength: 80 }),
      fc
        .tuple(
          fc.constantFrom("Bearer", "bearer", "BEARER", "Basic", "Bearer:", ""),
          fc.stringMatching(/^ {0,3}$/),
          fc.oneof(fc.constantFrom(...tokens), fc.string({ maxLength: 40 })),
          fc.stringMatching(/^[ \t]{0,2}$/),
        )
        .map(([scheme, gap, token, tail]) => `${scheme}${gap}${token}${tail}`),
    );
    fc.assert(
      fc.property(header, (h) => {
        const match = /^bearer +(\S+) *$/i.exec(h);
        expect(allowed(h)).toBe(match !== null && tokens.includes(match[1]!));
      }),
      { numRuns: 3000 },
    );
  });

  it("isLoopbackHost: only addresses no other machine can reach", () => {
    for (const host of ["localhost", "127.0.0.1", "127.1.2.3", "::1", "[::1]"]) {
      expect(isLoopbackHost(host)).toBe(true);
    }
    for (const host of [
      "0.0.0.0",
      "::",
      "10.0.0.1",
      "192.168.1.2",
      "example.com",
      "127.0.0.1.example.com",
      "::ffff:127.0.0.1",
    ]) {
      expect(isLoopbackHost(host)).toBe(false);
    }
  });
});
