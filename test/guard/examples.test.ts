import { execFile } from "node:child_process";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";

async function run(example: string): Promise<string[]> {
  const { stdout } = await promisify(execFile)(
    process.execPath,
    ["--import", "tsx", `examples/${example}`],
    { encoding: "utf8", timeout: 60_000 },
  );
  return stdout.trim().split("\n");
}

describe("guard examples (run as CI runs them)", () => {
  it.concurrent("guard-basic.ts: cached ALLOW, DENY, then a rug pull refused", async () => {
    expect(await run("guard-basic.ts")).toEqual([
      "audit: weather_forecast weather:forecast ALLOW",
      "forecast: Sunny in Oslo",
      "audit: weather_forecast weather:forecast ALLOW (cached)",
      "forecast again: Sunny in Bergen",
      "audit: refund_payment payments:refund DENY TOOL_NOT_AUTHORIZED",
      "refund: refused TOOL_NOT_AUTHORIZED",
      "audit: weather_forecast weather:forecast DENY TOOL_DRIFT",
      "forecast after rug pull: refused TOOL_DRIFT",
    ]);
  });

  it.concurrent("guard-mcp-client.ts: capability table, delegation and drift on a real MCP client", async () => {
    expect(await run("guard-mcp-client.ts")).toEqual([
      "get_forecast: Sunny in Oslo",
      "delete_city: refused TOOL_NOT_AUTHORIZED",
      "not in the table: refused GUARD_MISCONFIGURED",
      "get_forecast after rug pull: refused TOOL_DRIFT",
    ]);
  });

  it.concurrent("guard-langchain.ts: refusal messages for the model", async () => {
    expect(await run("guard-langchain.ts")).toEqual([
      "forecast: Sunny in Oslo",
      "refund: Blocked by policy (TOOL_NOT_AUTHORIZED). Do not retry this tool.",
      "poisoned forecast: Blocked by policy (TOOL_DRIFT). Do not retry this tool.",
    ]);
  });

  it.concurrent("guard-openai-agents.ts: FunctionTool and a pinned MCPServer (server-everything)", async () => {
    expect(await run("guard-openai-agents.ts")).toEqual([
      "forecast: Sunny in Oslo",
      "forecast as weather:alerts: Blocked by policy (TOOL_NOT_AUTHORIZED). Do not retry this tool.",
      "agent assistant sees MCP tools: echo",
      "get-env: refused TOOL_DEFINITION_MISSING",
    ]);
  });

  it.concurrent("guard-ai-sdk.ts: a guarded tools record", async () => {
    expect(await run("guard-ai-sdk.ts")).toEqual([
      "weather_forecast: Sunny in Oslo",
      "send_email: Blocked by policy (TOOL_NOT_AUTHORIZED). Do not retry this tool.",
    ]);
  });
});
