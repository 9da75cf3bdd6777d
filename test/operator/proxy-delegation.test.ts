import { existsSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { ToolListChangedNotificationSchema } from "@modelcontextprotocol/sdk/types.js";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { generateDelegationKey, issueDelegation, openFileRegistry } from "../../src/guard/index.js";
import { startServe, stopAll } from "../helpers/serve-process.js";
import { clientThroughProxy, resultText, rugServer, runCli, tempDir } from "./helpers.js";

// airlock proxy with --agent/--root and each chain source, in front of the real SDK
// server of rug-pull-server.mjs, driven by the real SDK client; chains are real signed
// ones; the --didis-url path asks a real `airlock delegate serve` on loopback.

const root = generateDelegationKey();
const agent = generateDelegationKey();
let dir: string;
let pins: string;
let chainFile: string;
let capabilities: string;
let chain: string[];

beforeAll(async () => {
  dir = tempDir();
  pins = join(dir, "airlock.pins.json");
  const pinned = await runCli([
    "pin",
    "--pins",
    pins,
    "--server",
    "rug",
    "--yes",
    "--",
    process.execPath,
    ...rugServer(),
  ]);
  expect(pinned.code, pinned.stderr).toBe(0);
  ({ chain } = await issueDelegation({
    issuer: root,
    audience: agent.did,
    capabilities: ["echo", "math:*", "send_report"],
    ttlSeconds: 3600,
    jti: "agent-link",
  }));
  chainFile = join(dir, "agent.chain.json");
  writeFileSync(chainFile, JSON.stringify({ chain }));
  capabilities = join(dir, "capabilities.json");
  writeFileSync(capabilities, JSON.stringify({ add: "math:add" }));
}, 120_000);
afterAll(() => rmSync(dir, { recursive: true, force: true }));
afterEach(stopAll);

const clients: Client[] = [];
afterEach(async () => {
  await Promise.all(clients.splice(0).map((client) => client.close()));
});

function delegationArgs(...source: string[]): string[] {
  return ["--agent", agent.did, "--root", root.did, "--capabilities", capabilities, ...source];
}

async function connect(proxyArgs: string[], serverFlags: string[] = []) {
  const calls = join(dir, `calls-${Math.random().toString(36).slice(2)}.log`);
  const audit = join(dir, `audit-${Math.random().toString(36).slice(2)}.jsonl`);
  const connected = await clientThroughProxy(
    ["--pins", pins, "--server", "rug", "--audit-log", audit, ...proxyArgs],
    rugServer("--call-log", calls, ...serverFlags),
  );
  clients.push(connected.client);
  return {
    ...connected,
    received: () =>
      (existsSync(calls) ? readFileSync(calls, "utf8").split("\n") : []).filter(Boolean),
    audit: () =>
      readFileSync(audit, "utf8")
        .trim()
        .split("\n")
        .map((line) => JSON.parse(line)),
  };
}

const call = (client: Client, name: string, args: Record<string, unknown> = {}) =>
  client.callTool({ name, arguments: args });

describe("airlock proxy --agent --root --chain", { timeout: 90_000 }, () => {
  it("runs what the chain grants, refuses the rest with TOOL_NOT_AUTHORIZED, and a drifted tool for its pin verdict", async () => {
    const { client, received, audit, stderr } = await connect(
      delegationArgs("--chain", chainFile),
      ["--rug-after", "3"],
    );
    const changed = new Promise<void>((resolve) =>
      client.setNotificationHandler(ToolListChangedNotificationSchema, () => resolve()),
    );
    expect(resultText(await call(client, "echo", { text: "hi" }))).toBe("hi");
    // "add" needs math:add (the table), granted by math:*.
    expect(resultText(await call(client, "add", { a: 2, b: 3 }))).toBe("5");
    expect(resultText(await call(client, "send_report", { recipient: "bob" }))).toBe("sent to bob");
    const slow = await call(client, "slow", { ms: 1 });
    expect(slow.isError).toBe(true);
    expect(resultText(slow)).toMatch(
      /^AIRLOCK_BLOCK: tool "slow" is not admitted \(TOOL_NOT_AUTHORIZED\): agent is not authorized for "slow": .*; the call was not forwarded\. The agent's delegation does not grant/,
    );
    // The server rug-pulled send_report after three calls: the pins refuse it, whatever
    // the chain grants.
    await changed;
    const drifted = await call(client, "send_report", { recipient: "bob" });
    expect(resultText(drifted)).toMatch(
      /^AIRLOCK_BLOCK: tool "send_report" is not admitted \(deny_multi_field_drift\): tool "send_report" changed since it was approved/,
    );
    await client.close();
    expect(received()).toEqual(["echo", "add", "send_report"]);
    const records = audit();
    expect(records[0]).toMatchObject({
      event: "proxy_start",
      agent: agent.did,
      roots: [root.did],
    });
    const calls = records.filter((r) => r.event === "tool_call_check");
    expect(
      calls.map((r) => [r.toolName, r.allowed, r.verdict, r.capability, r.delegation]),
    ).toEqual([
      ["echo", true, "allow_pinned", "echo", "ALLOW"],
      ["add", true, "allow_pinned", "math:add", "ALLOW"],
      ["send_report", true, "allow_pinned", "send_report", "ALLOW"],
      ["slow", false, "TOOL_NOT_AUTHORIZED", "slow", "TOOL_NOT_AUTHORIZED"],
      // A drifted tool never reaches the verifier.
      ["send_report", false, "deny_multi_field_drift", undefined, undefined],
    ]);
    for (const record of calls) expect(typeof record.reason, record.toolName).toBe("string");
    expect(stderr()).toMatch(/delegation: each call needs a chain from did:key:\S+ to did:key:/);
    expect(stderr()).toMatch(/blocked tools\/call "slow" \(TOOL_NOT_AUTHORIZED\)/);
  });
});

describe("airlock proxy --registry", { timeout: 90_000 }, () => {
  it("grants from a chain in a file registry, and refuses once its link is revoked", async () => {
    const registry = join(dir, "registry.json");
    const opened = await openFileRegistry(registry);
    await opened.register(chain);
    await opened.close();
    const { client, received } = await connect([
      ...delegationArgs("--registry", registry),
      "--allow-cache",
      "0",
    ]);
    expect(resultText(await call(client, "echo", { text: "one" }))).toBe("one");
    const revoked = await runCli(["delegate", "revoke", "agent-link", "--registry", registry]);
    expect(revoked.code, revoked.stderr).toBe(0);
    const refused = await call(client, "echo", { text: "two" });
    expect(resultText(refused)).toMatch(
      /^AIRLOCK_BLOCK: tool "echo" is not admitted \(TOOL_NOT_AUTHORIZED\).*DELEGATION_REVOKED/,
    );
    await client.close();
    expect(received()).toEqual(["echo"]);
  });
});

describe("airlock proxy --didis-url", { timeout: 90_000 }, () => {
  it("asks a real delegate serve on loopback with its bearer token, and fails closed once it is gone", async () => {
    const tokenFile = join(dir, "airlock.tokens");
    const token = "t0ken-for-the-proxy-test-0123456789";
    writeFileSync(tokenFile, `${token}\n`, { mode: 0o600 });
    const serve = await startServe(join(dir, "serve-registry.json"), [
      "--token-file",
      tokenFile,
      "--trusted-root",
      root.did,
    ]);
    const registered = await fetch(`${serve.url}/v1/agents/verify-delegation`, {
      method: "POST",
      headers: { "content-type": "application/json", authorization: `Bearer ${token}` },
      body: JSON.stringify({ chain, trustedRoots: [root.did], register: true }),
    });
    expect(registered.status).toBe(200);
    const { client, received, audit } = await connect([
      ...delegationArgs("--didis-url", serve.url, "--didis-token-file", tokenFile),
      "--allow-cache",
      "0",
      "--verify-timeout",
      "3000",
    ]);
    expect(resultText(await call(client, "add", { a: 1, b: 1 }))).toBe("2");
    // Granted by the service, so the token reached it; then the service stops.
    expect(await serve.stop()).toBe(0);
    const refused = await call(client, "add", { a: 1, b: 1 });
    expect(resultText(refused)).toMatch(
      /^AIRLOCK_BLOCK: tool "add" is not admitted \(GUARD_UNAVAILABLE\): .*fails closed.*retry later/i,
    );
    await client.close();
    expect(received()).toEqual(["add"]);
    expect(
      audit()
        .filter((r) => r.event === "tool_call_check")
        .map((r) => r.verdict),
    ).toEqual(["allow_pinned", "GUARD_UNAVAILABLE"]);
  });

  it("without the token the service answers 401, and every call is refused", async () => {
    const tokenFile = join(dir, "other.tokens");
    writeFileSync(tokenFile, "a-token-the-proxy-does-not-have-0123\n", { mode: 0o600 });
    const serve = await startServe(join(dir, "serve-registry-2.json"), ["--token-file", tokenFile]);
    const { client, received } = await connect([
      ...delegationArgs("--didis-url", serve.url),
      "--verify-timeout",
      "3000",
    ]);
    const refused = await call(client, "echo", { text: "x" });
    expect(resultText(refused)).toMatch(/\(GUARD_UNAVAILABLE\)/);
    await client.close();
    expect(received()).toEqual([]);
  });
});
