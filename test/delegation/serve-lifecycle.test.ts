/**
 * `airlock delegate serve` as a load balancer and an operator see it, on real processes:
 * the probes (`/healthz`, `/readyz`, no token needed), one JSON log line per request on
 * stderr that never carries a token, a query or a chain, and the graceful shutdown on
 * SIGTERM (in-flight requests finished, new connections refused, bounded, exit 0).
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { connect, type Socket } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import { generateDelegationKey } from "../../src/guard/did/keys.js";
import { type ServeProcess, startServe, stopAll } from "../helpers/serve-process.js";
import { oneLinkChains } from "./helpers.js";

const dir = mkdtempSync(join(tmpdir(), "airlock-serve-lifecycle-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
afterEach(stopAll);

let serial = 0;
const registryPath = () => join(dir, `r-${serial++}.json`);

const TOKEN = "lifecycle-token-0123456789abcdef";
function tokenFile(): string {
  const path = join(dir, `tokens-${serial++}`);
  writeFileSync(path, `${TOKEN}\n`, { mode: 0o600 });
  return path;
}

/** The JSON lines the process wrote on stderr. */
function logLines(server: ServeProcess): Record<string, unknown>[] {
  return server
    .stderr()
    .split("\n")
    .filter((line) => line.trim() !== "")
    .map((line) => JSON.parse(line) as Record<string, unknown>);
}

/** A raw connection that collects what the server sends. */
function rawConnection(port: number): Promise<{ socket: Socket; received: () => string }> {
  return new Promise((resolve, reject) => {
    let data = "";
    const socket = connect(port, "127.0.0.1", () => resolve({ socket, received: () => data }));
    socket.setEncoding("utf8").on("data", (chunk: string) => {
      data += chunk;
    });
    socket.once("error", reject);
  });
}

async function until(what: string, test: () => boolean | Promise<boolean>): Promise<void> {
  for (let i = 0; i < 200; i++) {
    if (await test()) return;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`timed out waiting for ${what}`);
}

/** The exit code, once the process has ended by itself (no second signal, unlike `stop`). */
function exited(server: ServeProcess): Promise<number | null> {
  const { child } = server;
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve(child.exitCode);
  return new Promise((resolve) => child.once("exit", (code) => resolve(code)));
}

const refused = (port: number) =>
  new Promise<boolean>((resolve) => {
    const socket = connect(port, "127.0.0.1", () => {
      socket.destroy();
      resolve(false);
    });
    socket.once("error", () => resolve(true));
  });

describe("delegate serve: probes", () => {
  it("/healthz and /readyz answer without a token on a server that needs one; everything else still needs it", async () => {
    const server = await startServe(registryPath(), ["--token-file", tokenFile()]);
    const health = await fetch(`${server.url}/healthz`);
    expect([health.status, await health.json()]).toEqual([200, { status: "ok" }]);
    const ready = await fetch(`${server.url}/readyz`);
    expect([ready.status, await ready.json()]).toEqual([200, { status: "ready" }]);
    expect((await fetch(`${server.url}/readyz`, { method: "POST" })).status).toBe(405);
    expect((await fetch(`${server.url}/v1/agents/verify-tool`)).status).toBe(401);
  });

  it("/readyz is 503 naming the error code while the registry cannot be read, /healthz stays 200, and ready again once it can", async () => {
    const path = registryPath();
    const server = await startServe(path);
    expect((await fetch(`${server.url}/readyz`)).status).toBe(200);
    writeFileSync(path, "{ not a registry");
    const down = await fetch(`${server.url}/readyz`);
    expect(down.status).toBe(503);
    const problem = (await down.json()) as { detail: string };
    expect(problem.detail).toContain("REGISTRY_INVALID");
    expect(problem.detail).not.toContain(path);
    expect((await fetch(`${server.url}/healthz`)).status).toBe(200);
    writeFileSync(path, JSON.stringify({ version: 1, chains: [], revoked: [] }));
    expect((await fetch(`${server.url}/readyz`)).status).toBe(200);
  });
});

