import { readdirSync, readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { jcsCanonicalize } from "../../src/canonical/index.js";
import { CanonicalizationError } from "../../src/errors.js";
import { corpusPath, describeCorpus } from "../helpers/corpus.js";

describeCorpus("RFC 8785 official test data (cyberphone/json-canonicalization)", () => {
  const dir = corpusPath("jcs-testdata");
  const names = readdirSync(`${dir}/input`).filter((f) => f.endsWith(".json"));
  it("has the six files", () => {
    expect(names.sort()).toEqual([
      "arrays.json",
      "french.json",
      "structures.json",
      "unicode.json",
      "values.json",
      "weird.json",
    ]);
  });
  it.each(names)("%s", (name) => {
    const input = JSON.parse(readFileSync(`${dir}/input/${name}`, "utf8"));
    expect(jcsCanonicalize(input)).toBe(readFileSync(`${dir}/output/${name}`, "utf8"));
  });
});

function fromBits(hex: string): number {
  const view = new DataView(new ArrayBuffer(8));
  view.setBigUint64(0, BigInt(`0x${hex}`));
  return view.getFloat64(0);
}

describe("RFC 8785 Appendix B numbers", () => {
  it.each([
    ["0000000000000000", "0"],
    ["8000000000000000", "0"],
    ["0000000000000001", "5e-324"],
    ["7fefffffffffffff", "1.7976931348623157e+308"],
    ["4340000000000000", "9007199254740992"],
    ["4430000000000000", "295147905179352830000"],
    ["44b52d02c7e14af5", "9.999999999999997e+22"],
    ["44b52d02c7e14af6", "1e+23"],
    ["444b1ae4d6e2ef50", "1e+21"],
    ["3eb0c6f7a0b5ed8d", "0.000001"],
    ["3eb0c6f7a0b5ed8c", "9.999999999999997e-7"],
    ["41b3de4355555553", "333333333.3333332"],
    ["becbf647612f3696", "-0.0000033333333333333333"],
  ])("%s -> %s", (bits, text) => {
    expect(jcsCanonicalize(fromBits(bits))).toBe(text);
  });

  it.each([
    ["7fffffffffffffff", "NaN"],
    ["7ff0000000000000", "Infinity"],
    ["fff0000000000000", "-Infinity"],
  ])("%s (%s) is a CANONICAL_NUMBER error", (bits) => {
    expect(() => jcsCanonicalize({ a: [fromBits(bits)] })).toThrow(
      expect.objectContaining({ code: "CANONICAL_NUMBER", path: "/a/0" }),
    );
  });
});

describe("RFC 8785 refusals", () => {
  it.each([
    ["a lone high surrogate", { a: "\ud800" }, "/a"],
    ["a lone low surrogate", { a: ["x\udc00y"] }, "/a/0"],
    ["a reversed pair", { a: "\udc00\ud800" }, "/a"],
    ["a lone surrogate in a key", { "k\ud800": 1 }, "/k\ud800"],
  ])("%s is CANONICAL_STRING", (_label, value, path) => {
    let caught: unknown;
    try {
      jcsCanonicalize(value);
    } catch (err) {
      caught = err;
    }
    expect(caught).toBeInstanceOf(CanonicalizationError);
    expect((caught as CanonicalizationError).code).toBe("CANONICAL_STRING");
    expect((caught as CanonicalizationError).path).toBe(path);
  });

  it("writes a proper surrogate pair as the character", () => {
    expect(jcsCanonicalize("😀")).toBe('"😀"');
  });

  it("sorts keys by UTF-16 code units", () => {
    expect(jcsCanonicalize({ "\uffff": 1, "😀": 2, a: 3 })).toBe('{"a":3,"😀":2,"\uffff":1}');
  });
});
