import { randomUUID } from "node:crypto";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import { afterAll, beforeAll, describe, it } from "vitest";
import { remoteRugPullScenario, reportServers } from "./remote-scenario.js";

/** A real SDK server over Streamable HTTP on 127.0.0.1, one McpServer per session. */
let http: Server;
let url: string;
const servers = reportServers("remote");

beforeAll(async () => {
  const sessions = new Map<string, StreamableHTTPServerTransport>();
  http = createServer(async (req, res) => {
    const id = req.headers["mcp-session-id"];
    let transport = typeof id === "string" ? sessions.get(id) : undefined;
    if (!transport) {
      const created = new StreamableHTTPServerTransport({
        sessionIdGenerator: () => randomUUID(),
        onsessioninitialized: (sid) => {
          sessions.set(sid, created);
        },
      });
      transport = created;
      await servers.create().connect(created);
    }
    await transport.handleRequest(req, res);
  });
  await new Promise<void>((resolve) => http.listen(0, "127.0.0.1", resolve));
  url = `http://127.0.0.1:${(http.address() as AddressInfo).port}/mcp`;
});

afterAll(async () => {
  http.closeAllConnections();
  await new Promise((resolve) => http.close(resolve));
});

describe("remote servers over Streamable HTTP", () => {
  it("pins with --url, checks the recorded source, and the proxy enforces the pins on a remote rug pull", async () => {
    await remoteRugPullScenario({
      pinArgs: ["--url", url],
      proxyArgs: ["--url", url],
      rugPull: servers.rugPull,
    });
  });
});
