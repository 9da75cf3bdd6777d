/**
 * The tool guard's cost per call, as ratios to calling the bare handler in the same run:
 * a cached ALLOW (with and without a pinned definition to digest), and a full local
 * verification of a real 2-link chain (localVerifier, signatures cached and not).
 */
import { issueDelegation } from "../src/guard/delegation/issue.js";
import { generateDelegationKey } from "../src/guard/did/keys.js";
import { localVerifier } from "../src/guard/local-verifier.js";
import { pinToolDefinitions } from "../src/guard/pin-definitions.js";
import { createToolGuard } from "../src/guard/tool-guard.js";
import { formatNs, formatRatio, type Measurement, measureAsync, table } from "./lib/measure.js";

const R = { rounds: 9, roundMs: 30 };

export const title = "Tool guard: the cost of a guarded call";

export async function run(): Promise<string> {
  const root = generateDelegationKey();
  const team = generateDelegationKey();
  const agent = generateDelegationKey();
  const top = await issueDelegation({
    issuer: root,
    audience: team.did,
    capabilities: ["weather:*"],
    ttlSeconds: 3600,
  });
  const { chain } = await issueDelegation({
    issuer: team,
    audience: agent.did,
    capabilities: ["weather:forecast"],
    ttlSeconds: 3600,
    parent: top.chain,
  });
  const definition = {
    name: "weather_forecast",
    description: "Get the forecast for a city",
    inputSchema: {
      type: "object",
      properties: { city: { type: "string" }, days: { type: "integer", minimum: 1, maximum: 7 } },
      required: ["city"],
    },
  };
  const pins = pinToolDefinitions([definition]);
  const spec = { tool: "weather_forecast", capability: "weather:forecast" };
  const handler = async (city: string) => `Sunny in ${city}`;
  const guardWith = (options: {
    pins?: Record<string, string>;
    allowCacheSeconds?: number;
    signatureCache?: false;
  }) =>
    createToolGuard({
      verifier: localVerifier({
        chains: [chain],
        trustedRoots: [root.did],
        ...(options.signatureCache === false && { signatureCache: false as const }),
      }),
      agent: agent.did,
      root: root.did,
      ...(options.pins && { pins: options.pins }),
      ...(options.allowCacheSeconds !== undefined && {
        allowCacheSeconds: options.allowCacheSeconds,
      }),
    });

  const cached = guardWith({}).wrap(spec, handler);
  const cachedPinned = guardWith({ pins }).wrap({ ...spec, definition }, handler);
  const verifying = guardWith({ allowCacheSeconds: 0 }).wrap(spec, handler);
  const verifyingCold = guardWith({ allowCacheSeconds: 0, signatureCache: false }).wrap(
    spec,
    handler,
  );
  // Warm up, and prove each path allows before timing it.
  for (const f of [cached, cachedPinned, verifying, verifyingCold]) {
    if ((await f("Oslo")) !== "Sunny in Oslo") throw new Error("guarded call did not run");
  }

  const rows: [string, Measurement][] = [
    ["bare handler (baseline)", await measureAsync(() => handler("Oslo"), R)],
    ["guard, cached ALLOW, no pin", await measureAsync(() => cached("Oslo"), R)],
    [
      "guard, cached ALLOW, pinned definition (JCS + SHA-256 per call)",
      await measureAsync(() => cachedPinned("Oslo"), R),
    ],
    [
      "guard, local verification (2-link chain, signatures cached)",
      await measureAsync(() => verifying("Oslo"), R),
    ],
    [
      "guard, local verification (2-link chain, every signature verified)",
      await measureAsync(() => verifyingCold("Oslo"), R),
    ],
  ];
  const base = rows[0]![1].median;
  return [
    "Each row is one awaited call of `guard.wrap(spec, handler)` (or the bare async handler).",
    "The verifier is the real `localVerifier` over a real Ed25519 chain (root -> team -> agent).",
    "",
    table(
      ["path", "median per call", "ratio to bare handler"],
      rows.map(([name, m]) => [name, formatNs(m.median), formatRatio(m.median / base)]),
    ),
    "",
    "A cached ALLOW costs a map lookup plus, for a pinned tool, canonicalising and hashing the",
    "definition (the drift check runs on every call, cached or not). A local verification",
    "re-checks the whole chain (trust, time windows, attenuation, revocation) on every call;",
    "with `allowCacheSeconds` at its default of 30 s it runs at most once per capability per",
    "30 s (sooner when the delegation expires).",
  ].join("\n");
}
