/**
 * The schema walk and the schema rules (before the speed work, commit 4b6c34c), kept verbatim as an oracle:
 * test/scan/fast-paths.test.ts checks that the faster code gives the same answers.
 */

import type { ToolDefinition } from "../../../src/pins/types.js";
import type { CapabilityProfile } from "../../../src/scan/capabilities.js";
import { esc } from "../../../src/scan/extract.js";
import { sdkConversion } from "../../../src/scan/sdk-schema.js";
import { wordTokens } from "../../../src/scan/tokens.js";
import type { Finding } from "../../../src/scan/types.js";
import { SENSITIVE_ARGUMENT_TOKENS } from "../../../src/scan/vocabulary.js";

const isObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === "object" && v !== null && !Array.isArray(v);
const has = (o: Record<string, unknown>, k: string) => Object.hasOwn(o, k);

const TYPE_KEYWORDS = ["type", "enum", "const", "$ref", "oneOf", "anyOf", "allOf", "not"];
const STRING_CONSTRAINTS = ["enum", "const", "pattern", "format", "maxLength"];
const CONSTRAINING = [
  ...TYPE_KEYWORDS,
  "properties",
  "items",
  "prefixItems",
  "pattern",
  "format",
  "minimum",
  "maximum",
  "minLength",
  "maxLength",
  "required",
  "additionalProperties",
  "patternProperties",
  "if",
  "$dynamicRef",
];

/**
 * The contract rules that read the schemas: SCAN003/SCAN004 (open argument surface),
 * SCAN005 (untyped or unconstrained sensitive arguments), SCAN009 (external `$ref`),
 * SCAN010 (ambiguous composition) and SCAN013 (a schema that cannot be analysed).
 */
export function referenceSchemaFindings(
  tool: ToolDefinition,
  profile: CapabilityProfile,
): Finding[] {
  const findings: Finding[] = [];
  const input = Object.hasOwn(tool, "inputSchema") ? tool.inputSchema : undefined;

  if (input !== undefined && !isObject(input) && typeof input !== "boolean") {
    findings.push({
      code: "SCAN013",
      grade: "fail",
      pointer: "/inputSchema",
      message: `inputSchema is ${input === null ? "null" : Array.isArray(input) ? "an array" : `a ${typeof input}`}, not a JSON Schema object`,
    });
  } else {
    const open = isOpen(input);
    if (open !== null) {
      const destructive = profile.mutating && !profile.additiveOnly;
      // The SDK's own validation drops undeclared arguments: the open contract is a
      // warning even on a mutating tool (sdk-schema.ts).
      const sdk = destructive && isObject(input) ? sdkConversion(input) : null;
      findings.push({
        code: destructive ? "SCAN003" : "SCAN004",
        grade: destructive && sdk === null ? "fail" : "warn",
        pointer: "/inputSchema",
        message: `${destructive ? "mutating tool" : "tool"} accepts undeclared arguments: ${open}${sdk === null ? "" : ` (the schema is ${sdk}, whose own validation drops undeclared arguments before the handler runs)`}`,
      });
    }
    if (isObject(input)) walkInput(input, findings);
  }

  const output = Object.hasOwn(tool, "outputSchema") ? tool.outputSchema : undefined;
  if (isObject(output)) {
    const bound = walkSchema(output, "/outputSchema", (node) => {
      externalRef(node, findings);
    });
    boundFinding(bound, findings);
  }
  return findings;
}

function isOpen(schema: unknown): string | null {
  if (schema === undefined) return "no inputSchema";
  if (schema === true) return "the inputSchema is `true`";
  if (!isObject(schema)) return null;
  if (schema.additionalProperties === false || schema.unevaluatedProperties === false) return null;
  if (
    schema.type !== undefined &&
    schema.type !== "object" &&
    !(Array.isArray(schema.type) && schema.type.includes("object"))
  ) {
    return null;
  }
  return has(schema, "additionalProperties")
    ? "additionalProperties is not false"
    : "additionalProperties is not set to false";
}

function walkInput(input: Record<string, unknown>, findings: Finding[]) {
  const bound = walkSchema(input, "/inputSchema", (node) => {
    const s = node.schema;
    externalRef(node, findings);
    if (node.property !== null) propertyFinding(node.property, s, node, findings);
    if (isObject(s)) composition(s, node, findings);
  });
  boundFinding(bound, findings);
}

