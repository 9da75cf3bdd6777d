import { describe, expect, it } from "vitest";
import {
  canonicalDigest,
  definitionSha256,
  jcsCanonicalize,
  pythonCanonicalJson,
} from "../../src/canonical/index.js";
import { ToolDefinitionPinGuard } from "../../src/pins/guard.js";

function deepArray(depth: number): unknown {
  let v: unknown = [];
  for (let i = 0; i < depth; i++) v = [v];
  return v;
}

function deepObject(depth: number): unknown {
  let v: unknown = {};
  for (let i = 0; i < depth; i++) v = { a: v };
  return v;
}

const writers = [
  ["jcs", jcsCanonicalize],
  ["python", pythonCanonicalJson],
] as const;

describe.each(writers)("%s writer on hostile input", (_name, write) => {
  it("refuses 100,000-deep arrays and objects with CANONICAL_DEPTH, not a stack overflow", () => {
    expect(() => write(deepArray(100_000))).toThrow(
      expect.objectContaining({ code: "CANONICAL_DEPTH" }),
    );
    expect(() => write(deepObject(100_000))).toThrow(
      expect.objectContaining({ code: "CANONICAL_DEPTH" }),
    );
  });

  it("accepts nesting up to the limit and honours a custom limit", () => {
    expect(() => write(deepArray(999))).not.toThrow();
    expect(() => write(deepArray(10), { maxDepth: 5 })).toThrow(
      expect.objectContaining({ code: "CANONICAL_DEPTH" }),
    );
  });

  it("refuses a cycle with CANONICAL_CYCLE and accepts a shared (acyclic) value", () => {
    const cyclic: Record<string, unknown> = { a: 1 };
    cyclic.self = { back: cyclic };
    expect(() => write(cyclic)).toThrow(
      expect.objectContaining({ code: "CANONICAL_CYCLE", path: "/self/back" }),
    );
    const shared = { x: 1 };
    expect(write({ a: shared, b: [shared] })).toBe('{"a":{"x":1},"b":[{"x":1}]}');
  });

  it("refuses a document with more values than maxValues", () => {
    expect(() => write(new Array(100).fill(0), { maxValues: 50 })).toThrow(
      expect.objectContaining({ code: "CANONICAL_SIZE" }),
    );
  });

  it.each([
    ["a function", { f: () => 1 }],
    ["a symbol", { s: Symbol("x") }],
    ["a bigint", { b: 1n }],
    ["a Map", { m: new Map([["a", 1]]) }],
    ["a class instance", { c: new (class Thing {})() }],
    ["top-level undefined", undefined],
  ])("refuses %s with CANONICAL_TYPE instead of skipping it", (_label, value) => {
    expect(() => write(value)).toThrow(expect.objectContaining({ code: "CANONICAL_TYPE" }));
  });

  it("refuses NaN and Infinity with CANONICAL_NUMBER", () => {
    expect(() => write({ n: Number.NaN })).toThrow(
      expect.objectContaining({ code: "CANONICAL_NUMBER", path: "/n" }),
    );
    expect(() => write([Number.POSITIVE_INFINITY])).toThrow(
      expect.objectContaining({ code: "CANONICAL_NUMBER" }),
    );
  });

  it("follows JSON.stringify for toJSON, undefined members and undefined elements", () => {
    const date = new Date(0);
    expect(write({ d: date, u: undefined, a: [undefined] })).toBe(
      write({ d: date.toJSON(), a: [null] }),
    );
  });

  it("never mutates its input", () => {
    const input = JSON.parse('{"b":{"y":[3,2,1],"x":null},"a":"é","__proto__":{"k":1}}');
    const before = structuredClone(input);
    Object.freeze(input);
    write(input);
    expect(input).toEqual(before);
    expect(Object.keys(input)).toEqual(["b", "a", "__proto__"]);
  });
});

describe("digests on hostile definitions", () => {
  it("refuse a deep inputSchema with a typed error", () => {
    const definition = { name: "t", inputSchema: deepObject(100_000) };
    expect(() => canonicalDigest(definition)).toThrow(
      expect.objectContaining({ code: "CANONICAL_DEPTH" }),
    );
    expect(() => definitionSha256(definition)).toThrow(
      expect.objectContaining({ code: "CANONICAL_DEPTH" }),
    );
  });

  it("refuse a deep outputSchema in version 2 and ignore it in version 1", () => {
    const definition = { name: "t", outputSchema: deepObject(100_000) };
    expect(() => canonicalDigest(definition)).toThrow(
      expect.objectContaining({ code: "CANONICAL_DEPTH" }),
    );
    expect(canonicalDigest(definition, { pinVersion: 1 })).toBe(
      canonicalDigest({ name: "t" }, { pinVersion: 1 }),
    );
  });

  it("read only own fields: a description on the prototype is not the tool's", () => {
    const inherited = Object.create({ description: "from the prototype" });
    inherited.name = "t";
    expect(canonicalDigest(inherited)).toBe(canonicalDigest({ name: "t" }));
    const inheritedName = Object.create({ name: "t" });
    expect(() => canonicalDigest(inheritedName)).toThrow(
      expect.objectContaining({ code: "INVALID_TOOL_DEFINITION" }),
    );
    const nullProto = Object.assign(Object.create(null), { name: "t" });
    expect(canonicalDigest(nullProto)).toBe(canonicalDigest({ name: "t" }));
  });
});

describe("the structural comparison of check() on hostile definitions", () => {
  it("a deep approved definition compares without recursion; a deeper, wider or cyclic one is refused by the digest", () => {
    const guard = new ToolDefinitionPinGuard();
    const deep = { name: "t", inputSchema: deepObject(999) };
    guard.approve(deep);
    expect(guard.check({ name: "t", inputSchema: deepObject(999) }).verdict).toBe("allow_pinned");
    // One level more than the approved copy: not the same, and past the depth limit.
    expect(() => guard.check({ name: "t", inputSchema: deepObject(100_000) })).toThrow(
      expect.objectContaining({ code: "CANONICAL_DEPTH" }),
    );
    const cyclic: Record<string, unknown> = {};
    cyclic.a = cyclic;
    expect(() => guard.check({ name: "t", inputSchema: cyclic })).toThrow(
      expect.objectContaining({ code: "CANONICAL_CYCLE" }),
    );
    const wide = Object.fromEntries(Array.from({ length: 100_000 }, (_, i) => [`k${i}`, i]));
    expect(guard.check({ name: "t", inputSchema: wide }).verdict).toBe("deny_schema_drift");
  });

  it("an approved copy is not the caller's: approving a deep-frozen definition and checking it changes nothing", () => {
    const freeze = (v: unknown): unknown => {
      if (typeof v === "object" && v !== null) {
        for (const x of Object.values(v)) freeze(x);
        Object.freeze(v);
      }
      return v;
    };
    const definition = freeze({
      name: "t",
      inputSchema: { type: "object", properties: { a: { type: "string" } } },
      annotations: { readOnlyHint: true, title: null },
    }) as Record<string, unknown>;
    const before = JSON.stringify(definition);
    const guard = new ToolDefinitionPinGuard();
    guard.approve(definition);
    expect(guard.check(definition).verdict).toBe("allow_pinned");
    expect(guard.check({ ...definition, description: "x" }).verdict).toBe("deny_description_drift");
    guard.pin("t", canonicalDigest(definition), { definition });
    expect(JSON.stringify(definition)).toBe(before);
    const copy = guard.approvedDefinition("t")!;
    expect(Object.isFrozen(copy)).toBe(false);
    expect(copy).toEqual({ ...definition });
  });
});
