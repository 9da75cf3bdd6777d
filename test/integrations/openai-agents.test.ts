import {
  Agent,
  type FunctionTool,
  getAllMcpTools,
  MCPServerStdio,
  RunContext,
  run,
  tool,
} from "@openai/agents-core";
import { assistantMessage, functionCall, ScriptedModel } from "@openai/agents-core/testing";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { z } from "zod";
import { ToolGuardError } from "../../src/guard/errors.js";
import { pinToolDefinitions } from "../../src/guard/pin-definitions.js";
import { createToolGuard } from "../../src/guard/tool-guard.js";
import {
  functionToolDefinition,
  guardFunctionTool,
  pinMcpServer,
} from "../../src/integrations/openai-agents.js";
import { AGENT, ROOT, tableVerifier } from "../guard/fixtures.js";

function forecastTool(description = "Get the forecast for a city") {
  const execute = vi.fn(async ({ city }: { city: string }) => `Sunny in ${city}`);
  const t = tool({
    name: "weather_forecast",
    description,
    parameters: z.object({ city: z.string() }),
    execute,
  });
  return { t, execute };
}

function guardFor(grants: string[]) {
  return createToolGuard({
    verifier: tableVerifier({ [AGENT]: grants }),
    agent: AGENT,
    root: ROOT,
    pins: pinToolDefinitions([functionToolDefinition(forecastTool().t)]),
  });
}

const ctx = () => new RunContext({});

describe("guardFunctionTool (real @openai/agents-core tool())", () => {
  it("keeps the tool's shape and invokes it on ALLOW", async () => {
    const { t, execute } = forecastTool();
    const safe = guardFunctionTool(t, {
      guard: guardFor(["weather:forecast"]),
      capability: "weather:forecast",
    });
    expect(safe).toMatchObject({
      type: "function",
      name: t.name,
      description: t.description,
      parameters: t.parameters,
      strict: t.strict,
    });
    expect(await safe.invoke(ctx(), JSON.stringify({ city: "Oslo" }))).toBe("Sunny in Oslo");
    expect(execute).toHaveBeenCalledTimes(1);
    expect(t.invoke).not.toBe(safe.invoke);
  });

  it("returns the refusal message, or throws, and never runs the tool", async () => {
    const { t, execute } = forecastTool();
    const denied = guardFunctionTool(t, { guard: guardFor([]), capability: "weather:forecast" });
    expect(await denied.invoke(ctx(), JSON.stringify({ city: "Oslo" }))).toBe(
      "Blocked by policy (TOOL_NOT_AUTHORIZED). Do not retry this tool.",
    );
    const throwing = guardFunctionTool(t, {
      guard: guardFor([]),
      capability: "weather:forecast",
      onRefusal: "throw",
    });
    await expect(throwing.invoke(ctx(), "{}")).rejects.toBeInstanceOf(ToolGuardError);
    const { t: drifted, execute: driftedExecute } = forecastTool(
      "Get the forecast; also wire money.",
    );
    const refused = guardFunctionTool(drifted, {
      guard: guardFor(["weather:forecast"]),
      capability: "weather:forecast",
    });
    expect(await refused.invoke(ctx(), JSON.stringify({ city: "Oslo" }))).toBe(
      "Blocked by policy (TOOL_DRIFT). Do not retry this tool.",
    );
    expect(execute).not.toHaveBeenCalled();
    expect(driftedExecute).not.toHaveBeenCalled();
  });

  it("refuses what is not a FunctionTool", () => {
    expect(() => guardFunctionTool({} as never, { guard: guardFor([]) })).toThrow(ToolGuardError);
  });
});

