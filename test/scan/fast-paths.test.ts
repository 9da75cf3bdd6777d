/**
 * The speed work replaced per-list Set lookups, per-key `Object.hasOwn` calls and
 * picomatch's result objects with flag tables, one own-key read per schema object and a
 * direct regex test. Each fast path must give exactly the answers of the code it replaced
 * (kept under ./reference), on JSON data and on hostile in-memory objects alike.
 */
import fc from "fast-check";
import picomatch from "picomatch";
import { describe, expect, it } from "vitest";
import { CAPABILITIES, inferCapabilities } from "../../src/scan/capabilities.js";
import { nameSkeleton, skeletonHash } from "../../src/scan/confusables.js";
import type { SecurityPolicy } from "../../src/scan/policy.js";
import { compilePolicy, LITERAL_GLOB } from "../../src/scan/policy-match.js";
import { MAX_NAMED_COLLISIONS, nameFindings } from "../../src/scan/rules/names.js";
import { schemaFindings } from "../../src/scan/rules/schema.js";
import { wordTokens } from "../../src/scan/tokens.js";
import type { Finding, LoadedTool, NameRelation } from "../../src/scan/types.js";
import {
  AMBIGUOUS_VERBS,
  CODE_ARGUMENTS,
  CODE_TOKENS,
  CONJUNCTIONS,
  DB_ARGUMENTS,
  DB_TOKENS,
  DELETE_VERBS,
  DETACH_VERBS,
  EXEC_ARGUMENTS,
  EXEC_TOKENS,
  FILE_TOKENS,
  MESSAGE_TOKENS,
  NETWORK_ARGUMENTS,
  NETWORK_TOKENS,
  OPEN_WORLD_TOKENS,
  READ_VERBS,
  RUN_VERBS,
  SECRET_BIGRAMS,
  SECRET_TOKENS,
  SENSITIVE_ARGUMENT_TOKENS,
  SOCKET_TOKENS,
  WRITE_VERBS,
} from "../../src/scan/vocabulary.js";
import { referenceInferCapabilities } from "./reference/capabilities.js";
import { referenceNameFindings } from "./reference/names.js";
import { referenceCompilePolicy } from "./reference/policy-match.js";
import { referenceSchemaFindings } from "./reference/schema.js";
import { referenceWordTokens } from "./reference/tokens.js";

const RUNS = { numRuns: 1500 };

const VOCABULARY = [
  ...new Set(
    [
      READ_VERBS,
      WRITE_VERBS,
      DELETE_VERBS,
      AMBIGUOUS_VERBS,
      EXEC_TOKENS,
      RUN_VERBS,
      FILE_TOKENS,
      NETWORK_TOKENS,
      SOCKET_TOKENS,
      DB_TOKENS,
      SECRET_TOKENS,
      MESSAGE_TOKENS,
      CONJUNCTIONS,
      DETACH_VERBS,
      CODE_TOKENS,
      OPEN_WORLD_TOKENS,
    ].flatMap((s) => [...s]),
  ),
  ...[...SECRET_BIGRAMS].flatMap((b) => b.split(" ")),
  "profile",
  "x",
  "cathedral",
  "v2",
  "__proto__",
];

/** A word as a name might spell it: lower, Title or UPPER case. */
const spelledWord = fc
  .tuple(fc.oneof(fc.constantFrom(...VOCABULARY), fc.string({ maxLength: 6 })), fc.nat(2))
  .map(([w, c]) =>
    c === 0 ? w : c === 1 ? w.charAt(0).toUpperCase() + w.slice(1) : w.toUpperCase(),
  );

const toolName = fc
  .tuple(fc.array(spelledWord, { maxLength: 5 }), fc.constantFrom("_", "-", ".", " ", "", "/"))
  .map(([words, sep]) => words.join(sep));

const argumentName = fc.oneof(
  fc.constantFrom(
    ...[
      ...EXEC_ARGUMENTS,
      ...NETWORK_ARGUMENTS,
      ...DB_ARGUMENTS,
      ...CODE_ARGUMENTS,
      ...SENSITIVE_ARGUMENT_TOKENS,
    ],
    "Command",
    "URL",
    "Sql",
    "file_path",
    "targetUrl",
    "q",
    "__proto__",
  ),
  fc.string({ maxLength: 8 }),
);

