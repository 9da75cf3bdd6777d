import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { attestMcpPins } from "../../src/guard/attest.js";
import {
  createDidisGuard,
  DidisClient,
  DidisGuardError,
  pinToolDefinitions,
  withDidisGuard,
} from "../../src/guard/didis.js";
import { ToolGuardError } from "../../src/guard/errors.js";
import { AGENT, FORECAST, FORECAST_SHA256, ROOT } from "./fixtures.js";

type Handler = (req: IncomingMessage, url: URL, res: ServerResponse) => void;
let server: Server;
let baseUrl: string;
let handle: Handler;

function json(
  res: ServerResponse,
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
) {
  res.writeHead(status, { "content-type": "application/json", ...headers });
  res.end(JSON.stringify(body));
}

beforeAll(async () => {
  server = createServer((req, res) =>
    handle(req, new URL(req.url ?? "/", "http://127.0.0.1"), res),
  );
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

const ALERTS = { name: "get_alerts", description: "List alerts", inputSchema: { type: "object" } };

describe("attestMcpPins (real DidisClient, local HTTP service)", () => {
  const pins = pinToolDefinitions([FORECAST, ALERTS]);

  it("is ok when the endpoint serves exactly the pinned tools", async () => {
    const seen: string[] = [];
    handle = (_req, url, res) => {
      seen.push(`${url.pathname}?endpoint=${url.searchParams.get("endpoint")}`);
      json(res, 200, {
        endpoint: url.searchParams.get("endpoint"),
        tools: [
          { name: "weather_forecast", sha256: FORECAST_SHA256 },
          { name: "get_alerts", definition: ALERTS },
        ],
      });
    };
    const report = await attestMcpPins(
      new DidisClient({ baseUrl }),
      "https://mcp.example/mcp",
      pins,
    );
    expect(report).toEqual({
      ok: true,
      endpoint: "https://mcp.example/mcp",
      mismatched: [],
      missing: [],
      unexpected: [],
    });
    expect(seen).toEqual(["/v1/mcp/inspect?endpoint=https://mcp.example/mcp"]);
  });

  it("reports mismatched, missing and unexpected tools", async () => {
    handle = (_req, _url, res) =>
      json(res, 200, {
        tools: [
          { ...FORECAST, description: "moved" },
          { name: "delete_everything", sha256: "0".repeat(64) },
        ],
      });
    const report = await attestMcpPins(
      new DidisClient({ baseUrl }),
      "https://mcp.example/mcp",
      pins,
    );
    expect(report.ok).toBe(false);
    expect(report.mismatched).toEqual([
      expect.objectContaining({
        name: "weather_forecast",
        pinned: FORECAST_SHA256,
        reason: "digest",
      }),
    ]);
    expect(report.missing).toEqual(["get_alerts"]);
    expect(report.unexpected).toEqual(["delete_everything"]);
  });

  it("a duplicated or unreadable served tool is a mismatch", async () => {
    handle = (_req, _url, res) =>
      json(res, 200, {
        tools: [
          { name: "weather_forecast", sha256: FORECAST_SHA256 },
          { name: "weather_forecast", sha256: FORECAST_SHA256 },
          { name: "get_alerts", sha256: "not-hex" },
        ],
      });
    const report = await attestMcpPins(new DidisClient({ baseUrl }), "e", pins);
    expect(report.ok).toBe(false);
    expect(report.mismatched.map((m) => [m.name, m.reason])).toEqual([
      ["get_alerts", "unreadable"],
      ["weather_forecast", "duplicate"],
    ]);
  });

  it("is ok:false, never a throw, when the endpoint cannot be inspected", async () => {
    for (const respond of [
      (res: ServerResponse) =>
        json(res, 501, { type: "not-implemented", title: "Not Implemented", status: 501 }),
      (res: ServerResponse) =>
        json(res, 429, { title: "slow down", status: 429 }, { "retry-after": "5" }),
      (res: ServerResponse) => json(res, 200, { tools: "all of them" }),
      (res: ServerResponse) => json(res, 200, { tools: [{ description: "nameless" }] }),
    ]) {
      handle = (_req, _url, res) => respond(res);
      const report = await attestMcpPins(new DidisClient({ baseUrl }), "e", pins);
      expect(report.ok).toBe(false);
      expect(report.error?.code).toMatch(/^(DIDIS_|INSPECTION_)/);
    }
  });

  it("is ok:false for a hostile inspector (throwing getters), never a throw", async () => {
    const hostile = new Proxy(
      {},
      {
        get() {
          throw new Error("no reading me");
        },
      },
    );
    const throwing = { inspectMcp: async () => Promise.reject(hostile) };
    const lying = { inspectMcp: async () => ({ tools: [hostile] }) };
    for (const inspector of [throwing, lying]) {
      const report = await attestMcpPins(inspector, "e", pins);
      expect(report.ok).toBe(false);
      expect(report.error?.code).toMatch(/^INSPECTION_/);
    }
  });

  it("refuses invalid pins and clients as configuration errors", async () => {
    const client = new DidisClient({ baseUrl });
    await expect(attestMcpPins(client, "e", { t: "abc" })).rejects.toMatchObject({
      code: "GUARD_MISCONFIGURED",
    });
    await expect(attestMcpPins({} as never, "e", pins)).rejects.toBeInstanceOf(ToolGuardError);
  });
});

describe("createDidisGuard / withDidisGuard (real DidisClient, local HTTP service)", () => {
  function verifyToolService(answer: (url: URL) => [number, unknown]) {
    handle = (_req, url, res) => {
      const [status, body] = answer(url);
      json(res, status, body);
    };
  }

  it("allows when the service says ALLOW, and the handler runs", async () => {
    verifyToolService((url) => [
      200,
      {
        decision: "ALLOW",
        reason: "delegated",
        agent: url.searchParams.get("agent"),
        tool: url.searchParams.get("tool"),
        root: url.searchParams.get("root"),
        matchedCapability: "weather:*",
      },
    ]);
    const handler = vi.fn(async (city: string) => `Sunny in ${city}`);
    const forecast = withDidisGuard(handler, {
      client: new DidisClient({ baseUrl }),
      agent: AGENT,
      root: ROOT,
      pins: pinToolDefinitions([FORECAST]),
      tool: "weather_forecast",
      capability: "weather:forecast",
      definition: FORECAST,
    });
    expect(await forecast("Oslo")).toBe("Sunny in Oslo");
  });

  it("fails closed with GUARD_UNAVAILABLE on 429, 500 and garbage", async () => {
    const handler = vi.fn();
    for (const reply of [
      [429, { title: "Too Many Requests", status: 429 }],
      [500, { title: "boom", status: 500 }],
      [200, { decision: "MAYBE" }],
    ] as [number, unknown][]) {
      verifyToolService(() => reply);
      const guard = createDidisGuard({
        client: new DidisClient({ baseUrl }),
        agent: AGENT,
        root: ROOT,
      });
      const call = guard.wrap(
        { tool: "weather_forecast", capability: "weather:forecast" },
        handler,
      );
      const err = await call().catch((e: unknown) => e);
      expect(err).toBeInstanceOf(DidisGuardError);
      expect((err as ToolGuardError).code).toBe("GUARD_UNAVAILABLE");
    }
    expect(handler).not.toHaveBeenCalled();
  });

  it("DENY from the service is TOOL_NOT_AUTHORIZED", async () => {
    verifyToolService((url) => [
      200,
      {
        decision: "DENY",
        reason: "no chain",
        agent: url.searchParams.get("agent"),
        tool: url.searchParams.get("tool"),
        root: url.searchParams.get("root"),
      },
    ]);
    const guard = createDidisGuard({
      client: new DidisClient({ baseUrl }),
      agent: AGENT,
      root: ROOT,
    });
    await expect(
      guard.check({ tool: "weather_forecast", capability: "weather:forecast" }),
    ).rejects.toMatchObject({
      code: "TOOL_NOT_AUTHORIZED",
    });
  });

  it("refuses client and verifier together", () => {
    expect(() =>
      createDidisGuard({
        client: new DidisClient({ baseUrl }),
        verifier: { verifyTool: async () => ({ decision: "ALLOW", reason: "" }) },
        agent: AGENT,
        root: ROOT,
      } as never),
    ).toThrow(ToolGuardError);
  });
});
