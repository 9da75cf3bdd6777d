/**
 * `airlock delegate serve` against requests meant to stop it, as the hardening campaign
 * sent them (shared/repro/hostile/delegate/serve-tests.mjs, modes crashurl and
 * slowloris): raw request lines over a socket (fetch would normalise them), connections
 * that never finish their headers, and errors that reach the last-resort handler.
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { connect } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import { generateDelegationKey } from "../../src/guard/did/keys.js";
import { startDidisServer } from "../../src/guard/didis-listener.js";
import { createMemoryRegistry } from "../../src/guard/registry/memory.js";
import type { DelegationRegistry } from "../../src/guard/registry/registry.js";
import { rawExchange, startServe, statusOf, stopAll } from "../helpers/serve-process.js";

const dir = mkdtempSync(join(tmpdir(), "airlock-serve-hostile-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
afterEach(stopAll);

const TOKEN = "c2VydmUtaG9zdGlsZS10ZXN0LXRva2Vu";
const CRAFTED_TARGETS = [
  "//x:99999",
  "//[",
  "//%",
  "//a:b@",
  "http://[::1",
  "*",
  "/ok/../..",
  "/%ff%fe",
];

const get = (target: string, headers = "") =>
  `GET ${target} HTTP/1.1\r\nHost: x\r\n${headers}Connection: close\r\n\r\n`;

describe("airlock delegate serve: crafted request targets", () => {
  it("answers 400 or 401 to every crafted target, with or without a token, and keeps serving", {
    timeout: 60_000,
  }, async () => {
    writeFileSync(join(dir, "tokens"), `${TOKEN}\n`, { mode: 0o600 });
    const server = await startServe(join(dir, "targets.json"), [
      "--token-file",
      join(dir, "tokens"),
    ]);
    const auth = `Authorization: Bearer ${TOKEN}\r\n`;
    for (const target of CRAFTED_TARGETS) {
      for (const headers of ["", auth]) {
        const { answer } = await rawExchange(server.port, get(target, headers));
        expect([400, 401, 404], `${target} ${headers ? "with" : "without"} a token`).toContain(
          statusOf(answer),
        );
        expect(server.alive(), `after ${target}`).toBe(true);
      }
    }
    // A target that is no URL is 400 even with a token; one that looks like another host
    // (//x:99999, //localhost/v1/...) is a path of this server, not a route elsewhere.
    for (const target of ["http://[::1", "*"]) {
      expect(statusOf((await rawExchange(server.port, get(target, auth))).answer)).toBe(400);
    }
    expect(statusOf((await rawExchange(server.port, get("//x:99999", auth))).answer)).toBe(404);
    expect(
      statusOf(
        (await rawExchange(server.port, get("//localhost/v1/agents/verify-tool", auth))).answer,
      ),
    ).toBe(404);
    const res = await fetch(
      `${server.url}/v1/agents/verify-tool?${new URLSearchParams({ agent: generateDelegationKey().did, tool: "weather:forecast", root: generateDelegationKey().did })}`,
      { headers: { authorization: `Bearer ${TOKEN}` } },
    );
    expect(res.status).toBe(200);
    expect(((await res.json()) as { decision: string }).decision).toBe("DENY");
    expect(await server.stop()).toBe(0);
  });
});

describe("airlock delegate serve: connections that never finish", () => {
  it("answers 408 and closes every connection that sends no complete headers, idle ones too, while answering others", {
    timeout: 60_000,
  }, async () => {
    const server = await startServe(join(dir, "slow.json"));
    // Half-open: a request line and one header, never the blank line; idle: nothing at all.
    const partial = Array.from({ length: 40 }, () =>
      rawExchange(server.port, "GET /v1/agents/verify-tool HTTP/1.1\r\nHost: x\r\n", 20_000),
    );
    const idle = Array.from({ length: 10 }, () => rawExchange(server.port, "", 20_000));
    const res = await fetch(`${server.url}/v1/mcp/inspect`);
    expect(res.status).toBe(501);
    const ends = await Promise.all([...partial, ...idle]);
    expect(ends.map((e) => e.closed)).toEqual(Array(50).fill(true));
    expect(ends.map((e) => statusOf(e.answer))).toEqual(Array(50).fill(408));
    expect(server.alive()).toBe(true);
  });

  it("holds at most maxConnections connections: one more is closed at once, unanswered", async () => {
    const running = await startDidisServer({ registry: createMemoryRegistry(), maxConnections: 2 });
    try {
      const port = Number(new URL(running.url).port);
      const held = [connect(port, "127.0.0.1"), connect(port, "127.0.0.1")];
      await Promise.all(held.map((s) => new Promise((r) => s.once("connect", r))));
      const extra = await rawExchange(port, get("/v1/mcp/inspect"));
      expect(extra).toEqual({ answer: "", closed: true });
      for (const s of held) s.destroy();
    } finally {
      await running.close();
    }
  });

  it("refuses connection limits out of range with DIDIS_SERVER_MISCONFIGURED", async () => {
    for (const limits of [
      { headersTimeoutMs: 0 },
      { headersTimeoutMs: 5000, requestTimeoutMs: 4000 },
      { keepAliveTimeoutMs: 0 },
      { maxConnections: 0 },
      { maxConnections: 1.5 },
    ]) {
      await expect(
        startDidisServer({ registry: createMemoryRegistry(), ...limits }),
      ).rejects.toMatchObject({ code: "DIDIS_SERVER_MISCONFIGURED" });
    }
  });
});

describe("the last-resort handler", () => {
  it("an error that breaks the error handling itself is a logged 500, and the server goes on", async () => {
    // A rejection whose prototype cannot even be read: every `instanceof` on it throws.
    const poisoned = new Proxy(
      {},
      {
        getPrototypeOf() {
          throw new Error("poisoned");
        },
      },
    );
    const registry: DelegationRegistry = {
      chainsFor: () => Promise.reject(poisoned),
      isRevoked: async () => false,
      register: (chain) => createMemoryRegistry().register(chain),
      list: async () => [],
      unregister: async () => false,
      revoke: async () => {},
      close: async () => {},
    };
    const logged: unknown[] = [];
    const running = await startDidisServer({ registry, onError: (err) => logged.push(err) });
    try {
      const q = new URLSearchParams({
        agent: generateDelegationKey().did,
        tool: "weather:forecast",
        root: generateDelegationKey().did,
      });
      const broken = await fetch(`${running.url}/v1/agents/verify-tool?${q}`);
      expect(broken.status).toBe(500);
      expect(((await broken.json()) as { type: string }).type).toMatch(/internal$/);
      // What reached the logger is the error the broken handling threw.
      expect(logged.length).toBe(1);
      expect((logged[0] as Error).message).toBe("poisoned");
      expect((await fetch(`${running.url}/v1/mcp/inspect`)).status).toBe(501);
    } finally {
      await running.close();
    }
  });
});