const hint = fc.constantFrom(true, false, undefined, "true", 1);

/** Descriptions with and without the words that make a code argument code to run. */
const description = fc.oneof(
  fc.constantFrom("Run arbitrary JavaScript (RCE-equivalent).", "The item code.", "", "eval"),
  fc.string({ maxLength: 12 }),
);

const argumentSchema = fc.oneof(
  fc.constant({ type: "string" }),
  description.map((d) => ({ type: "string", description: d })),
);

describe("word tokens: the char-code pass for ASCII names splits like the general pass", () => {
  const identifier = fc.oneof(
    fc.string({ unit: fc.constantFrom(..."aZbY09_-. /Ié"), maxLength: 24 }),
    fc.string({ unit: "binary-ascii", maxLength: 24 }),
    fc.string({ unit: "grapheme", maxLength: 12 }),
  );

  it("on generated identifiers, ASCII and not", () => {
    fc.assert(
      fc.property(identifier, (name) => {
        const tokens = wordTokens(name);
        expect(tokens).toEqual(referenceWordTokens(name));
        expect(Object.isFrozen(tokens)).toBe(true);
      }),
      RUNS,
    );
  });

  it("remembers nothing between calls: each call splits afresh", () => {
    const first = wordTokens("readFile_v2");
    expect(wordTokens("readFile_v2")).not.toBe(first);
    expect(wordTokens("readFile_v2")).toEqual(first);
  });
});

describe("capability inference: the flag table answers like the word lists", () => {
  it("on generated names, annotations, arguments and capability lists", () => {
    fc.assert(
      fc.property(
        toolName,
        fc.option(fc.record({ readOnlyHint: hint, destructiveHint: hint, openWorldHint: hint })),
        fc.option(fc.dictionary(argumentName, argumentSchema, { maxKeys: 4 })),
        fc.option(
          fc.array(fc.oneof(fc.constantFrom(...CAPABILITIES, "fs.remove", "x.get"), fc.string()), {
            maxLength: 3,
          }),
        ),
        fc.boolean(),
        fc.option(description),
        (name, annotations, properties, capabilities, narrow, text) => {
          const tool = JSON.parse(
            JSON.stringify({
              name,
              description: text ?? undefined,
              annotations: annotations ?? undefined,
              inputSchema: properties === null ? undefined : { type: "object", properties },
              capabilities: capabilities ?? undefined,
            }),
          );
          const options = { annotationsMayNarrow: narrow };
          expect(inferCapabilities(tool, options)).toEqual(
            referenceInferCapabilities(tool, options),
          );
        },
      ),
      RUNS,
    );
  });
});

/** JSON Schemas over the keywords the rules read, with property names the rules care about. */
const { schema } = fc.letrec<{ schema: unknown; node: Record<string, unknown> }>((tie) => ({
  schema: fc.oneof({ maxDepth: 4, withCrossShrink: true }, fc.boolean(), tie("node")),
  node: fc.record(
    {
      type: fc.constantFrom("string", "object", "array", "integer", ["string", "null"], ["object"]),
      description: fc.constant("d"),
      title: fc.constant("t"),
      enum: fc.constant(["a"]),
      const: fc.constant("a"),
      $ref: fc.constantFrom("#/$defs/a", "https://example.com/s.json", "other.json", 5),
      $dynamicRef: fc.constantFrom("#meta", "https://example.com/d"),
      $recursiveRef: fc.constantFrom("#", "r.json"),
      properties: fc.dictionary(argumentName, tie("schema"), { maxKeys: 3 }),
      patternProperties: fc.dictionary(fc.constantFrom("^a", "^b"), tie("schema"), {
        maxKeys: 1,
      }),
      $defs: fc.dictionary(fc.constantFrom("a", "b/c", "d~e"), tie("schema"), { maxKeys: 2 }),
      items: fc.oneof(tie("schema"), fc.array(tie("schema"), { maxLength: 2 })),
      prefixItems: fc.array(tie("schema"), { maxLength: 2 }),
      anyOf: fc.array(tie("schema"), { maxLength: 3 }),
      oneOf: fc.array(tie("schema"), { maxLength: 3 }),
      allOf: fc.array(tie("schema"), { maxLength: 3 }),
      not: tie("schema"),
      if: tie("schema"),
      // biome-ignore lint/suspicious/noThenProperty: JSON Schema's if/then/else keyword
      then: tie("schema"),
      additionalProperties: fc.oneof(fc.boolean(), tie("schema")),
      unevaluatedProperties: fc.boolean(),
      pattern: fc.constant("^a"),
      format: fc.constant("uri"),
      maxLength: fc.constant(10),
      minimum: fc.constant(0),
      required: fc.constant(["a"]),
      default: fc.constant({ type: "string", $ref: "https://example.com/not-a-schema" }),
    },
    { requiredKeys: [] },
  ),
}));

