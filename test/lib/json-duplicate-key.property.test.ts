/**
 * src/lib/json-duplicate-key.ts on any JSON: a text JSON.stringify wrote never has a
 * duplicate (whatever the indentation and the characters in keys and strings), and a
 * member repeated inside any object is found, with the pointer of that object.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { findDuplicateKey } from "../../src/lib/json-duplicate-key.js";

const key = fc.oneof(
  fc.string({ maxLength: 6 }),
  fc.constantFrom('"', "\\", "\\u0061", "a", "/", "~", "__proto__"),
);
const value = fc.letrec((tie) => ({
  any: fc.oneof({ depthSize: "small" }, fc.jsonValue({ maxDepth: 1 }), tie("object"), tie("array")),
  object: fc.dictionary(key, tie("any"), { maxKeys: 4 }),
  array: fc.array(tie("any"), { maxLength: 4 }),
})).any;

const pointerSegment = (s: string) => `/${s.replaceAll("~", "~0").replaceAll("/", "~1")}`;

describe("findDuplicateKey", () => {
  it("finds nothing in what JSON.stringify writes", () => {
    fc.assert(
      fc.property(value, fc.constantFrom(undefined, 2, "\t"), (v, indent) => {
        expect(findDuplicateKey(JSON.stringify(v, null, indent))).toBeNull();
      }),
      { numRuns: 2_000 },
    );
  });

  it("finds a member repeated in an object, at any depth, with its pointer", () => {
    fc.assert(
      fc.property(fc.array(key, { maxLength: 5 }), key, value, (path, name, v) => {
        // {"p0":{"p1":{...{"name":v,"name":v}}}}: the repeat sits under the pointer of `path`.
        const inner = `{${JSON.stringify(name)}:${JSON.stringify(v)},${JSON.stringify(name)}:1}`;
        const text = path.reduceRight((acc, p) => `{${JSON.stringify(p)}:${acc}}`, inner);
        const found = findDuplicateKey(text);
        expect(found?.key).toBe(name);
        expect(found?.pointer).toBe(path.map(pointerSegment).join(""));
      }),
      { numRuns: 2_000 },
    );
  });

  it("compares decoded keys and gives the line and column of the second copy", () => {
    expect(findDuplicateKey('{\n  "a": 1,\n  "\\u0061": 2\n}')).toEqual({
      key: "a",
      pointer: "",
      line: 3,
      column: 3,
    });
    expect(findDuplicateKey('[{"a":1},{"a":1},{"b":[{"c":1,"c":2}]}]')).toMatchObject({
      key: "c",
      pointer: "/2/b/0",
    });
  });
});
