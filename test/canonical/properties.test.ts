import canonicalize from "canonicalize";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  canonicalDigest,
  definitionSha256,
  jcsCanonicalize,
  pythonCanonicalJson,
} from "../../src/canonical/index.js";
import { CanonicalizationError } from "../../src/errors.js";

// Rebuild a JSON value with every object's keys inserted in a permuted order.
function permuteKeys(value: unknown, seed: number): unknown {
  if (Array.isArray(value)) return value.map((v, i) => permuteKeys(v, seed + i));
  if (value !== null && typeof value === "object") {
    const entries = Object.entries(value);
    const rotated = entries.map((_, i) => entries[(i + seed) % entries.length]!).reverse();
    return Object.fromEntries(rotated.map(([k, v]) => [k, permuteKeys(v, seed + 1)]));
  }
  return value;
}

const json = fc.jsonValue({ maxDepth: 5 });
const definition = fc.record(
  {
    name: fc.string({ minLength: 1 }),
    description: fc.string(),
    inputSchema: json,
    annotations: json,
    outputSchema: json,
  },
  { requiredKeys: ["name"] },
);

describe("canonical digests: properties", () => {
  it("any permutation of object keys gives the same digest (v1, v2, JCS)", () => {
    fc.assert(
      fc.property(definition, fc.nat(), (def, seed) => {
        const shuffled = permuteKeys(def, seed);
        expect(canonicalDigest(shuffled)).toBe(canonicalDigest(def));
        expect(canonicalDigest(shuffled, { pinVersion: 1 })).toBe(
          canonicalDigest(def, { pinVersion: 1 }),
        );
        expect(definitionSha256(shuffled)).toBe(definitionSha256(def));
      }),
    );
  });

  it("v2: null members in annotations and outputSchema are dropped at any depth", () => {
    // Insert null members into objects at random places; the digest must not move.
    const withNulls = (value: unknown, salt: number): unknown => {
      if (Array.isArray(value)) return value.map((v, i) => withNulls(v, salt + i));
      if (value !== null && typeof value === "object") {
        const entries = Object.entries(value)
          .filter(([, v]) => v !== null)
          .map(([k, v]): [string, unknown] => [k, withNulls(v, salt + 1)]);
        // fromEntries defines own members, so a generated "__proto__" key stays a key.
        return Object.fromEntries([...entries, [`added_null_${salt}`, null]]);
      }
      return value;
    };
    const stripped = (value: unknown): unknown => {
      if (Array.isArray(value)) return value.map(stripped);
      if (value !== null && typeof value === "object") {
        return Object.fromEntries(
          Object.entries(value)
            .filter(([, v]) => v !== null)
            .map(([k, v]) => [k, stripped(v)]),
        );
      }
      return value;
    };
    fc.assert(
      fc.property(fc.string({ minLength: 1 }), json, json, fc.nat(), (name, ann, out, salt) => {
        const clean = { name, annotations: stripped(ann), outputSchema: stripped(out) };
        const noisy = {
          name,
          annotations: withNulls(ann, salt),
          outputSchema: withNulls(out, salt),
        };
        expect(canonicalDigest(noisy)).toBe(canonicalDigest(clean));
      }),
    );
  });

  it("v2: absent, null and {} read the same for annotations and outputSchema", () => {
    fc.assert(
      fc.property(
        fc.string({ minLength: 1 }),
        fc.constantFrom(undefined, null, {}, { a: null }),
        fc.constantFrom(undefined, null, {}, { b: null, c: null }),
        (name, annotations, outputSchema) => {
          expect(canonicalDigest({ name, annotations, outputSchema })).toBe(
            canonicalDigest({ name }),
          );
        },
      ),
    );
  });

  it("any JSON value canonicalises or throws CanonicalizationError, never anything else", () => {
    const anything = fc.oneof(
      fc.jsonValue(),
      fc.anything({ withBigInt: true, withMap: true, withSet: true, withDate: true }),
      fc.double().map((d) => ({ d })),
      fc.string({ unit: "binary" }).map((s) => ({ s })),
    );
    fc.assert(
      fc.property(anything, (value) => {
        for (const write of [jcsCanonicalize, pythonCanonicalJson]) {
          try {
            expect(typeof write(value)).toBe("string");
          } catch (err) {
            expect(err).toBeInstanceOf(CanonicalizationError);
          }
        }
      }),
      { numRuns: 300 },
    );
  });

  it("JCS text equals the canonicalize library's on JSON values (differential oracle)", () => {
    fc.assert(
      fc.property(fc.jsonValue(), (value) => {
        expect(jcsCanonicalize(value)).toBe(canonicalize(value));
      }),
    );
  });

  it("Python text parses back to the same value", () => {
    fc.assert(
      fc.property(fc.jsonValue(), (value) => {
        const normalised = JSON.parse(JSON.stringify(value));
        expect(JSON.parse(pythonCanonicalJson(value))).toEqual(normalised);
      }),
    );
  });
});