const PROFILES = [
  { mutating: false, additiveOnly: false },
  { mutating: true, additiveOnly: false },
  { mutating: true, additiveOnly: true },
].map((p) => ({
  ...p,
  capabilities: [],
  access: null,
  evidenceAccess: null,
  openWorldEvidence: null,
}));

/**
 * Make an object's key hidden from enumeration but still its own (Object.hasOwn sees it,
 * a for-in does not), or inherited (a for-in sees it, Object.hasOwn does not).
 */
function camouflage(value: unknown, how: number): unknown {
  if (typeof value !== "object" || value === null || Array.isArray(value)) return value;
  const keys = Object.keys(value);
  const key = keys[how % Math.max(1, keys.length)];
  if (key === undefined) return value;
  const v = (value as Record<string, unknown>)[key];
  if (how % 2 === 0) {
    Object.defineProperty(value, key, { value: v, enumerable: false });
    return value;
  }
  const rest = { ...(value as Record<string, unknown>) };
  delete rest[key];
  return Object.assign(Object.create({ [key]: v }), rest);
}

/** Every object of a value, parents before children. */
function objectsOf(value: unknown, out: object[] = []): object[] {
  if (typeof value !== "object" || value === null) return out;
  out.push(value);
  for (const v of Object.values(value)) objectsOf(v, out);
  return out;
}

describe("schema rules: one own-key read per object answers like Object.hasOwn per key", () => {
  it("on generated JSON schemas", () => {
    fc.assert(
      fc.property(
        fc.oneof(schema, fc.constantFrom(null, 3, "s", [])),
        fc.option(schema),
        fc.nat(2),
        (input, output, p) => {
          const tool = JSON.parse(
            JSON.stringify({ name: "t", inputSchema: input, outputSchema: output }),
          );
          const profile = PROFILES[p]!;
          expect(schemaFindings(tool, profile)).toEqual(referenceSchemaFindings(tool, profile));
        },
      ),
      { numRuns: 600 },
    );
  });

  it("on in-memory schemas with non-enumerable and inherited keys", () => {
    fc.assert(
      fc.property(schema, fc.array(fc.nat(40), { maxLength: 4 }), (input, picks) => {
        const root = { type: "object", properties: { path: input, url: input } };
        const objects = objectsOf(root);
        // Rebuild parents after camouflaging a child would lose the link: change in place,
        // and replace inherited-key objects in their parent's slot.
        for (const pick of picks) {
          const target = objects[pick % objects.length]!;
          for (const parent of objects) {
            for (const [k, v] of Object.entries(parent)) {
              if (v === target) (parent as Record<string, unknown>)[k] = camouflage(v, pick);
            }
          }
        }
        const tool = { name: "t", inputSchema: root, outputSchema: root };
        expect(schemaFindings(tool, PROFILES[1]!)).toEqual(
          referenceSchemaFindings(tool, PROFILES[1]!),
        );
      }),
      { numRuns: 500 },
    );
  });

  it("on shared, cyclic and over-deep in-memory schemas", () => {
    const shared = { type: "string", $ref: "https://example.com/x" };
    const cyclic: Record<string, unknown> = { type: "object", anyOf: [true] };
    cyclic.properties = { self: cyclic, path: shared, url: shared };
    let deep: unknown = { type: "string" };
    for (let i = 0; i < 140; i++) deep = { type: "array", items: deep, $ref: `r${i}.json` };
    // A cycle through more objects than the walk's short list of seen objects holds.
    const ring: Record<string, unknown>[] = Array.from({ length: 40 }, (_, i) => ({
      type: "object",
      $ref: `ring${i}.json`,
    }));
    ring.forEach((o, i) => {
      o.properties = { next: ring[(i + 1) % ring.length], path: { type: "string" } };
    });
    const wide = {
      type: "object",
      properties: Object.fromEntries(Array.from({ length: 60_000 }, (_, i) => [`p${i}`, {}])),
    };
    for (const inputSchema of [
      cyclic,
      ring[0],
      deep,
      wide,
      { properties: { a: shared, b: shared } },
    ]) {
      const tool = { name: "t", inputSchema, outputSchema: inputSchema };
      expect(schemaFindings(tool, PROFILES[1]!)).toEqual(
        referenceSchemaFindings(tool, PROFILES[1]!),
      );
    }
  });
});

