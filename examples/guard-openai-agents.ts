/**
 * The tool guard in the OpenAI Agents SDK: wrap a FunctionTool, and pin the tools an
 * MCPServer may expose to an Agent.
 *
 *   node --import tsx examples/guard-openai-agents.ts
 *
 * In your code, import from "agent-airlock/guard" and "agent-airlock/openai-agents".
 */
import { Agent, MCPServerStdio, RunContext, tool } from "@openai/agents-core";
import { z } from "zod";
import {
  createToolGuard,
  generateDelegationKey,
  issueDelegation,
  localVerifier,
  pinToolDefinitions,
} from "../src/guard/index.js";
import {
  functionToolDefinition,
  guardFunctionTool,
  pinMcpServer,
} from "../src/integrations/openai-agents.js";

const forecast = tool({
  name: "weather_forecast",
  description: "Get the forecast for a city",
  parameters: z.object({ city: z.string() }),
  execute: async ({ city }) => `Sunny in ${city}`,
});

const root = generateDelegationKey();
const agentKey = generateDelegationKey();
const { chain } = await issueDelegation({
  issuer: root,
  audience: agentKey.did,
  capabilities: ["weather:forecast"],
  ttlSeconds: 600,
});
const guard = createToolGuard({
  verifier: localVerifier({ chains: [chain], trustedRoots: [root.did] }),
  agent: agentKey.did,
  root: root.did,
  pins: pinToolDefinitions([functionToolDefinition(forecast)]),
});
const safeForecast = guardFunctionTool(forecast, { guard, capability: "weather:forecast" });
const safeMisuse = guardFunctionTool(forecast, { guard, capability: "weather:alerts" });

// What the Runner does when the model calls the tool:
const ctx = new RunContext({});
console.log(`forecast: ${await safeForecast.invoke(ctx, JSON.stringify({ city: "Oslo" }))}`);
console.log(
  `forecast as weather:alerts: ${await safeMisuse.invoke(ctx, JSON.stringify({ city: "Oslo" }))}`,
);

// An MCP server: only the tools you pinned reach the agent.
const everything = new MCPServerStdio({
  name: "everything",
  command: process.execPath,
  args: ["node_modules/@modelcontextprotocol/server-everything/dist/index.js", "stdio"],
});
await everything.connect();
try {
  const echo = (await everything.listTools()).find((t) => t.name === "echo");
  const pinned = pinMcpServer(everything, { pins: pinToolDefinitions(echo ? [echo] : []) });
  const agent = new Agent({ name: "assistant", tools: [safeForecast], mcpServers: [pinned] });
  console.log(
    `agent ${agent.name} sees MCP tools: ${(await pinned.listTools()).map((t) => t.name).join(", ")}`,
  );
  try {
    await pinned.callTool("get-env", {});
  } catch (err) {
    console.log(`get-env: refused ${(err as { code?: string }).code}`);
  }
} finally {
  await everything.close();
}
