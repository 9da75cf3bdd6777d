/**
 * The structural comparison that lets `check()` admit an unchanged tool without hashing
 * must say "same" exactly when the digests are equal. Random definitions (JSON data with
 * the awkward parts: -0, lone surrogates, `__proto__` keys, prototype-less objects, nulls,
 * strings that look like numbers) meet random mutations (a leaf replaced, a member added,
 * removed, nulled or left undefined, an array turned into an object, a field emptied, NaN,
 * bookkeeping fields changed), and the structural verdict is held to the digest verdict.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { digestOfTexts, pinnedFieldTexts, readApprovedFields } from "../../src/canonical/digest.js";
import { samePinnedFields } from "../../src/canonical/same-pinned.js";
import { ToolDefinitionPinGuard } from "../../src/pins/guard.js";
import type { PinVersion } from "../../src/pins/types.js";

const RUNS = { numRuns: 3_000 };

const leaf = fc.oneof(
  fc.constant(null),
  fc.boolean(),
  fc.integer({ min: -2, max: 2 }),
  fc.constantFrom(0, -0, 1, 1.5, -2.5, 1e21, 2 ** 53 + 2, 1e-7, 0.1),
  fc.constantFrom("", "0", "1", "a", "null", "\ud800", "x\udc00", "é", "😀", "__proto__"),
  fc.string({ unit: "binary", maxLength: 3 }),
);
const key = fc.constantFrom(
  "a",
  "b",
  "type",
  "0",
  "1",
  "__proto__",
  "constructor",
  "toString",
  "é",
);
const { value } = fc.letrec((tie) => ({
  value: fc.oneof(
    { depthSize: "small", withCrossShrink: true },
    leaf,
    fc.array(tie("value"), { maxLength: 3 }),
    // Some with no prototype: the serialiser reads them as plain objects.
    fc.dictionary(key, tie("value"), { maxKeys: 3 }),
  ),
}));
const definition = fc.record(
  {
    name: fc.constant("t"),
    description: fc.oneof(fc.string({ unit: "binary", maxLength: 4 }), value),
    inputSchema: value,
    annotations: value,
    outputSchema: value,
    title: value,
  },
  { requiredKeys: ["name"] },
);

/** A deep copy with every object's keys in reverse order and its prototype kept. */
function clone(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(clone);
  if (typeof v !== "object" || v === null) return v;
  const out = Object.create(Object.getPrototypeOf(v)) as Record<string, unknown>;
  for (const k of Object.keys(v).reverse()) {
    Object.defineProperty(out, k, {
      value: clone((v as Record<string, unknown>)[k]),
      enumerable: true,
      writable: true,
      configurable: true,
    });
  }
  return out;
}

/** Every container of a value, depth first (the definition itself first). */
function containers(root: unknown): object[] {
  const out: object[] = [];
  const stack = [root];
  while (stack.length > 0) {
    const v = stack.pop();
    if (typeof v !== "object" || v === null) continue;
    out.push(v);
    stack.push(...(Array.isArray(v) ? v : Object.values(v)));
  }
  return out;
}

const define = (o: object, k: string, v: unknown) =>
  Object.defineProperty(o, k, { value: v, enumerable: true, writable: true, configurable: true });

type Mutation = { kind: string; pick: number; with: unknown; rename: string };
const FIELDS = ["description", "inputSchema", "annotations", "outputSchema", "title", "_meta"];
const mutation: fc.Arbitrary<Mutation> = fc.record({
  kind: fc.constantFrom(
    "replace",
    "add-null",
    "add-undefined",
    "add",
    "remove",
    "element-undefined",
    "array-to-object",
    "field",
    "field-empty",
    "negate-zero",
    "number-to-string",
    "nan",
    "rename",
  ),
  pick: fc.nat(),
  with: value,
  rename: fc.constantFrom("__proto__", "constructor", "toString", "valueOf", "a"),
});