const globPart = fc.constantFrom(
  "*",
  "**",
  "?",
  "a",
  "b",
  ".",
  "/",
  "{a,b}",
  "[ab]",
  "!",
  "\\",
  "x.",
);
const glob = fc.array(globPart, { minLength: 1, maxLength: 4 }).map((parts) => parts.join(""));
const value = fc.oneof(
  fc
    .array(fc.constantFrom("a", "b", ".", "/", "\\", "x", "..", "\n", "é"), { maxLength: 5 })
    .map((parts) => parts.join("")),
  fc.constantFrom(...CAPABILITIES),
);

describe("policy matching: a direct regex test answers like picomatch's matcher", () => {
  it("on generated globs, tool names, servers and capabilities", () => {
    fc.assert(
      fc.property(
        fc.array(glob, { maxLength: 3 }),
        fc.array(glob, { maxLength: 2 }),
        fc.array(glob, { maxLength: 2 }),
        fc.array(fc.tuple(value, fc.option(value)), { minLength: 1, maxLength: 5 }),
        (allow, deny, caps, probes) => {
          const policy: SecurityPolicy = {
            name: "p",
            description: "",
            allow,
            deny,
            capabilities: {
              granted: caps,
              denied: deny.filter((g) => !g.includes("/")),
              sandboxOnly: allow.slice(1),
              annotationsMayNarrow: true,
            },
          };
          const fast = compilePolicy(policy);
          const slow = referenceCompilePolicy(policy);
          for (const [name, server] of probes) {
            expect(fast.tool(name, server)).toEqual(slow.tool(name, server));
            expect(fast.capability(name)).toEqual(slow.capability(name));
          }
          for (const cap of CAPABILITIES)
            expect(fast.capability(cap)).toEqual(slow.capability(cap));
        },
      ),
      RUNS,
    );
  });
});

const literalPart = fc.constantFrom("a", "B", "z9", "_", "-", "read", "0");
const literalGlob = fc
  .array(fc.array(literalPart, { minLength: 1, maxLength: 3 }), { minLength: 1, maxLength: 3 })
  .map((runs) => runs.map((run) => run.join("")).join("."));

describe("policy matching: a literal glob is a map entry, and picomatch matches it against itself alone", () => {
  it("on generated literal globs and names near them", () => {
    fc.assert(
      fc.property(
        literalGlob,
        fc.constantFrom("", ".", "./", "/", "\\", "A", "a", "*", "\n"),
        fc.boolean(),
        (literal, extra, before) => {
          expect(LITERAL_GLOB.test(literal)).toBe(true);
          const matcher = picomatch(literal, { dot: true });
          for (const probe of [
            literal,
            before ? `${extra}${literal}` : `${literal}${extra}`,
            literal.toUpperCase(),
            literal.slice(1),
          ]) {
            expect(matcher(probe)).toBe(probe === literal);
          }
        },
      ),
      RUNS,
    );
  });
  it("a policy of many literal globs answers like the reference, first glob in list order", () => {
    const allow = ["b*", ...Array.from({ length: 50 }, (_, i) => `tool_${i}`), "tool_7", "*"];
    const deny = ["tool_3", "t*_4"];
    const policy: SecurityPolicy = {
      name: "p",
      description: "",
      allow,
      deny,
      capabilities: { granted: allow, denied: deny, sandboxOnly: [], annotationsMayNarrow: true },
    };
    const fast = compilePolicy(policy);
    const slow = referenceCompilePolicy(policy);
    for (const name of ["tool_1", "tool_3", "tool_4", "tool_7", "tool_49", "tool_50", "b", "x"]) {
      expect(fast.tool(name, null)).toEqual(slow.tool(name, null));
      expect(fast.capability(name)).toEqual(slow.capability(name));
    }
  });
});

