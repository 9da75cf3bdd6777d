import { createMCPClient } from "@ai-sdk/mcp";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import { generateText, stepCountIs } from "ai";
import { afterEach, describe, expect, it } from "vitest";
import { ToolListingDriftError } from "../../src/errors.js";
import { ToolGuardError } from "../../src/guard/errors.js";
import { pinToolDefinitions } from "../../src/guard/pin-definitions.js";
import { createToolGuard } from "../../src/guard/tool-guard.js";
import { guardAiSdkMcpTools } from "../../src/integrations/ai-sdk.js";
import {
  createPagingServer,
  type PagingServerOptions,
  pagingTool,
} from "../fixtures/servers/paging-server.js";
import { AGENT, ROOT, tableVerifier } from "../guard/fixtures.js";
import { modelCalling } from "./fixtures/mock-model.js";

// A real @ai-sdk/mcp client against a real MCP SDK server (in memory), and the AI SDK's
// own generateText driving the calls.
const closers: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  for (const close of closers.splice(0)) await close();
});

async function connected(options: PagingServerOptions = {}) {
  const paging = createPagingServer({ toolCount: 5, pageSize: 2, ...options });
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await paging.server.connect(serverSide);
  const client = await createMCPClient({ transport: clientSide as never });
  closers.push(
    () => client.close(),
    () => paging.server.close(),
  );
  return { paging, client };
}

/** A guard pinned to the first `count` tools as the server first serves them. */
function guardFor(grants: string[], count = 5) {
  return createToolGuard({
    verifier: tableVerifier({ [AGENT]: grants }),
    agent: AGENT,
    root: ROOT,
    pins: pinToolDefinitions(Array.from({ length: count }, (_, i) => pagingTool(i))),
  });
}

const capabilities = { tool_000: "numbers:read", tool_003: "numbers:read" };
const callOptions = { toolCallId: "c1", messages: [] };

describe("guardAiSdkMcpTools", () => {
  it("exposes only the table's pinned tools, from every page, and calls the server through generateText", async () => {
    const { paging, client } = await connected();
    const tools = await guardAiSdkMcpTools(client, {
      guard: guardFor(["numbers:read"]),
      capabilities,
    });
    expect(Object.keys(tools).sort()).toEqual(["tool_000", "tool_003"]);
    // tool_003 is on the second page.
    expect(paging.requestedCursors).toEqual([undefined, "page-1", "page-2"]);
    expect(tools.tool_003.description).toBe("Return the number 3.");

    const result = await generateText({
      model: modelCalling("tool_003", { note: "hi" }),
      prompt: "three?",
      tools,
      stopWhen: stepCountIs(2),
    });
    expect(result.steps[0]?.toolResults[0]?.output).toMatchObject({
      content: [{ type: "text", text: "called tool_003" }],
    });
    expect(paging.calledTools).toEqual(["tool_003"]);
  });

  it("a tool drifted before listing: rejects by default, is left out with onDrift filter", async () => {
    const { paging, client } = await connected();
    await paging.rugPull(3);
    const err = await guardAiSdkMcpTools(client, {
      guard: guardFor(["numbers:read"]),
      capabilities,
    }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ToolGuardError);
    expect((err as ToolGuardError).code).toBe("TOOL_DRIFT");
    expect((err as ToolGuardError).tool).toBe("tool_003");

    const tools = await guardAiSdkMcpTools(client, {
      guard: guardFor(["numbers:read"]),
      capabilities,
      onDrift: "filter",
    });
    expect(Object.keys(tools)).toEqual(["tool_000"]);
  });

  it("an unpinned tool is never exposed when pins are required", async () => {
    const { client } = await connected();
    const tools = await guardAiSdkMcpTools(client, {
      guard: guardFor(["numbers:read"], 3),
      capabilities,
      onDrift: "filter",
    });
    expect(Object.keys(tools)).toEqual(["tool_000"]);
    const err = await guardAiSdkMcpTools(client, {
      guard: guardFor(["numbers:read"], 3),
      capabilities,
    }).catch((e: unknown) => e);
    expect((err as ToolGuardError).code).toBe("TOOL_DEFINITION_MISSING");
  });

  it("a rug pull after listing is caught at the call: the server is not called", async () => {
    const { paging, client } = await connected();
    const tools = await guardAiSdkMcpTools(client, {
      guard: guardFor(["numbers:read"]),
      capabilities,
    });
    await paging.rugPull(0);
    expect(await tools.tool_000.execute({ note: "x" }, callOptions)).toBe(
      "Blocked by policy (TOOL_DRIFT). Do not retry this tool.",
    );
    expect(paging.calledTools).toEqual([]);
  });

  it("a tool the server stopped listing is refused, never called blind", async () => {
    const { paging, client } = await connected();
    const tools = await guardAiSdkMcpTools(client, {
      guard: guardFor(["numbers:read"]),
      capabilities,
      onRefusal: "throw",
    });
    paging.tools = paging.tools.filter((t) => t.name !== "tool_003");
    await expect(tools.tool_003.execute({}, callOptions)).rejects.toMatchObject({
      code: "TOOL_DEFINITION_MISSING",
    });
    expect(paging.calledTools).toEqual([]);
  });

  it("a capability the agent was not delegated is refused before the server is called", async () => {
    const { paging, client } = await connected();
    const tools = await guardAiSdkMcpTools(client, {
      guard: guardFor(["numbers:write"]),
      capabilities,
    });
    expect(await tools.tool_000.execute({}, callOptions)).toBe(
      "Blocked by policy (TOOL_NOT_AUTHORIZED). Do not retry this tool.",
    );
    expect(paging.calledTools).toEqual([]);
  });

  it("a tool listed twice is ambiguous: refused at listing and never exposed", async () => {
    const { client } = await connected({ misbehave: "duplicate-across-pages" });
    const err = await guardAiSdkMcpTools(client, {
      guard: guardFor(["numbers:read"]),
      capabilities,
    }).catch((e: unknown) => e);
    expect((err as ToolGuardError).code).toBe("TOOL_DRIFT");
    expect((err as ToolGuardError).tool).toBe("tool_000");
    const tools = await guardAiSdkMcpTools(client, {
      guard: guardFor(["numbers:read"]),
      capabilities,
      onDrift: "filter",
    });
    expect(Object.keys(tools)).toEqual(["tool_003"]);
  });

  it("a cursor loop is a pagination fault, not a short listing", async () => {
    const { client } = await connected({ toolCount: 10, misbehave: "cursor-loop" });
    const err = await guardAiSdkMcpTools(client, {
      guard: guardFor(["numbers:read"]),
      capabilities,
    }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ToolListingDriftError);
    expect((err as ToolListingDriftError).fault).toBe("cursor_repeated");
  });

  it("refuses what is not an @ai-sdk/mcp client and invalid options", async () => {
    const guard = guardFor(["numbers:read"]);
    for (const client of [null, {}, { listTools: async () => ({ tools: [] }) }]) {
      await expect(
        guardAiSdkMcpTools(client as never, { guard, capabilities }),
      ).rejects.toMatchObject({ code: "GUARD_MISCONFIGURED" });
    }
    const { client } = await connected();
    await expect(
      guardAiSdkMcpTools(client, { guard, capabilities: { "bad name": "x:y" } }),
    ).rejects.toMatchObject({ code: "GUARD_MISCONFIGURED" });
    await expect(
      guardAiSdkMcpTools(client, { guard, capabilities, onDrift: "ignore" as never }),
    ).rejects.toThrow();
  });
});
