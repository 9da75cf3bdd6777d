import { loadMcpTools } from "@langchain/mcp-adapters";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import { afterEach, describe, expect, it } from "vitest";
import { ToolListingDriftError } from "../../src/errors.js";
import { ToolGuardError } from "../../src/guard/errors.js";
import { pinToolDefinitions } from "../../src/guard/pin-definitions.js";
import { createToolGuard } from "../../src/guard/tool-guard.js";
import { guardMcpToolsClient } from "../../src/integrations/mcp-tools-client.js";
import { listAllTools } from "../../src/mcp/list-all-tools.js";
import {
  createPagingServer,
  type PagingServerOptions,
  pagingTool,
} from "../fixtures/servers/paging-server.js";
import { AGENT, ROOT, tableVerifier } from "../guard/fixtures.js";

// LangChain's own MCP adapter (`loadMcpTools` of @langchain/mcp-adapters) over a real MCP
// SDK client and server in memory, with the guarded facade in between.
const closers: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  for (const close of closers.splice(0)) await close();
});

async function connected(options: PagingServerOptions = {}) {
  const paging = createPagingServer({ toolCount: 5, pageSize: 2, ...options });
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await paging.server.connect(serverSide);
  const client = new Client({ name: "langchain", version: "1.0.0" });
  await client.connect(clientSide);
  closers.push(
    () => client.close(),
    () => paging.server.close(),
  );
  // Pinned as this client lists them (every page), before anything changes; a server that
  // cannot be listed gets the definitions it means to serve.
  const pins = pinToolDefinitions(
    options.misbehave === undefined
      ? (await listAllTools(client)).tools
      : paging.tools.map((_, i) => pagingTool(i)),
  );
  return { paging, client, pins };
}

function guardFor(pins: Record<string, string>, grants = ["numbers:read"]) {
  return createToolGuard({
    verifier: tableVerifier({ [AGENT]: grants }),
    agent: AGENT,
    root: ROOT,
    pins,
  });
}

const capabilities = { tool_000: "numbers:read", tool_003: "numbers:read" };

describe("guardMcpToolsClient with LangChain's loadMcpTools", () => {
  it("loads only the table's pinned tools, from every page, and a call reaches the server", async () => {
    const { paging, client, pins } = await connected();
    const guarded = guardMcpToolsClient(client, { guard: guardFor(pins), capabilities });
    const tools = await loadMcpTools("numbers", guarded as never);
    expect(tools.map((t) => t.name)).toEqual(["tool_000", "tool_003"]);
    const three = tools.find((t) => t.name === "tool_003")!;
    expect(three.description).toBe("Return the number 3.");
    expect(await three.invoke({ note: "hi" })).toBe("called tool_003");
    expect(paging.calledTools).toEqual(["tool_003"]);
  });

  it("a rug pull after loading: the call is refused with the policy message, the server is not called", async () => {
    const { paging, client, pins } = await connected();
    const tools = await loadMcpTools(
      "numbers",
      guardMcpToolsClient(client, { guard: guardFor(pins), capabilities }) as never,
    );
    await paging.rugPull(0);
    await expect(tools[0]!.invoke({ note: "x" })).rejects.toThrow(
      "Blocked by policy (TOOL_DRIFT). Do not retry this tool.",
    );
    expect(paging.calledTools).toEqual([]);
  });

  it("a capability the agent was not delegated, or a tool outside the table: refused before the server", async () => {
    const { paging, client, pins } = await connected();
    const guarded = guardMcpToolsClient(client, {
      guard: guardFor(pins, ["numbers:write"]),
      capabilities,
      onRefusal: "throw",
    });
    const tools = await loadMcpTools("numbers", guarded as never);
    await expect(tools[0]!.invoke({})).rejects.toThrow(/TOOL_NOT_AUTHORIZED|not authorized/);
    const outside = await guarded.callTool({ name: "tool_001", arguments: {} }).catch((e) => e);
    expect(outside).toBeInstanceOf(ToolGuardError);
    expect((outside as ToolGuardError).code).toBe("GUARD_MISCONFIGURED");
    const hostile = Object.defineProperty({}, "name", {
      get() {
        throw new Error("no");
      },
    });
    await expect(guarded.callTool(hostile as never)).rejects.toMatchObject({
      code: "GUARD_MISCONFIGURED",
    });
    expect(paging.calledTools).toEqual([]);
  });

  it("calls the tool it checked, even if the call's name changes after the check", async () => {
    const { paging, client, pins } = await connected();
    const guarded = guardMcpToolsClient(client, { guard: guardFor(pins), capabilities });
    let reads = 0;
    const shifty = Object.defineProperty({ arguments: {} }, "name", {
      enumerable: true,
      get: () => (reads++ === 0 ? "tool_000" : "tool_004"),
    });
    await guarded.callTool(shifty as never);
    expect(paging.calledTools).toEqual(["tool_000"]);
  });

  it("a tool drifted before loading rejects the listing, or is left out with onDrift filter", async () => {
    const { paging, client, pins } = await connected();
    await paging.rugPull(3);
    await expect(
      loadMcpTools(
        "numbers",
        guardMcpToolsClient(client, { guard: guardFor(pins), capabilities }) as never,
      ),
    ).rejects.toMatchObject({ code: "TOOL_DRIFT", tool: "tool_003" });
    const tools = await loadMcpTools(
      "numbers",
      guardMcpToolsClient(client, {
        guard: guardFor(pins),
        capabilities,
        onDrift: "filter",
      }) as never,
    );
    expect(tools.map((t) => t.name)).toEqual(["tool_000"]);
  });

  it("a cursor loop is a pagination fault; what is not a client is refused", async () => {
    const { client, pins } = await connected({ toolCount: 10, misbehave: "cursor-loop" });
    const err = await guardMcpToolsClient(client, { guard: guardFor(pins), capabilities })
      .listTools()
      .catch((e) => e);
    expect(err).toBeInstanceOf(ToolListingDriftError);
    expect(() => guardMcpToolsClient({} as never, { guard: guardFor(pins), capabilities })).toThrow(
      ToolGuardError,
    );
  });
});