/** Name pieces that collide under the skeleton: case, digits for letters, separators, scripts. */
const namePiece = fc.constantFrom(
  "read",
  "READ",
  "file",
  "fiIe",
  "f1le",
  "rn",
  "m",
  "vv",
  "w",
  "VV",
  "_",
  "-",
  ".",
  " ",
  "0",
  "o",
  "а", // Cyrillic a
  "і", // Cyrillic i
  "\u200b",
  "é",
  "ｆ",
  "\t",
);
const lookAlikeName = fc
  .array(namePiece, { minLength: 1, maxLength: 5 })
  .map((parts) => parts.join(""));

const isCollision = (f: Finding) => f.collisions !== undefined || f.message.includes("shadow");
const RELATION_OF: [string, NameRelation][] = [
  ["listed again with an identical definition", "identical"],
  ["duplicate name", "duplicate"],
  ["differs only in case", "case"],
  ["looks like", "look-alike"],
];

/** The reference's one finding per other member, read as: how many, which relations, the grade. */
function summarisePairs(findings: Finding[]) {
  const pairs = findings.filter(isCollision);
  const relation = (f: Finding) => RELATION_OF.find(([text]) => f.message.includes(text))![1];
  return {
    count: pairs.length,
    firstRelations: pairs.slice(0, MAX_NAMED_COLLISIONS).map(relation),
    grade: pairs.length === 0 ? null : pairs.some((f) => f.grade === "fail") ? "fail" : "warn",
    single: findings.filter((f) => !isCollision(f)),
    message: pairs.length === 1 ? pairs[0]!.message : null,
  };
}

/** The grouped finding, read the same way. */
function summariseGroup(findings: Finding[]) {
  const group = findings.find(isCollision);
  return {
    count: group?.collisions?.count ?? 0,
    firstRelations: group?.collisions?.tools.map((t) => t.relation) ?? [],
    grade: group?.grade ?? null,
    single: findings.filter((f) => !isCollision(f)),
    message: group?.collisions?.count === 1 ? group.message : null,
  };
}

describe("look-alike names: grouping by skeleton hash first answers like grouping by skeleton", () => {
  it("equal skeletons always have equal hashes", () => {
    fc.assert(
      fc.property(lookAlikeName, lookAlikeName, (a, b) => {
        if (nameSkeleton(a) === nameSkeleton(b)) expect(skeletonHash(a)).toBe(skeletonHash(b));
      }),
      RUNS,
    );
    expect(skeletonHash("rn_vv")).toBe(skeletonHash("m_w"));
    expect(skeletonHash("read-fіle")).toBe(skeletonHash("READ_FILE"));
  });

  it("on generated tool lists full of duplicates and look-alikes, one grouped finding per tool tells what the pairwise findings told", () => {
    fc.assert(
      fc.property(
        fc.array(fc.tuple(lookAlikeName, fc.constantFrom(null, "a", "b")), { maxLength: 12 }),
        (entries) => {
          const tools: LoadedTool[] = entries.map(([name, server]) => ({
            definition: { name },
            server,
            source: "memory",
          }));
          // Parity as the identity: same(a, b) exactly when definitionKey(a) === definitionKey(b).
          const same = (a: number, b: number) => (a + b) % 2 === 0;
          const grouped = nameFindings(tools, (i) => String(i % 2));
          const pairwise = referenceNameFindings(tools, same);
          expect([...grouped.keys()].sort()).toEqual([...pairwise.keys()].sort());
          for (const [i, expected] of pairwise) {
            expect(summarisePairs(expected)).toEqual(summariseGroup(grouped.get(i)!));
          }
        },
      ),
      RUNS,
    );
  });
});
