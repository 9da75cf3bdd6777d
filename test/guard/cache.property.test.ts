import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { ToolGuardError } from "../../src/guard/errors.js";
import { createToolGuard } from "../../src/guard/tool-guard.js";
import type { VerifyToolResult } from "../../src/guard/verifier.js";
import { AGENT, ROOT } from "./fixtures.js";

/** What the verifier answers at one step. */
type Mode = { kind: "allow"; expiresIn: number | undefined } | { kind: "deny" } | { kind: "throw" };

const mode: fc.Arbitrary<Mode> = fc.oneof(
  fc.record({
    kind: fc.constant("allow" as const),
    expiresIn: fc.option(fc.integer({ min: -5, max: 90 }), { nil: undefined }),
  }),
  fc.constant({ kind: "deny" } as const),
  fc.constant({ kind: "throw" } as const),
);
const step = fc.record({ advanceMs: fc.integer({ min: 0, max: 40_000 }), mode });

describe("ALLOW cache, against a model", () => {
  it("never serves an ALLOW past min(allowCacheSeconds, expiry); never caches DENY or errors", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(step, { minLength: 1, maxLength: 25 }),
        fc.constantFrom(0, 5, 30),
        async (steps, cacheSeconds) => {
          let now = 1_700_000_000_000;
          let current: Mode = { kind: "deny" };
          let calls = 0;
          const guard = createToolGuard({
            verifier: {
              async verifyTool(): Promise<VerifyToolResult> {
                calls++;
                if (current.kind === "throw") throw new Error("down");
                if (current.kind === "deny") return { decision: "DENY", reason: "no" };
                return current.expiresIn === undefined
                  ? { decision: "ALLOW", reason: "ok" }
                  : { decision: "ALLOW", reason: "ok", expires: now / 1000 + current.expiresIn };
              },
            },
            agent: AGENT,
            root: ROOT,
            allowCacheSeconds: cacheSeconds,
            clock: () => now,
          });
          // The model: when the cached ALLOW stops being usable (ms), or -1.
          let until = -1;
          let modelCalls = 0;
          for (const { advanceMs, mode: m } of steps) {
            now += advanceMs;
            current = m;
            let expected: "ALLOW" | "TOOL_NOT_AUTHORIZED" | "GUARD_UNAVAILABLE";
            let expectCached = false;
            if (now < until) {
              expected = "ALLOW";
              expectCached = true;
            } else {
              until = -1;
              modelCalls++;
              if (m.kind === "throw") expected = "GUARD_UNAVAILABLE";
              else if (m.kind === "deny") expected = "TOOL_NOT_AUTHORIZED";
              else if (m.expiresIn !== undefined && m.expiresIn <= 0)
                expected = "TOOL_NOT_AUTHORIZED";
              else {
                expected = "ALLOW";
                const cap = now + cacheSeconds * 1000;
                const end =
                  m.expiresIn === undefined ? cap : Math.min(cap, now + m.expiresIn * 1000);
                if (cacheSeconds > 0 && end > now) until = end;
              }
            }
            const got = await guard.check({ tool: "t", capability: "c:d" }).then(
              (d) => ({ code: "ALLOW", cached: d.cached }),
              (e: unknown) => ({ code: (e as ToolGuardError).code, cached: false }),
            );
            expect(got).toEqual({ code: expected, cached: expectCached });
            expect(calls).toBe(modelCalls);
          }
        },
      ),
      { numRuns: 150 },
    );
  });
});
