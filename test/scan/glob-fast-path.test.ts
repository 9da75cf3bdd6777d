/**
 * Policies allow tools with the glob "**"; policy-match.ts answers it for a plain name
 * without running picomatch's regex. Held to picomatch itself: the shortcut only ever
 * says "match" where picomatch does, and the compiled policy judges every name as
 * picomatch would.
 */
import fc from "fast-check";
import picomatch from "picomatch";
import { describe, expect, it } from "vitest";
import { PERMISSIVE_POLICY } from "../../src/scan/policy.js";
import { compilePolicy, PLAIN_NAME } from "../../src/scan/policy-match.js";

const starStar = picomatch("**", { dot: true });
const name = fc.oneof(
  fc.string(),
  fc.string({ unit: "binary" }),
  fc.constantFrom(
    ".",
    "..",
    "./a",
    "a/..",
    "a/./b",
    ".hidden",
    "a\nb",
    "a\u2028",
    "x/y",
    "/",
    "",
    "**",
  ),
  fc
    .array(fc.constantFrom("a", ".", "/", "\n", "\r", "_", "-", "é", "\u2029"), { maxLength: 6 })
    .map((parts) => parts.join("")),
);

describe('the "**" shortcut', () => {
  it("only says a name matches where picomatch's regex does", () => {
    fc.assert(
      fc.property(name, (value) => {
        if (PLAIN_NAME.test(value)) expect(starStar(value), JSON.stringify(value)).toBe(true);
      }),
      { numRuns: 3000 },
    );
  });

  it("leaves the compiled policy judging every name as picomatch does", () => {
    const policy = compilePolicy(PERMISSIVE_POLICY);
    fc.assert(
      fc.property(name, (value) => {
        const allowed = policy.tool(value, null).verdict === "allowed";
        expect(allowed, JSON.stringify(value)).toBe(starStar(value));
      }),
      { numRuns: 3000 },
    );
  });
});
