import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { ListToolsRequestSchema } from "@modelcontextprotocol/sdk/types.js";
import { afterEach, describe, expect, it, vi } from "vitest";
import { ToolGuardError, type ToolGuardErrorCode } from "../../src/guard/errors.js";
import { pinToolDefinitions } from "../../src/guard/pin-definitions.js";
import { createToolGuard, type ToolGuardDecision } from "../../src/guard/tool-guard.js";
import { guardMcpClient, guardMcpClientCached } from "../../src/integrations/mcp-client.js";
import { AGENT, ROOT, tableVerifier } from "../guard/fixtures.js";
import { createWeatherServer } from "./fixtures/weather-server.js";

const CAPABILITIES = { get_forecast: "weather:forecast", get_alerts: "weather:alerts:list" };
const open: Client[] = [];

afterEach(async () => {
  for (const client of open.splice(0)) await client.close();
});

async function connect(server: { connect(t: InMemoryTransport): Promise<void> }) {
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await server.connect(serverSide);
  const client = new Client({ name: "test", version: "1.0.0" });
  await client.connect(clientSide);
  open.push(client);
  return client;
}

async function weatherSetup(grants: string[] = ["weather:forecast", "weather:alerts:list"]) {
  const weather = createWeatherServer();
  const client = await connect(weather.server);
  const pins = pinToolDefinitions((await client.listTools()).tools);
  const verifier = tableVerifier({ [AGENT]: grants });
  const decisions: ToolGuardDecision[] = [];
  const guard = createToolGuard({
    verifier,
    agent: AGENT,
    root: ROOT,
    pins,
    onDecision: (d) => decisions.push(d),
  });
  return { weather, client, pins, verifier, guard, decisions };
}

async function codeOf(promise: Promise<unknown>): Promise<ToolGuardErrorCode> {
  const err = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(ToolGuardError);
  return (err as ToolGuardError).code;
}

describe("guardMcpClient (real MCP SDK client and server, in memory)", () => {
  it("calls the tool after the definition served now and the delegation pass", async () => {
    const { weather, client, guard, decisions } = await weatherSetup();
    const tools = guardMcpClient(client, { guard, capabilities: CAPABILITIES });
    const result = (await tools.callTool("get_forecast", { city: "Oslo" })) as {
      content: { text: string }[];
    };
    expect(result.content[0]?.text).toBe("Sunny in Oslo");
    expect(weather.calls).toEqual(["get_forecast:Oslo"]);
    expect(decisions[0]).toMatchObject({
      tool: "get_forecast",
      capability: "weather:forecast",
      decision: "ALLOW",
    });
  });

  it("refuses a tool missing from the capability table, without calling the server", async () => {
    const { weather, client, guard } = await weatherSetup();
    const tools = guardMcpClient(client, {
      guard,
      capabilities: { get_alerts: "weather:alerts:list" },
    });
    expect(await codeOf(tools.callTool("get_forecast", { city: "Oslo" }))).toBe(
      "GUARD_MISCONFIGURED",
    );
    expect(await codeOf(tools.callTool("__proto__", {}))).toBe("GUARD_MISCONFIGURED");
    expect(weather.calls).toEqual([]);
  });

  it("catches a rug pull on the very next call, with no verifier call", async () => {
    const { weather, client, guard, verifier } = await weatherSetup();
    const tools = guardMcpClient(client, { guard, capabilities: CAPABILITIES });
    await tools.callTool("get_forecast", { city: "Oslo" });
    weather.rugPull();
    expect(await codeOf(tools.callTool("get_forecast", { city: "Oslo" }))).toBe("TOOL_DRIFT");
    expect(weather.calls).toEqual(["get_forecast:Oslo"]);
    expect(verifier.calls).toHaveLength(1);
  });

  it("refuses an unauthorized capability and a pinned tool the server stopped listing", async () => {
    const { weather, client, guard } = await weatherSetup(["weather:forecast"]);
    const tools = guardMcpClient(client, { guard, capabilities: CAPABILITIES });
    expect(await codeOf(tools.callTool("get_alerts", { region: "north" }))).toBe(
      "TOOL_NOT_AUTHORIZED",
    );
    const other = createToolGuard({
      verifier: tableVerifier({ [AGENT]: ["x:y"] }),
      agent: AGENT,
      root: ROOT,
      pins: { gone_tool: "a".repeat(64) },
    });
    const gone = guardMcpClient(client, { guard: other, capabilities: { gone_tool: "x:y" } });
    expect(await codeOf(gone.callTool("gone_tool", {}))).toBe("TOOL_DEFINITION_MISSING");
    expect(weather.calls).toEqual([]);
  });

  it("validates its configuration", () => {
    const guard = createToolGuard({ verifier: tableVerifier({}), agent: AGENT, root: ROOT });
    const client = { listTools: async () => ({ tools: [] }), callTool: async () => ({}) };
    expect(() => guardMcpClient(client, { guard, capabilities: { t: "a:*" } })).toThrow(
      ToolGuardError,
    );
    expect(() => guardMcpClient(client, { guard, capabilities: { "bad name": "a" } })).toThrow(
      ToolGuardError,
    );
    expect(() => guardMcpClient({} as never, { guard, capabilities: {} })).toThrow(ToolGuardError);
    expect(() => guardMcpClient(client, { guard, capabilities: {}, maxPages: 0 })).toThrow(
      ToolGuardError,
    );
  });
});

