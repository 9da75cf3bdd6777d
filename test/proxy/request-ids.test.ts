// Which request in flight an id names (src/proxy/request-ids.ts): the cases in
// cases/id-conflicts.json are pairs of ids and whether some client could take one for
// the other; a conflicting second id is refused while the first is in flight.
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { exactIdKey, InFlightRequests } from "../../src/proxy/request-ids.js";

interface Case {
  first: string | number;
  second: string | number;
  conflict: boolean;
  why: string;
}
const cases = JSON.parse(
  readFileSync(new URL("./cases/id-conflicts.json", import.meta.url), "utf8"),
) as Case[];

describe("InFlightRequests", () => {
  it.each(cases)("$first then $second: conflict $conflict ($why)", (c) => {
    const inFlight = new InFlightRequests<string>();
    expect(inFlight.claim(c.first, "first")).toEqual([]);
    expect(inFlight.claim(c.second, "second")).toEqual(c.conflict ? ["first"] : []);
    // Lookups are exact whatever the readings: only the first id finds the first request.
    expect(inFlight.get(c.first)).toBe("first");
    if (exactIdKey(c.first) !== exactIdKey(c.second)) {
      expect(inFlight.get(c.second)).toBe(c.conflict ? undefined : "second");
    }
  });

  it("frees an id and its readings when the request leaves flight", () => {
    const inFlight = new InFlightRequests<string>();
    expect(inFlight.claim(3, "a")).toEqual([]);
    expect(inFlight.claim("3", "b")).toEqual(["a"]);
    inFlight.release(3);
    expect(inFlight.claim("3", "b")).toEqual([]);
    expect(inFlight.get(3)).toBeUndefined();
    expect(inFlight.entries()).toEqual(["b"]);
  });

  it("keeps prefix readings counted per request: one leaving does not free the other's", () => {
    const inFlight = new InFlightRequests<string>();
    expect(inFlight.claim("3f", "a")).toEqual([]);
    expect(inFlight.claim("3g", "b")).toEqual([]);
    inFlight.release("3f");
    expect(inFlight.claim(3, "c")).toEqual(["b"]);
  });

  it("finds nothing for an id that is not a string or a number", () => {
    const inFlight = new InFlightRequests<string>();
    inFlight.claim(0, "zero");
    for (const id of [null, undefined, false, [0], { id: 0 }]) {
      expect(inFlight.get(id)).toBeUndefined();
    }
  });

  it("reads long numeric-looking string ids (200,000 digits) without trouble", () => {
    const inFlight = new InFlightRequests<string>();
    expect(inFlight.claim("\u0663".repeat(200_000), "a")).toEqual([]);
    // Python's int() of it is past any float: Infinity, as Number("1e400") is.
    expect(inFlight.claim("1e400", "b")).toEqual(["a"]);
    // Almost a Python literal, then not: the pattern backtracks once per digit, no more.
    expect(inFlight.claim(`${"1_".repeat(100_000)}1x`, "c")).toEqual([]);
  });
});
