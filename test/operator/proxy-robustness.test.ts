import { spawn } from "node:child_process";
import { join } from "node:path";
import { LoggingMessageNotificationSchema } from "@modelcontextprotocol/sdk/types.js";
import { beforeAll, describe, expect, it } from "vitest";
import {
  cliArgs,
  clientThroughProxy,
  rawProxy as rawProxyPeer,
  resultText,
  root,
  rugServer,
  runCli,
  tempDir,
} from "./helpers.js";

let pins: string;

beforeAll(async () => {
  pins = join(tempDir(), "airlock.pins.json");
  const pinned = await runCli([
    "pin",
    "--pins",
    pins,
    "--yes",
    "--",
    process.execPath,
    ...rugServer(),
  ]);
  expect(pinned.code).toBe(0);
});

/** The proxy as a raw process, spoken to in JSON lines. */
function rawProxy(extra: string[] = [], serverFlags: string[] = []) {
  return rawProxyPeer(["--pins", pins, ...extra], rugServer(...serverFlags));
}

const call = (id: number, name: string, args: Record<string, unknown>) => ({
  jsonrpc: "2.0",
  id,
  method: "tools/call",
  params: { name, arguments: args },
});

describe("airlock proxy robustness", () => {
  it("answers the waiting call and exits 1 when the real server crashes", async () => {
    const proxy = rawProxy();
    await proxy.initialize();
    proxy.send(call(2, "crash", {}));
    const answer = await proxy.next((m) => m.id === 2);
    expect(answer.error).toMatchObject({ code: -32603 });
    expect(String((answer.error as { message: string }).message)).toMatch(
      /the server exited \(code 3\)/,
    );
    const log = await proxy.next((m) => m.method === "notifications/message");
    expect(log.params).toMatchObject({ level: "error", logger: "airlock-proxy" });
    expect(await proxy.exited).toBe(1);
  });

  it("stops cleanly when the real server writes malformed JSON, answering what was accepted", async () => {
    const proxy = rawProxy();
    await proxy.initialize();
    proxy.send(call(2, "slow", { ms: 30_000 }));
    proxy.send(call(3, "garbage", {}));
    const slow = await proxy.next((m) => m.id === 2);
    const garbage = await proxy.next((m) => m.id === 3);
    for (const answer of [slow, garbage]) {
      expect(String((answer.error as { message: string }).message)).toMatch(/not JSON/);
    }
    expect(await proxy.exited).toBe(1);
    expect(proxy.stderr()).toMatch(/the server sent a line that is not JSON/);
  });

  it("answers a client's malformed line with a parse error and keeps serving", async () => {
    const proxy = rawProxy();
    await proxy.initialize();
    proxy.child.stdin.write("{this is not json\n");
    const parseError = await proxy.next(
      (m) => (m.error as { code?: number } | undefined)?.code === -32700,
    );
    expect(parseError.id).toBeNull();
    proxy.send([call(9, "echo", { text: "batched" })]);
    const batch = await proxy.next((m) => m.id === 9);
    expect(String((batch.error as { message: string }).message)).toMatch(
      /^AIRLOCK_BLOCK: JSON-RPC batches/,
    );
    proxy.send(call(4, "echo", { text: "still here" }));
    const echo = await proxy.next((m) => m.id === 4);
    expect(resultText(echo.result)).toBe("still here");
    proxy.child.stdin.end();
    expect(await proxy.exited).toBe(0);
  });

  it("forwards a flood of notifications in order, then the result", async () => {
    const { client } = await clientThroughProxy(["--pins", pins], rugServer());
    try {
      const seen: string[] = [];
      client.setNotificationHandler(LoggingMessageNotificationSchema, (n) => {
        seen.push(String(n.params.data));
      });
      const result = await client.callTool({ name: "flood", arguments: { count: 3_000 } });
      expect(resultText(result)).toBe("flooded");
      expect(seen).toHaveLength(3_000);
      expect(seen[0]).toBe("flood 0");
      expect(seen[2_999]).toBe("flood 2999");
    } finally {
      await client.close();
    }
  });

  it("passes a huge response intact, and refuses one over --max-message-bytes", async () => {
    const { client } = await clientThroughProxy(["--pins", pins], rugServer());
    try {
      const big = await client.callTool({ name: "huge", arguments: { bytes: 4_000_000 } });
      expect(resultText(big)).toHaveLength(4_000_000);
    } finally {
      await client.close();
    }
    const proxy = rawProxy(["--max-message-bytes", "1000000"]);
    await proxy.initialize();
    proxy.send(call(2, "huge", { bytes: 2_000_000 }));
    const answer = await proxy.next((m) => m.id === 2);
    expect(String((answer.error as { message: string }).message)).toMatch(
      /larger than 1000000 bytes/,
    );
    expect(await proxy.exited).toBe(1);
  });

  it("tells the client why when the real server cannot be started, and exits 1", async () => {
    const child = spawn(
      process.execPath,
      cliArgs("proxy", "--pins", pins, "--", "/nonexistent/mcp-server"),
      {
        cwd: root,
        stdio: "pipe",
      },
    );
    let out = "";
    child.stdout.on("data", (d) => {
      out += d;
    });
    const exited = new Promise<number | null>((resolve) => child.on("close", resolve));
    child.stdin.write(
      `${JSON.stringify({ jsonrpc: "2.0", id: 1, method: "initialize", params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "raw", version: "1" } } })}\n`,
    );
    expect(await exited).toBe(1);
    const first = JSON.parse(out.split("\n")[0]!);
    expect(first).toMatchObject({ id: 1, error: { code: -32603 } });
    expect(first.error.message).toMatch(/could not start \/nonexistent\/mcp-server: .*ENOENT/);
  });

  it("stops the real server when the client disconnects mid-call", async () => {
    const proxy = rawProxy();
    await proxy.initialize();
    proxy.send({
      ...call(2, "slow", { ms: 60_000 }),
      params: { name: "slow", arguments: { ms: 60_000 }, _meta: { progressToken: "p" } },
    });
    // The server has the call (it reported progress) when the client goes away.
    await proxy.next((m) => m.method === "notifications/progress");
    const pid = Number(/rug-pull-server pid (\d+)/.exec(proxy.stderr())?.[1]);
    expect(pid).toBeGreaterThan(0);
    proxy.child.stdin.end();
    expect(await proxy.exited).toBe(0);
    expect(() => process.kill(pid, 0)).toThrow();
  });
});