function boundFinding(bound: ReturnType<typeof walkSchema>, findings: Finding[]) {
  if (bound.bound === null) return;
  findings.push({
    code: "SCAN013",
    grade: "fail",
    pointer: bound.node === null ? undefined : pointerOf(bound.node),
    message:
      bound.bound === "depth"
        ? `schema nested deeper than ${MAX_SCHEMA_DEPTH} levels: not analysed past this point`
        : `schema has more than ${MAX_SCHEMA_NODES} nodes: not analysed past this point`,
  });
}

function externalRef(node: SchemaNode, findings: Finding[]) {
  const schema = node.schema;
  if (!isObject(schema)) return;
  for (const key of ["$ref", "$dynamicRef", "$recursiveRef"]) {
    const ref = has(schema, key) ? schema[key] : undefined;
    if (typeof ref === "string" && !ref.startsWith("#")) {
      findings.push({
        code: "SCAN009",
        grade: "fail",
        pointer: `${pointerOf(node)}/${key}`,
        message: `${key} points outside the document (${JSON.stringify(ref.slice(0, 200))}): the real schema is unknowable offline`,
      });
    }
  }
}

function propertyFinding(name: string, schema: unknown, node: SchemaNode, findings: Finding[]) {
  const typed = isObject(schema) && has(schema, "type");
  if (
    schema === true ||
    (isObject(schema) && !typed && !CONSTRAINING.some((k) => has(schema, k)))
  ) {
    findings.push({
      code: "SCAN005",
      grade: "warn",
      pointer: pointerOf(node),
      message: `argument ${quote(name)} has no type constraint`,
    });
    return;
  }
  if (!isObject(schema)) return;
  if (!typed && !TYPE_KEYWORDS.some((k) => has(schema, k))) {
    findings.push({
      code: "SCAN005",
      grade: "warn",
      pointer: pointerOf(node),
      message: `argument ${quote(name)} has no type, enum, const or $ref`,
    });
    return;
  }
  if (!wordTokens(name).some((t) => SENSITIVE_ARGUMENT_TOKENS.has(t))) return;
  // A sensitive string, or an array of them.
  let leaf: Record<string, unknown> = schema;
  let suffix = "";
  if (isType(schema, "array") && isObject(schema.items)) {
    leaf = schema.items;
    suffix = "/items";
  }
  if (isType(leaf, "string") && !STRING_CONSTRAINTS.some((k) => has(leaf, k))) {
    findings.push({
      code: "SCAN005",
      grade: "warn",
      pointer: `${pointerOf(node)}${suffix}`,
      message: `sensitive string argument ${quote(name)} has no enum, pattern, format or maxLength`,
    });
  }
}

/** A property name for a message: quoted, and cut at 100 characters. */
function quote(name: string): string {
  return JSON.stringify(name.length > 100 ? `${name.slice(0, 100)}…` : name);
}

function isType(schema: Record<string, unknown>, type: string): boolean {
  const t = schema.type;
  return t === type || (Array.isArray(t) && t.includes(type));
}

function composition(schema: Record<string, unknown>, node: SchemaNode, findings: Finding[]) {
  const closedHere = schema.unevaluatedProperties === false;
  for (const key of ["oneOf", "anyOf", "allOf"]) {
    const branches = has(schema, key) ? schema[key] : undefined;
    if (!Array.isArray(branches)) continue;
    const reasons: string[] = [];
    branches.forEach((b, i) => {
      if (
        b === true ||
        (isObject(b) && Object.keys(b).every((k) => k === "description" || k === "title"))
      ) {
        reasons.push(`branch ${i} accepts anything`);
      } else if (
        isObject(b) &&
        !closedHere &&
        (isType(b, "object") || has(b, "properties")) &&
        b.additionalProperties !== false &&
        b.unevaluatedProperties !== false
      ) {
        reasons.push(`object branch ${i} is open (additionalProperties not false)`);
      }
    });
    if (reasons.length > 0) {
      findings.push({
        code: "SCAN010",
        grade: "warn",
        pointer: `${pointerOf(node)}/${key}`,
        message: `${key} hides the real argument surface: ${reasons.join("; ")}`,
      });
    }
  }
}

const MAX_SCHEMA_DEPTH = 128;
const MAX_SCHEMA_NODES = 50_000;

/** One schema position met by {@link walkSchema}. */
interface SchemaNode {
  /** The schema at this position (an object or a boolean). */
  schema: unknown;
  /** The enclosing schema position; null at the root. */
  parent: SchemaNode | null;
  /**
   * The root pointer at the root; elsewhere null, and the segments from the parent are
   * spelled from `via` and `member` only when a pointer is needed (most nodes never are).
   */
  segment: string | null;
  /** The member name (map keywords) or index (array keywords) under `via`; null for single subschemas. */
  member: string | number | null;
  /** Schema nesting depth (the root is 0). */
  depth: number;
  /** The keyword that led here (`properties`, `items`, `anyOf`, ...); null at the root. */
  via: string | null;
  /** For `properties` members: the property name. */
  property: string | null;
}

