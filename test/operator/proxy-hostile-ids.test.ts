// airlock proxy in front of a hostile raw JSON-RPC server that plays id games with the
// client's requests (test/fixtures/operator/hostile-id-server.mjs), with the real SDK
// client: only admitted definitions may reach the client, and no call to anything else
// may reach the server, whatever ids the server answers under.
import { existsSync, readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import {
  clientThroughProxy,
  hostileIdServer,
  rawProxy,
  resultText,
  runCli,
  tempDir,
} from "./helpers.js";

let pins: string;
const dirs: string[] = [];
const clients: Client[] = [];

beforeAll(async () => {
  const dir = tempDir();
  dirs.push(dir);
  pins = join(dir, "airlock.pins.json");
  const pinned = await runCli([
    "pin",
    "--pins",
    pins,
    "--server",
    "hostile",
    "--yes",
    "--",
    process.execPath,
    ...hostileIdServer(),
  ]);
  expect(pinned.code, pinned.stderr).toBe(0);
});

afterEach(async () => {
  for (const client of clients.splice(0)) await client.close();
});

afterAll(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/** The SDK client through the proxy to the hostile server in `mode`; calls it received and audit records. */
async function hostile(mode: string) {
  const dir = tempDir();
  dirs.push(dir);
  const callLog = join(dir, "calls.jsonl");
  const audit = join(dir, "audit.jsonl");
  const { client } = await clientThroughProxy(
    ["--pins", pins, "--audit-log", audit],
    hostileIdServer("--mode", mode, "--call-log", callLog),
  );
  clients.push(client);
  const lines = (file: string) =>
    existsSync(file)
      ? readFileSync(file, "utf8")
          .trim()
          .split("\n")
          .filter(Boolean)
          .map((line) => JSON.parse(line))
      : [];
  return {
    client,
    callsReceived: () => lines(callLog).map((c: { name: string }) => c.name),
    audit: () => lines(audit),
  };
}

/** Every call the agent might try after a listing: only `echo` may reach the server. */
async function expectOnlyAdmittedCallsForwarded(
  client: Client,
  callsReceived: () => string[],
  before: string[] = [],
) {
  for (const name of ["send_report", "exfiltrate"]) {
    const refused = await client.callTool({ name, arguments: { to: "a@b", data: "x" } });
    expect(resultText(refused), name).toMatch(/^AIRLOCK_BLOCK: tool "\w+" is not admitted/);
  }
  expect(resultText(await client.callTool({ name: "echo", arguments: { text: "hi" } }))).toBe("hi");
  expect(callsReceived()).toEqual([...before, "echo"]);
}

const poisoned = (tools: { name: string; description?: string }[]) =>
  tools.filter((t) => t.name === "exfiltrate" || /id_rsa/.test(t.description ?? ""));

describe("airlock proxy against a server that answers under ids the client did not use", () => {
  it('never hands the SDK client (which reads Number(id)) a listing answered under "3" for its request 3', async () => {
    const { client, callsReceived, audit } = await hostile("stringid");
    // The only answer to the client's tools/list is the misaddressed one: it is dropped,
    // so the client waits until its own timeout and sees no tool at all.
    await expect(client.listTools(undefined, { timeout: 5_000 })).rejects.toThrow(/timed out/);
    await expectOnlyAdmittedCallsForwarded(client, callsReceived);
    const dropped = audit().filter((r) => r.event === "response_dropped");
    expect(dropped).toHaveLength(1);
    expect(dropped[0]).toMatchObject({ verdict: "unsolicited" });
    expect(typeof dropped[0].id).toBe("string");
    // The dropped answer showed a drifted send_report: the name is closed.
    expect(audit()).toContainEqual(
      expect.objectContaining({ source: "dropped", toolName: "send_report", allowed: false }),
    );
  });

  it("takes only the exactly addressed answer when the server sends a misaddressed poisoned one first, and closes what that one refused", async () => {
    const { client, callsReceived } = await hostile("both");
    const { tools } = await client.listTools();
    expect(poisoned(tools)).toEqual([]);
    // send_report was shown drifted (under "3"): it stays out even in the honest copy.
    expect(tools.map((t) => t.name)).toEqual(["echo", "poke", "stall"]);
    await expectOnlyAdmittedCallsForwarded(client, callsReceived);
  });

  it("drops an answer to the client's next request that arrives before the proxy has read that request", async () => {
    const { client, callsReceived, audit } = await hostile("preempt");
    // The server stops reading at `stall`; the 2 MB call behind it fills the pipes, so the
    // proxy stops reading the client, and the client's tools/list (id stall + 2) waits
    // unread while the server answers it with the poisoned listing.
    const stall = client.callTool({ name: "stall", arguments: {} });
    const big = client.callTool({ name: "echo", arguments: { text: "x".repeat(2_000_000) } });
    await new Promise((resolve) => setTimeout(resolve, 200));
    const { tools } = await client.listTools();
    expect(resultText(await stall)).toBe("ran stall");
    expect(resultText(await big)).toHaveLength(2_000_000);
    expect(poisoned(tools)).toEqual([]);
    expect(tools.map((t) => t.name)).not.toContain("send_report");
    expect(audit()).toContainEqual(
      expect.objectContaining({ event: "response_dropped", verdict: "unsolicited" }),
    );
    await expectOnlyAdmittedCallsForwarded(client, callsReceived, ["stall", "echo"]);
  });

  it("keeps a tool refused on the client's page closed after list_changed, though the proxy's own listing sees the pinned copy", async () => {
    const { client, callsReceived } = await hostile("splitview");
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name)).toEqual(["echo", "poke", "stall"]);
    // poke: the server says its tools changed; the proxy lists it again (and is shown the
    // pinned send_report) before it decides the next call.
    expect(resultText(await client.callTool({ name: "poke", arguments: {} }))).toBe("ran poke");
    await expectOnlyAdmittedCallsForwarded(client, callsReceived, ["poke"]);
  });

  it("withholds an answer whose text names its id twice (a first-key reader would take it for the pending listing)", async () => {
    const proxy = rawProxy(["--pins", pins], hostileIdServer("--mode", "dupkey"));
    try {
      await proxy.initialize();
      // The server keeps the listing (id 10) waiting and answers the call (id 11) with
      // {"id":10,"result":<poisoned listing>,"id":11}.
      proxy.send({ jsonrpc: "2.0", id: 10, method: "tools/list" });
      proxy.send({
        jsonrpc: "2.0",
        id: 11,
        method: "tools/call",
        params: { name: "echo", arguments: { text: "x" } },
      });
      const answer = await proxy.next((m) => m.id === 11);
      expect(answer.result).toBeUndefined();
      expect(String((answer.error as { message: string }).message)).toMatch(
        /^AIRLOCK_BLOCK: the server's answer to "tools\/call" was withheld: it names its id twice/,
      );
    } finally {
      proxy.child.stdin.end();
      await proxy.exited;
    }
  });
});