/** Apply one mutation in place to `def` (a clone). */
function mutate(def: Record<string, unknown>, m: Mutation): void {
  const nodes = containers(def).slice(1);
  const node = nodes.length === 0 ? null : nodes[m.pick % nodes.length]!;
  const keys = node && !Array.isArray(node) ? Object.keys(node) : [];
  const at = keys.length > 0 ? keys[m.pick % keys.length]! : "a";
  const field = FIELDS[m.pick % FIELDS.length]!;
  switch (m.kind) {
    case "replace":
      if (Array.isArray(node) && node.length > 0) node[m.pick % node.length] = m.with;
      else if (node) define(node, at, m.with);
      return;
    case "add-null":
      if (node && !Array.isArray(node)) define(node, `n${m.pick % 3}`, null);
      return;
    case "add-undefined":
      if (node && !Array.isArray(node)) define(node, `u${m.pick % 3}`, undefined);
      return;
    case "add":
      if (Array.isArray(node)) node.push(m.with);
      else if (node) define(node, `k${m.pick % 3}`, m.with);
      return;
    case "remove":
      if (Array.isArray(node)) node.pop();
      else if (node && keys.length > 0) delete (node as Record<string, unknown>)[at];
      return;
    case "element-undefined":
      if (Array.isArray(node) && node.length > 0) {
        const i = m.pick % node.length;
        node[i] = node[i] === null ? undefined : null;
      }
      return;
    case "array-to-object":
      // The first array member of `node` becomes an object with index keys.
      for (const k of node ? Object.keys(node) : []) {
        const member = (node as Record<string, unknown>)[k];
        if (Array.isArray(member)) {
          define(node!, k, { ...member });
          return;
        }
      }
      return;
    case "field":
      define(def, field, m.with);
      return;
    case "rename":
      // A member moved to another key, one the prototype also answers to: `{}` and `[]`
      // are what an inherited `__proto__` or a method would compare with.
      if (node && !Array.isArray(node) && keys.length > 0) {
        const moved = (node as Record<string, unknown>)[at];
        delete (node as Record<string, unknown>)[at];
        define(node, m.rename, [moved, {}, [], m.with][m.pick % 4]);
      }
      return;
    case "field-empty": {
      const empty = [undefined, null, {}, { x: null }, Object.create(null)][m.pick % 5];
      if (empty === undefined) delete def[field];
      else define(def, field, empty);
      return;
    }
    case "negate-zero":
    case "number-to-string":
    case "nan":
      for (const n of nodes) {
        const k = Array.isArray(n)
          ? n.findIndex((x) => typeof x === "number")
          : Object.keys(n).find((x) => typeof (n as Record<string, unknown>)[x] === "number");
        if (k === undefined || k === -1) continue;
        const old = (n as Record<string, number>)[k as string]!;
        const next =
          m.kind === "negate-zero"
            ? old === 0
              ? Object.is(old, -0)
                ? 0
                : -0
              : -old
            : m.kind === "nan"
              ? Number.NaN
              : String(old);
        if (Array.isArray(n)) n[k as number] = next;
        else define(n, k as string, next);
        return;
      }
      return;
  }
}

/** The digest verdict: equal digests, or false when the observed one cannot be computed. */
function sameDigest(approvedDigest: string, observed: unknown, pinVersion: PinVersion): boolean {
  try {
    return digestOfTexts(pinnedFieldTexts(observed, pinVersion)) === approvedDigest;
  } catch {
    return false;
  }
}

describe("samePinnedFields agrees with digest equality", () => {
  it.each([2, 1] as const)(
    "version %i: on random definitions and random mutations",
    (pinVersion) => {
      fc.assert(
        fc.property(definition, fc.array(mutation, { maxLength: 3 }), (def, mutations) => {
          const { texts, approved } = readApprovedFields(def, pinVersion);
          const digest = digestOfTexts(texts);
          const observed = clone(def) as Record<string, unknown>;
          for (const m of mutations) mutate(observed, m);
          const structural = samePinnedFields(approved, observed, pinVersion);
          expect(structural).toBe(sameDigest(digest, observed, pinVersion));
          // No mutation at all: the fast path holds (the tool is never hashed).
          if (mutations.length === 0) expect(structural).toBe(true);
        }),
        RUNS,
      );
    },
  );

  it("check() gives the digest's verdict, whatever the comparison could read (toJSON, class instances)", () => {
    class SubArray extends Array {}
    const exotic = fc.constantFrom<(v: unknown) => unknown>(
      (v) => (Array.isArray(v) ? SubArray.from(clone(v) as unknown[]) : v),
      (v) => (Array.isArray(v) ? Object.setPrototypeOf(clone(v) as object, null) : v),
      (v) => ({ toJSON: () => clone(v) }),
      (v) =>
        new (class AsJson {
          toJSON() {
            return clone(v);
          }
        })(),
      () =>
        new (class Box {
          a = 1;
        })(),
      () => new Date(0),
      (v) => Object.setPrototypeOf({ ...(v as object) }, Array.prototype),
    );
    fc.assert(
      fc.property(definition, fc.nat(), exotic, (def, pick, wrap) => {
        const guard = new ToolDefinitionPinGuard();
        const digest = guard.approve(def);
        const observed = clone(def) as Record<string, unknown>;
        const nodes = containers(observed).slice(1);
        if (nodes.length > 0) {
          const node = nodes[pick % nodes.length]!;
          const keys = Object.keys(node);
          if (keys.length > 0) {
            const k = keys[pick % keys.length]!;
            define(node, k, wrap((node as Record<string, unknown>)[k]));
          }
        }
        const expected = sameDigest(digest, observed, 2);
        let verdict: string;
        try {
          verdict = guard.check(observed).verdict;
        } catch {
          verdict = "refused";
        }
        expect(verdict === "allow_pinned").toBe(expected);
        if (samePinnedFields(readApprovedFields(def, 2).approved, observed, 2)) {
          expect(expected).toBe(true);
        }
      }),
      RUNS,
    );
  });
});
