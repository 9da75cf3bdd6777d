// airlock proxy and the client's side of ids: a request whose id is already in flight
// (or reads as one that is) must not unlock a raw answer, and a tools/call sent as a
// notification must not reach the server unchecked.
import { existsSync, readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import type { Writable } from "node:stream";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  clientThroughProxy,
  hostileIdServer,
  rawProxy,
  resultText,
  rugServer,
  runCli,
  tempDir,
} from "./helpers.js";

const dirs: string[] = [];
let rugPins: string;
let hostilePins: string;

function pinsDir(): string {
  const dir = tempDir();
  dirs.push(dir);
  return dir;
}

beforeAll(async () => {
  rugPins = join(pinsDir(), "airlock.pins.json");
  hostilePins = join(pinsDir(), "airlock.pins.json");
  for (const [pins, server] of [
    [rugPins, rugServer()],
    [hostilePins, hostileIdServer()],
  ] as const) {
    const pinned = await runCli([
      "pin",
      "--pins",
      pins,
      "--yes",
      "--",
      process.execPath,
      ...server,
    ]);
    expect(pinned.code, pinned.stderr).toBe(0);
  }
});

afterAll(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

type Message = Record<string, unknown>;
const sendTogether = (stdin: Writable, messages: Message[]) =>
  stdin.write(messages.map((m) => `${JSON.stringify(m)}\n`).join(""));
const errorCode = (m: Message) => (m.error as { code?: number } | undefined)?.code;
/** Whether an answer carries a listing with the drifted send_report. */
const leaksDrift = (m: Message) =>
  ((m.result as { tools?: { description?: string }[] } | undefined)?.tools ?? []).some((t) =>
    /id_rsa/.test(t.description ?? ""),
  );

describe("airlock proxy and request ids reused while in flight", () => {
  it("refuses a second request under an id in flight, so tools/list + ping or + tools/call never deliver the unfiltered listing", async () => {
    // send_report drifts silently after the first call: only the proxy's filter hides it.
    const proxy = rawProxy(["--pins", rugPins], rugServer("--rug-after", "1", "--silent"));
    try {
      await proxy.initialize();
      proxy.send({
        jsonrpc: "2.0",
        id: 2,
        method: "tools/call",
        params: { name: "echo", arguments: { text: "arm" } },
      });
      await proxy.next((m) => m.id === 2);
      const pairs = [
        ["dup", { method: "ping" }],
        ["dup2", { method: "tools/call", params: { name: "echo", arguments: { text: "x" } } }],
        // Not the same id, but the SDK client reads "5" as 5: refused the same way.
        [5, { method: "ping", id: "5" }],
      ] as const;
      for (const [id, second] of pairs) {
        // One write: the proxy reads both before the server can answer the first.
        sendTogether(proxy.child.stdin, [
          { jsonrpc: "2.0", id, method: "tools/list" },
          { jsonrpc: "2.0", id, ...second },
        ]);
      }
      // The server answers in order: once this is answered, everything before it is.
      proxy.send({ jsonrpc: "2.0", id: "end", method: "ping" });
      await proxy.next((m) => m.id === "end");
      for (const [id, second] of pairs) {
        const secondId = "id" in second ? second.id : id;
        const answers = proxy.messages.filter((m) => m.id === id || m.id === secondId);
        // Every answer under a reused id is the refusal or the filtered listing.
        expect(answers, String(id)).toHaveLength(2);
        expect(answers.filter(leaksDrift)).toEqual([]);
        const refused = answers.find((m) => m.id === secondId && errorCode(m) === -32600);
        expect(String((refused?.error as { message?: string } | undefined)?.message)).toMatch(
          /^AIRLOCK_BLOCK: request id .* is already in flight/,
        );
        const listing = answers.find((m) => m.id === id && m.result !== undefined);
        expect(listing).toBeDefined();
        const names = (listing!.result as { tools: { name: string }[] }).tools.map((t) => t.name);
        expect(names).toContain("echo");
        expect(names).not.toContain("send_report");
      }
    } finally {
      proxy.child.stdin.end();
      await proxy.exited;
    }
  });

  it("withholds the answer of a call whose id the client reused while it ran (the client may take it for the listing)", async () => {
    const proxy = rawProxy(["--pins", rugPins], rugServer("--rug-after", "1", "--silent"));
    try {
      await proxy.initialize();
      proxy.send({
        jsonrpc: "2.0",
        id: "s",
        method: "tools/call",
        params: { name: "slow", arguments: { ms: 500 }, _meta: { progressToken: "p" } },
      });
      // The server has the call (it reported progress) when the listing reuses its id.
      await proxy.next((m) => m.method === "notifications/progress");
      proxy.send({ jsonrpc: "2.0", id: "s", method: "tools/list" });
      const refused = await proxy.next((m) => m.id === "s" && errorCode(m) === -32600);
      expect(refused.result).toBeUndefined();
      const withheld = await proxy.next((m) => m.id === "s" && errorCode(m) === -32603);
      expect(String((withheld.error as { message: string }).message)).toMatch(
        /^AIRLOCK_BLOCK: the server's answer to "tools\/call" was withheld: the client sent another request with the same id/,
      );
      // The proxy still serves: the same id is free again once answered.
      proxy.send({ jsonrpc: "2.0", id: "s", method: "tools/list" });
      const listing = await proxy.next((m) => m.id === "s" && m.result !== undefined);
      expect(leaksDrift(listing)).toBe(false);
      expect(proxy.messages.filter((m) => m.id === "s")).toHaveLength(3);
    } finally {
      proxy.child.stdin.end();
      await proxy.exited;
    }
  });
});

describe("airlock proxy and tools/call sent as a notification", () => {
  it("never forwards a tools/call without an id, admitted tool or not, and audits it", async () => {
    const dir = pinsDir();
    const callLog = join(dir, "calls.jsonl");
    const audit = join(dir, "audit.jsonl");
    const { client } = await clientThroughProxy(
      ["--pins", hostilePins, "--audit-log", audit],
      hostileIdServer("--call-log", callLog),
    );
    const received = () =>
      existsSync(callLog)
        ? readFileSync(callLog, "utf8")
            .trim()
            .split("\n")
            .map((line) => JSON.parse(line).name)
        : [];
    try {
      await client.notification({
        method: "tools/call",
        params: { name: "exfiltrate", arguments: { data: "secrets" } },
      });
      await client.notification({
        method: "tools/call",
        params: { name: "echo", arguments: { text: "no id" } },
      });
      // The server handles messages in order: after this answer it has seen both.
      await client.ping();
      expect(received()).toEqual([]);
      expect(
        resultText(await client.callTool({ name: "echo", arguments: { text: "with id" } })),
      ).toBe("with id");
      expect(received()).toEqual(["echo"]);
    } finally {
      await client.close();
    }
    const records = readFileSync(audit, "utf8")
      .trim()
      .split("\n")
      .map((line) => JSON.parse(line))
      .filter((r) => r.event === "tool_call_check");
    expect(records.map((r) => [r.toolName, r.allowed, r.verdict])).toEqual([
      ["exfiltrate", false, "notification"],
      ["echo", false, "notification"],
      ["echo", true, "allow_pinned"],
    ]);
  });
});
