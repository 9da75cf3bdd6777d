import type {
  DelegationVerifier,
  VerifyToolRequest,
  VerifyToolResult,
} from "../../src/guard/verifier.js";

/** did:key identifiers from the did:key specification's examples. */
export const AGENT = "did:key:z6MkhaXgBZDvotDkL5257faiztiGiC2QtKLGpbnnEGta2doK";
export const OTHER_AGENT = "did:key:z6MkjchhfUsD6mmvni8mCdXHw216Xrm9bQe2mBH1P5RDjVJG";
export const ROOT = "did:key:z6MknGc3ocHs3zdPiJbnaaqDi58NGb4pk1Sp9WxWufuXSdxf";

export const FORECAST = Object.freeze({
  name: "weather_forecast",
  description: "Get the forecast for a city",
  inputSchema: Object.freeze({
    type: "object",
    properties: Object.freeze({
      city: Object.freeze({ type: "string" }),
      days: Object.freeze({ type: "integer", minimum: 1, maximum: 7 }),
    }),
    required: Object.freeze(["city"]),
  }),
});

/** DESIGN section 3 vector for {@link FORECAST}. */
export const FORECAST_SHA256 = "f1e16554bd1d858284d91bd127714276451d7d1d4af02aaea40eea8090c796f9";

/**
 * A verifier of our own `DelegationVerifier` interface (not a library fake) that answers
 * from a table of `agent -> granted capabilities` and records every question.
 */
export function tableVerifier(
  grants: Record<string, string[]>,
  extra: Partial<VerifyToolResult> = {},
): DelegationVerifier & { calls: VerifyToolRequest[] } {
  const calls: VerifyToolRequest[] = [];
  return {
    calls,
    async verifyTool(request) {
      calls.push({ ...request });
      const held = grants[request.agent] ?? [];
      return held.includes(request.capability)
        ? { decision: "ALLOW", reason: "granted", matchedCapability: request.capability, ...extra }
        : { decision: "DENY", reason: `no grant for ${request.capability}` };
    },
  };
}