describe("paging and hostile listings (real low-level SDK Server)", () => {
  const forecast = {
    name: "get_forecast",
    description: "Get the forecast",
    inputSchema: { type: "object" as const, properties: {} },
  };

  async function pagedClient(pages: (cursor: string | undefined) => unknown) {
    const server = new Server({ name: "paged", version: "1.0.0" }, { capabilities: { tools: {} } });
    const listCalls = vi.fn();
    server.setRequestHandler(ListToolsRequestSchema, async (request) => {
      listCalls(request.params?.cursor);
      return pages(request.params?.cursor) as never;
    });
    const client = await connect(server);
    return { client, listCalls };
  }

  function guardFor() {
    return createToolGuard({
      verifier: tableVerifier({ [AGENT]: ["weather:forecast"] }),
      agent: AGENT,
      root: ROOT,
      pins: pinToolDefinitions([forecast]),
    });
  }

  it("follows cursors to find the definition on a later page", async () => {
    const { client } = await pagedClient((cursor) =>
      cursor === undefined
        ? { tools: [{ ...forecast, name: "other" }], nextCursor: "p2" }
        : { tools: [forecast] },
    );
    const tools = guardMcpClient(client, { guard: guardFor(), capabilities: CAPABILITIES });
    // The server has no tools/call handler: reaching it proves the guard let the call through.
    await expect(tools.callTool("get_forecast", {})).rejects.not.toBeInstanceOf(ToolGuardError);
  });

  it("refuses on a cursor loop and stops at maxPages", async () => {
    const loop = await pagedClient(() => ({ tools: [], nextCursor: "again" }));
    const looped = guardMcpClient(loop.client, { guard: guardFor(), capabilities: CAPABILITIES });
    expect(await codeOf(looped.callTool("get_forecast", {}))).toBe("TOOL_DEFINITION_MISSING");
    expect(loop.listCalls).toHaveBeenCalledTimes(2);

    let n = 0;
    const endless = await pagedClient(() => ({ tools: [], nextCursor: `c${n++}` }));
    const capped = guardMcpClient(endless.client, {
      guard: guardFor(),
      capabilities: CAPABILITIES,
      maxPages: 5,
    });
    expect(await codeOf(capped.callTool("get_forecast", {}))).toBe("TOOL_DEFINITION_MISSING");
    expect(endless.listCalls).toHaveBeenCalledTimes(5);
  });

  it("refuses a tool listed twice, even when one copy matches the pin", async () => {
    const { client } = await pagedClient((cursor) =>
      cursor === undefined
        ? { tools: [forecast], nextCursor: "p2" }
        : { tools: [{ ...forecast, description: "evil twin" }] },
    );
    const tools = guardMcpClient(client, { guard: guardFor(), capabilities: CAPABILITIES });
    expect(await codeOf(tools.callTool("get_forecast", {}))).toBe("TOOL_DRIFT");
  });
});

describe("guardMcpClientCached", () => {
  it("lists once, then refreshes on notifications/tools/list_changed", async () => {
    const { weather, client, guard } = await weatherSetup();
    const listSpy = vi.spyOn(client, "listTools");
    const changed = vi.fn();
    const tools = guardMcpClientCached(client, {
      guard,
      capabilities: CAPABILITIES,
      onToolListChanged: changed,
    });
    await tools.callTool("get_forecast", { city: "Oslo" });
    await tools.callTool("get_alerts", { region: "north" });
    await tools.callTool("get_forecast", { city: "Bergen" });
    expect(listSpy).toHaveBeenCalledTimes(1);

    weather.rugPull(); // the SDK server sends notifications/tools/list_changed
    await vi.waitFor(() => expect(changed).toHaveBeenCalled());
    expect(await codeOf(tools.callTool("get_forecast", { city: "Oslo" }))).toBe("TOOL_DRIFT");
    expect(listSpy).toHaveBeenCalledTimes(2);
    expect(weather.calls).toEqual(["get_forecast:Oslo", "get_alerts:north", "get_forecast:Bergen"]);
  });

  it("invalidate() forces a fresh listing", async () => {
    const { client, guard } = await weatherSetup();
    const listSpy = vi.spyOn(client, "listTools");
    const tools = guardMcpClientCached(client, { guard, capabilities: CAPABILITIES });
    await tools.callTool("get_forecast", { city: "Oslo" });
    tools.invalidate();
    await tools.callTool("get_forecast", { city: "Oslo" });
    expect(listSpy).toHaveBeenCalledTimes(2);
  });

  it("refuses every call when it cannot subscribe to list_changed", async () => {
    const guard = createToolGuard({ verifier: tableVerifier({}), agent: AGENT, root: ROOT });
    const callTool = vi.fn();
    const bare = { listTools: async () => ({ tools: [] }), callTool };
    const tools = guardMcpClientCached(bare, { guard, capabilities: { t: "t" } });
    expect(await codeOf(tools.callTool("t", {}))).toBe("GUARD_MISCONFIGURED");
    expect(callTool).not.toHaveBeenCalled();
  });
});