/** How a keyword's value holds subschemas. */
const KEYWORDS: ReadonlyMap<string, "single" | "map" | "array" | "items"> = new Map([
  ["additionalProperties", "single"],
  ["additionalItems", "single"],
  ["contains", "single"],
  ["not", "single"],
  ["if", "single"],
  ["then", "single"],
  ["else", "single"],
  ["propertyNames", "single"],
  ["unevaluatedItems", "single"],
  ["unevaluatedProperties", "single"],
  ["items", "items"],
  ["properties", "map"],
  ["patternProperties", "map"],
  ["$defs", "map"],
  ["definitions", "map"],
  ["dependentSchemas", "map"],
  ["allOf", "array"],
  ["anyOf", "array"],
  ["oneOf", "array"],
  ["prefixItems", "array"],
]);

/** A subschema is an object or a boolean; anything else under a keyword is not walked. */
const isSchema = (v: unknown): boolean => typeof v === "boolean" || isObject(v);

function child(
  schema: unknown,
  parent: SchemaNode,
  member: string | number | null,
  depth: number,
  via: string,
  property: string | null,
): SchemaNode {
  return { schema, parent, segment: null, member, depth, via, property };
}

/** The pointer segments from a node's parent to it (escaped), or the root pointer. */
function segmentOf(node: SchemaNode): string {
  if (node.segment !== null) return node.segment;
  const m = node.member;
  return m === null ? `/${node.via}` : `/${node.via}/${typeof m === "number" ? m : esc(m)}`;
}

/** The JSON pointer of a node, built on demand (only findings need it). */
function pointerOf(node: SchemaNode): string {
  const parts: string[] = [];
  for (let n: SchemaNode | null = node; n !== null; n = n.parent) parts.push(segmentOf(n));
  parts.reverse();
  return parts.join("");
}

/**
 * Visit every schema position of a JSON Schema, iteratively (no recursion a deep document
 * can overflow), in document order, never entering data keywords (`enum`, `default`,
 * `const`, `examples`). Stops at {@link MAX_SCHEMA_DEPTH} or {@link MAX_SCHEMA_NODES}
 * and returns the node where it stopped; a cyclic in-memory schema is visited once per
 * object.
 */
function walkSchema(
  root: unknown,
  rootPointer: string,
  visit: (node: SchemaNode) => void,
): { bound: "depth" | "size" | null; node: SchemaNode | null } {
  const stack: SchemaNode[] = [
    {
      schema: root,
      parent: null,
      segment: rootPointer,
      member: null,
      depth: 0,
      via: null,
      property: null,
    },
  ];
  const seen = new Set<object>();
  let count = 0;
  const children: SchemaNode[] = [];
  while (stack.length > 0) {
    const node = stack.pop()!;
    if (node.depth > MAX_SCHEMA_DEPTH) return { bound: "depth", node };
    if (++count > MAX_SCHEMA_NODES) return { bound: "size", node };
    visit(node);
    const s = node.schema;
    if (!isObject(s) || seen.has(s)) continue;
    seen.add(s);
    children.length = 0;
    const depth = node.depth + 1;
    for (const key in s) {
      if (!Object.hasOwn(s, key)) continue;
      const how = KEYWORDS.get(key);
      if (how === undefined) continue;
      const value = s[key];
      if (how === "single" || (how === "items" && !Array.isArray(value))) {
        if (isSchema(value)) children.push(child(value, node, null, depth, key, null));
      } else if (how === "map") {
        if (!isObject(value)) continue;
        for (const name in value) {
          if (!Object.hasOwn(value, name)) continue;
          const member = value[name];
          if (isSchema(member)) {
            const property = key === "properties" ? name : null;
            children.push(child(member, node, name, depth, key, property));
          }
        }
      } else if (Array.isArray(value)) {
        for (let i = 0; i < value.length; i++) {
          const member: unknown = value[i];
          if (isSchema(member)) children.push(child(member, node, i, depth, key, null));
        }
      }
    }
    // Reverse so the stack pops children in document order.
    for (let i = children.length - 1; i >= 0; i--) stack.push(children[i]!);
  }
  return { bound: null, node: null };
}
