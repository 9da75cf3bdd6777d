import { writeFileSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { SSEServerTransport } from "@modelcontextprotocol/sdk/server/sse.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runCli, tempDir } from "./helpers.js";
import { remoteRugPullScenario, reportServers } from "./remote-scenario.js";

// A real SDK server over the legacy HTTP+SSE transport (protocol 2024-11-05): GET /sse
// opens the event stream, whose first event names the POST endpoint for messages.
let http: Server;
let url: string;
const servers = reportServers("legacy");
const streamsOpened: string[] = [];

beforeAll(async () => {
  const sessions = new Map<string, SSEServerTransport>();
  http = createServer(async (req, res) => {
    const at = new URL(req.url ?? "/", "http://127.0.0.1");
    if (req.method === "GET" && at.pathname === "/sse") {
      streamsOpened.push(String(req.headers["x-team"] ?? ""));
      const transport = new SSEServerTransport("/messages", res);
      sessions.set(transport.sessionId, transport);
      res.on("close", () => sessions.delete(transport.sessionId));
      await servers.create().connect(transport);
      return;
    }
    const transport = sessions.get(at.searchParams.get("sessionId") ?? "");
    if (req.method === "POST" && at.pathname === "/messages" && transport) {
      await transport.handlePostMessage(req, res);
      return;
    }
    res.writeHead(404).end();
  });
  await new Promise<void>((resolve) => http.listen(0, "127.0.0.1", resolve));
  url = `http://127.0.0.1:${(http.address() as AddressInfo).port}/sse`;
});

afterAll(async () => {
  http.closeAllConnections();
  await new Promise((resolve) => http.close(resolve));
});

describe("remote servers over legacy HTTP+SSE", () => {
  it("pins with --url --sse, checks the recorded source, and the proxy enforces the pins on a rug pull", async () => {
    await remoteRugPullScenario({
      pinArgs: ["--url", url, "--sse", "--header", "X-Team: ops"],
      proxyArgs: ["--url", url, "--sse"],
      rugPull: servers.rugPull,
    });
    // --header reached the event stream.
    expect(streamsOpened).toContain("ops");
    servers.restore();
  });

  it('pins a client config\'s "type": "sse" entry, and --sse without --url is a usage error', async () => {
    const dir = tempDir();
    const config = join(dir, "mcp.json");
    writeFileSync(config, JSON.stringify({ servers: { legacy: { type: "sse", url } } }));
    const pins = join(dir, "airlock.pins.json");
    const pinned = await runCli(["pin", "--pins", pins, "--config", config, "--yes"]);
    expect(pinned.code, pinned.stdout + pinned.stderr).toBe(0);
    const checked = await runCli(["check", "--pins", pins, "--output", "json"]);
    expect(checked.code, checked.stdout + checked.stderr).toBe(0);
    expect(
      JSON.parse(checked.stdout).servers[0].tools.map((t: { name: string }) => t.name),
    ).toEqual(["echo", "send_report"]);

    const usage = await runCli(["pin", "--pins", pins, "--sse", "--yes"]);
    expect(usage.code).toBe(2);
    expect(usage.stderr).toContain("--sse needs --url");
    const proxyUsage = await runCli(["proxy", "--pins", pins, "--sse", "--", "node", "x.js"]);
    expect(proxyUsage.code).toBe(2);
    expect(proxyUsage.stderr).toContain("--sse needs --url");
  });
});
