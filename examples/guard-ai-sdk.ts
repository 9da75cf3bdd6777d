/**
 * The tool guard in the Vercel AI SDK: wrap each tool's execute. The model gets a short
 * refusal as the tool result when the guard says no; execute never runs.
 *
 *   node --import tsx examples/guard-ai-sdk.ts
 *
 * In your code, import from "agent-airlock/guard" and "agent-airlock/ai-sdk".
 */
import { tool } from "ai";
import { z } from "zod";
import {
  createToolGuard,
  generateDelegationKey,
  issueDelegation,
  localVerifier,
  pinToolDefinitions,
} from "../src/guard/index.js";
import { aiSdkToolDefinition, guardAiSdkTools } from "../src/integrations/ai-sdk.js";

const rawTools = {
  weather_forecast: tool({
    description: "Get the forecast for a city",
    inputSchema: z.object({ city: z.string() }),
    execute: async ({ city }) => `Sunny in ${city}`,
  }),
  send_email: tool({
    description: "Send an email",
    inputSchema: z.object({ to: z.string(), body: z.string() }),
    execute: async ({ to }) => `sent to ${to}`,
  }),
};

const root = generateDelegationKey();
const agent = generateDelegationKey();
const { chain } = await issueDelegation({
  issuer: root,
  audience: agent.did,
  capabilities: ["weather:*"],
  ttlSeconds: 600,
});
const guard = createToolGuard({
  verifier: localVerifier({ chains: [chain], trustedRoots: [root.did] }),
  agent: agent.did,
  root: root.did,
  pins: pinToolDefinitions(
    await Promise.all(Object.entries(rawTools).map(([name, t]) => aiSdkToolDefinition(name, t))),
  ),
});

// Pass `tools` to generateText / streamText as usual.
const tools = guardAiSdkTools(rawTools, {
  guard,
  capabilities: { weather_forecast: "weather:forecast", send_email: "email:send" },
});
const options = { toolCallId: "call_1", messages: [] };
console.log(
  `weather_forecast: ${await tools.weather_forecast.execute?.({ city: "Oslo" }, options)}`,
);
console.log(
  `send_email: ${await tools.send_email.execute?.({ to: "boss@example.com", body: "hi" }, options)}`,
);