describe("pinMcpServer (real MCPServerStdio and MCP SDK server over stdio)", () => {
  let inner: MCPServerStdio;

  beforeAll(async () => {
    inner = new MCPServerStdio({
      command: process.execPath,
      args: ["--import", "tsx", "test/integrations/fixtures/weather-stdio.ts"],
      cacheToolsList: false,
    });
    await inner.connect();
  });
  afterAll(async () => {
    await inner.close();
  });

  it("lists only pinned tools, refuses the rest, and catches a rug pull", async () => {
    const listed = await inner.listTools();
    const pins = pinToolDefinitions(listed.filter((t) => t.name !== "rotate_description"));
    const pinned = pinMcpServer(inner, { pins });
    expect(pinned.name).toBe(inner.name);
    expect((await pinned.listTools()).map((t) => t.name).sort()).toEqual([
      "get_alerts",
      "get_forecast",
    ]);

    const ok = await pinned.callTool("get_forecast", { city: "Oslo" });
    expect(JSON.stringify(ok)).toContain("Sunny in Oslo");
    await expect(pinned.callTool("rotate_description", {})).rejects.toMatchObject({
      code: "TOOL_DEFINITION_MISSING",
    });

    // The agent's tools come from the decorator: only admitted ones exist.
    const agentTools = (await getAllMcpTools([pinned])) as FunctionTool[];
    expect(agentTools.map((t) => t.name).sort()).toEqual(["get_alerts", "get_forecast"]);

    await inner.callTool("rotate_description", {}); // rug pull, behind the decorator's back
    await pinned.invalidateToolsCache();
    expect((await pinned.listTools()).map((t) => t.name)).toEqual(["get_alerts"]);
    await expect(pinned.callTool("get_forecast", { city: "Oslo" })).rejects.toMatchObject({
      code: "TOOL_DRIFT",
    });
    // An agent tool built before the rug pull is refused too: the server checks on call.
    const stale = agentTools.find((t) => t.name === "get_forecast")!;
    const out = await stale.invoke(ctx(), JSON.stringify({ city: "Oslo" }));
    expect(String(out)).not.toContain("Sunny");
  });

  it("runs the delegation guard before a call it admits", async () => {
    const pins = pinToolDefinitions(
      (await inner.listTools()).filter((t) => t.name === "get_alerts"),
    );
    const guard = createToolGuard({
      verifier: tableVerifier({ [AGENT]: [] }),
      agent: AGENT,
      root: ROOT,
    });
    const pinned = pinMcpServer(inner, {
      pins,
      guard,
      capabilities: { get_alerts: "weather:alerts:list" },
    });
    await expect(pinned.callTool("get_alerts", { region: "north" })).rejects.toMatchObject({
      code: "TOOL_NOT_AUTHORIZED",
      detail: { capability: "weather:alerts:list" },
    });
    expect(() => pinMcpServer(inner, { pins: { get_alerts: "nope" } })).toThrow(ToolGuardError);
  });
});

describe("pinMcpServer against a hostile listing (low-level MCP SDK server over stdio)", () => {
  it("drops both copies of a tool listed twice and a look-alike name; refuses calling them", async () => {
    const inner = new MCPServerStdio({
      command: process.execPath,
      args: ["--import", "tsx", "test/integrations/fixtures/hostile-stdio.ts"],
    });
    await inner.connect();
    try {
      const listed = await inner.listTools();
      expect(listed.map((t) => t.name)).toEqual([
        "get_forecast",
        "get_forecast",
        "get_forecast\u200b",
        "get_alerts",
      ]);
      // Approve the honest get_forecast and get_alerts.
      const pins = pinToolDefinitions([listed[0], listed[3]]);
      const pinned = pinMcpServer(inner, { pins });
      expect((await pinned.listTools()).map((t) => t.name)).toEqual(["get_alerts"]);
      await expect(pinned.callTool("get_forecast", {})).rejects.toMatchObject({
        code: "TOOL_DRIFT",
      });
      await expect(pinned.callTool("get_forecast\u200b", {})).rejects.toMatchObject({
        code: "TOOL_DEFINITION_MISSING",
      });
      expect(JSON.stringify(await pinned.callTool("get_alerts", {}))).toContain("ran get_alerts");
      // A listing that fails admits nothing, not the previous listing's tools.
      await inner.close();
      await expect(pinned.listTools()).rejects.toThrow();
      await expect(pinned.callTool("get_alerts", {})).rejects.toMatchObject({
        code: "TOOL_DEFINITION_MISSING",
      });
    } finally {
      await inner.close();
    }
  });
});

describe("inside the Agents SDK runner (real run() with the SDK's ScriptedModel)", () => {
  it("the runner invokes the guarded tool; a refusal reaches the model as the tool output", async () => {
    for (const [grants, expected] of [
      [["weather:forecast"], "Sunny in Oslo"],
      [[], "Blocked by policy (TOOL_NOT_AUTHORIZED). Do not retry this tool."],
    ] as [string[], string][]) {
      const { t, execute } = forecastTool();
      const safe = guardFunctionTool(t, {
        guard: guardFor(grants),
        capability: "weather:forecast",
      });
      const model = new ScriptedModel([
        [functionCall("weather_forecast", { city: "Oslo" }, { callId: "call_1" })],
        [assistantMessage("done")],
      ]);
      const agent = new Agent({ name: "weather", model, tools: [safe] });
      const result = await run(agent, "weather in Oslo?");
      expect(result.finalOutput).toBe("done");
      const second = model.calls[1]?.request.input as { type?: string; output?: unknown }[];
      const output = second.find((item) => item.type === "function_call_result")?.output;
      expect(JSON.stringify(output)).toContain(expected);
      expect(execute).toHaveBeenCalledTimes(grants.length === 0 ? 0 : 1);
    }
  });
});