describe("delegate serve: logs", () => {
  it("one JSON line per request on stderr (method, path, status, duration, the code of an error), and never the token, a query or a chain", async () => {
    const server = await startServe(registryPath(), ["--token-file", tokenFile()]);
    const root = generateDelegationKey();
    const [c] = await oneLinkChains(root, 1);
    const auth = { authorization: `Bearer ${TOKEN}` };
    const register = await fetch(`${server.url}/v1/agents/verify-delegation`, {
      method: "POST",
      headers: { ...auth, "content-type": "application/json" },
      body: JSON.stringify({ chain: c!.chain, trustedRoots: [root.did], register: true }),
    });
    expect(register.status).toBe(200);
    const q = new URLSearchParams({ agent: c!.agent, tool: "weather:forecast", root: root.did });
    expect(
      (await fetch(`${server.url}/v1/agents/verify-tool?${q}`, { headers: auth })).status,
    ).toBe(200);
    expect((await fetch(`${server.url}/v1/agents/verify-tool?${q}`)).status).toBe(401);
    expect((await fetch(`${server.url}/nowhere`, { headers: auth })).status).toBe(404);
    expect(
      (await fetch(`${server.url}/v1/agents/verify-tool?agent=x`, { headers: auth })).status,
    ).toBe(400);
    await until(
      "five request lines",
      () => logLines(server).filter((l) => l.event === "request").length >= 5,
    );
    const requests = logLines(server).filter((l) => l.event === "request");
    expect(requests.map((l) => [l.method, l.path, l.status, l.code])).toEqual([
      ["POST", "/v1/agents/verify-delegation", 200, undefined],
      ["GET", "/v1/agents/verify-tool", 200, undefined],
      ["GET", "/v1/agents/verify-tool", 401, "unauthorized"],
      ["GET", "/nowhere", 404, "not-found"],
      ["GET", "/v1/agents/verify-tool", 400, "bad-request"],
    ]);
    for (const line of requests) {
      expect(typeof line.durationMs).toBe("number");
      expect(typeof line.time).toBe("string");
    }
    expect(logLines(server)[0]).toMatchObject({ event: "listening", url: server.url });
    const text = server.stderr();
    expect(text).not.toContain(TOKEN);
    expect(text).not.toContain(c!.chain[0]!.split(".")[1]!);
    expect(text).not.toContain(c!.agent);
  });
});

describe("delegate serve: graceful shutdown", () => {
  it("on SIGTERM it refuses new connections, finishes the request in flight, and exits 0", {
    timeout: 60_000,
  }, async () => {
    const server = await startServe(registryPath());
    const root = generateDelegationKey();
    const [c] = await oneLinkChains(root, 1);
    const body = JSON.stringify({ chain: c!.chain, trustedRoots: [root.did], register: true });
    const { socket, received } = await rawConnection(server.port);
    // Expect: 100-continue makes the server say when it has read the headers: from then
    // on the request is in flight.
    socket.write(
      `POST /v1/agents/verify-delegation HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\nExpect: 100-continue\r\n\r\n`,
    );
    await until("100 Continue", () => received().includes("100 Continue"));
    server.child.kill("SIGTERM");
    await until("new connections refused", () => refused(server.port));
    socket.write(body);
    const exit = await exited(server);
    expect(received()).toMatch(/HTTP\/1\.1 200 OK/);
    expect(received().toLowerCase()).toContain("connection: close");
    expect(received()).toContain('"registered":true');
    expect(exit).toBe(0);
    const events = logLines(server).map((l) => l.event);
    // The request was answered after the shutdown began, and before it ended.
    expect(events.at(-1)).toBe("stopped");
    expect(events.indexOf("stopping")).toBeLessThan(events.lastIndexOf("request"));
  });

  it("the wait is bounded: a request that never ends is cut after --shutdown-timeout, and it still exits 0", {
    timeout: 60_000,
  }, async () => {
    const server = await startServe(registryPath(), ["--shutdown-timeout", "1"]);
    const { socket, received } = await rawConnection(server.port);
    socket.write(
      "POST /v1/agents/verify-delegation HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 100\r\nExpect: 100-continue\r\n\r\n{",
    );
    await until("100 Continue", () => received().includes("100 Continue"));
    const closed = new Promise<void>((resolve) => socket.once("close", () => resolve()));
    server.child.kill("SIGTERM");
    expect(await exited(server)).toBe(0);
    await closed;
    expect(received()).not.toMatch(/HTTP\/1\.1 200/);
    const events = logLines(server).map((l) => l.event);
    expect(events).toContain("stopping");
    expect(events.at(-1)).toBe("stopped");
  });
});
