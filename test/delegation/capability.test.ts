import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  assertGrant,
  assertRequestedCapability,
  CapabilityError,
  covers,
  grantedBy,
  grants,
  parseCapability,
} from "../../src/guard/capability.js";

describe("grants(grant, requested)", () => {
  const table: [string, string, boolean][] = [
    ["weather:*", "weather:forecast", true],
    ["weather:*", "weather:alerts:list", true],
    ["weather:*", "forecast", false],
    ["weather:*", "weather", false],
    ["weather:*", "payments:refund", false],
    ["weather:*", "weatherx:forecast", false],
    ["weather:forecast", "weather:forecast", true],
    ["weather:forecast", "weather:forecast:daily", false],
    ["weather:forecast", "weather", false],
    ["*", "weather", true],
    ["*", "payments:refund:full", true],
    ["Weather:*", "weather:forecast", false],
    ["weather:forecast", "Weather:forecast", false],
    ["weather:alerts:*", "weather:alerts:list", true],
    ["weather:alerts:*", "weather:forecast", false],
  ];
  it.each(table)("%s grants %s: %s", (grant, requested, expected) => {
    expect(grants(grant, requested)).toBe(expected);
  });
});

describe("covers(parent, child)", () => {
  const table: [string, string, boolean][] = [
    ["weather:*", "weather:alerts:*", true],
    ["weather:*", "weather:forecast", true],
    ["weather:*", "weather:*", true],
    ["weather:alerts:*", "weather:*", false],
    ["weather:*", "weather", false],
    ["weather:*", "*", false],
    ["weather:forecast", "weather:*", false],
    ["weather:forecast", "weather:forecast", true],
    ["weather:forecast", "weather:forecast:daily", false],
    ["*", "*", true],
    ["*", "weather:*", true],
    ["*", "weather", true],
    ["weather:*", "weatherx:*", false],
    ["payments:*", "weather:forecast", false],
  ];
  it.each(table)("%s covers %s: %s", (parent, child, expected) => {
    expect(covers(parent, child)).toBe(expected);
  });
});

describe("malformed capabilities are GUARD_MISCONFIGURED", () => {
  const badRequests: unknown[] = [
    "weather:*",
    "*",
    "weather:fore*",
    "",
    "weather::forecast",
    ":weather",
    "weather:",
    "weather forecast",
    " weather",
    "weather:\tforecast",
    "wеather:forecast", // Cyrillic e: a look-alike
    "weather:\u0000",
    "x".repeat(300),
    Array.from({ length: 20 }, () => "a").join(":"),
    42,
    null,
    undefined,
    { toString: () => "weather:forecast" },
  ];
  it.each(badRequests.map((v) => [v]))("requested %j is refused", (value) => {
    expect(() => assertRequestedCapability(value)).toThrow(CapabilityError);
    try {
      parseCapability(value);
    } catch (err) {
      expect((err as CapabilityError).code).toBe("GUARD_MISCONFIGURED");
    }
  });

  const badGrants: unknown[] = [
    "weather:fore*",
    "*:forecast",
    "weather:*:list",
    "**",
    "weather:**",
    "",
    "weather::*",
    "weather :*",
    ":*",
    7,
  ];
  it.each(badGrants.map((v) => [v]))("grant %j is refused", (value) => {
    expect(() => assertGrant(value)).toThrow(CapabilityError);
    expect(() => grants(value as string, "weather:forecast")).toThrow(CapabilityError);
    expect(() => covers("*", value as string)).toThrow(CapabilityError);
  });

  it("a wildcard request is refused even when the grant is *", () => {
    expect(() => grants("*", "weather:*")).toThrow(CapabilityError);
  });

  it("accepts exact grants, prefix:* and * alone", () => {
    for (const g of ["*", "weather:*", "weather:forecast", "a-b_c.d:e~f:*"]) assertGrant(g);
  });
});

describe("grantedBy(held, requested)", () => {
  it("returns the most specific matching grant", () => {
    expect(grantedBy(["*", "weather:*", "weather:forecast"], "weather:forecast")).toBe(
      "weather:forecast",
    );
    expect(grantedBy(["*", "weather:*", "maps:route"], "weather:forecast")).toBe("weather:*");
    expect(grantedBy(["weather:*", "weather:alerts:*"], "weather:alerts:list")).toBe(
      "weather:alerts:*",
    );
    expect(grantedBy(["*"], "anything")).toBe("*");
  });
  it("returns undefined when nothing grants the request", () => {
    expect(grantedBy(["weather:*"], "weather")).toBeUndefined();
    expect(grantedBy([], "weather:forecast")).toBeUndefined();
  });
  it("throws for a malformed request even with no grants", () => {
    expect(() => grantedBy([], "weather:*")).toThrow(CapabilityError);
  });
});

describe("properties", () => {
  const segment = fc.stringMatching(/^[a-z0-9_.-]{1,6}$/);
  const capability = fc.array(segment, { minLength: 1, maxLength: 5 }).map((s) => s.join(":"));
  const grant = fc.oneof(
    capability,
    fc.array(segment, { minLength: 0, maxLength: 4 }).map((s) => [...s, "*"].join(":")),
  );

  it("covers(p, c) and grants(c, x) imply grants(p, x)", () => {
    fc.assert(
      fc.property(grant, grant, capability, (p, c, x) => {
        if (covers(p, c) && grants(c, x)) expect(grants(p, x)).toBe(true);
      }),
      { numRuns: 2000 },
    );
  });

  it("covers is reflexive, and grants(g, x) iff covers(g, x) for exact x", () => {
    fc.assert(
      fc.property(grant, capability, (g, x) => {
        expect(covers(g, g)).toBe(true);
        expect(covers(g, x)).toBe(grants(g, x));
      }),
      { numRuns: 2000 },
    );
  });

  it("an exact grant grants only itself", () => {
    fc.assert(
      fc.property(capability, capability, (a, b) => {
        expect(grants(a, b)).toBe(a === b);
      }),
    );
  });
});

describe("hostile capability input", () => {
  it("any string either parses or throws CapabilityError, never anything else", () => {
    fc.assert(
      fc.property(
        fc.string({ unit: "grapheme", maxLength: 40 }),
        fc.string({ maxLength: 40 }),
        (a, b) => {
          for (const fn of [
            () => parseCapability(a),
            () => assertGrant(a),
            () => grants(a, b),
            () => covers(a, b),
          ]) {
            try {
              fn();
            } catch (err) {
              expect(err).toBeInstanceOf(CapabilityError);
            }
          }
        },
      ),
      { numRuns: 2000 },
    );
  });

  it("a megabyte capability is refused by its length, quickly and without a stack overflow", () => {
    const huge = "a:".repeat(500_000);
    expect(() => parseCapability(huge)).toThrow(CapabilityError);
    expect(() => grants(`${huge}*`, "a:b")).toThrow(CapabilityError);
  });
});
