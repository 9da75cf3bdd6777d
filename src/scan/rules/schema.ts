import type { ToolDefinition } from "../../pins/types.js";
import type { CapabilityProfile } from "../capabilities.js";
import {
  KEY,
  MAX_SCHEMA_DEPTH,
  MAX_SCHEMA_NODES,
  pointerOf,
  type SchemaNode,
  walkSchema,
} from "../schema-walk.js";
import { sdkConversion } from "../sdk-schema.js";
import { splitWords, wordStartFilter } from "../tokens.js";
import type { Finding } from "../types.js";
import { SENSITIVE_ARGUMENT_TOKENS } from "../vocabulary.js";

const isObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === "object" && v !== null && !Array.isArray(v);
const has = (o: Record<string, unknown>, k: string) => Object.hasOwn(o, k);

const STRING_CONSTRAINTS = ["enum", "const", "pattern", "format", "maxLength"];
const TYPE_KEYWORDS =
  KEY.type | KEY.enum | KEY.const | KEY.$ref | KEY.oneOf | KEY.anyOf | KEY.allOf | KEY.not;
const CONSTRAINING =
  TYPE_KEYWORDS |
  KEY.properties |
  KEY.items |
  KEY.prefixItems |
  KEY.pattern |
  KEY.format |
  KEY.minimum |
  KEY.maximum |
  KEY.minLength |
  KEY.maxLength |
  KEY.required |
  KEY.additionalProperties |
  KEY.patternProperties |
  KEY.if |
  KEY.$dynamicRef;
const STRING_CONSTRAINED = KEY.enum | KEY.const | KEY.pattern | KEY.format | KEY.maxLength;
const REFS = KEY.$ref | KEY.$dynamicRef | KEY.$recursiveRef;
const COMPOSITIONS = KEY.oneOf | KEY.anyOf | KEY.allOf;

/**
 * The contract rules that read the schemas: SCAN003/SCAN004 (open argument surface),
 * SCAN005 (untyped or unconstrained sensitive arguments), SCAN009 (external `$ref`),
 * SCAN010 (ambiguous composition) and SCAN013 (a schema that cannot be analysed),
 * appended to `findings`.
 */
export function schemaFindings(
  tool: ToolDefinition,
  profile: CapabilityProfile,
  findings: Finding[] = [],
): Finding[] {
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
    boundFinding(walkSchema(output, "/outputSchema", visitOutput, findings), findings);
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
  boundFinding(walkSchema(input, "/inputSchema", visitInput, findings), findings);
}

function visitInput(node: SchemaNode, keys: number, findings: Finding[]) {
  const s = node.schema;
  if ((keys & REFS) !== 0) externalRef(node, findings);
  if (node.property !== null) propertyFinding(node.property, s, keys, node, findings);
  if ((keys & COMPOSITIONS) !== 0) composition(s as Record<string, unknown>, keys, node, findings);
}

function visitOutput(node: SchemaNode, keys: number, findings: Finding[]) {
  if ((keys & REFS) !== 0) externalRef(node, findings);
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

const REF_KEYS = ["$ref", "$dynamicRef", "$recursiveRef"] as const;

function externalRef(node: SchemaNode, findings: Finding[]) {
  const schema = node.schema as Record<string, unknown>;
  for (const key of REF_KEYS) {
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

function propertyFinding(
  name: string,
  schema: unknown,
  keys: number,
  node: SchemaNode,
  findings: Finding[],
) {
  const typed = (keys & KEY.type) !== 0;
  if (schema === true || (isObject(schema) && !typed && (keys & CONSTRAINING) === 0)) {
    findings.push({
      code: "SCAN005",
      grade: "warn",
      pointer: pointerOf(node),
      message: `argument ${quote(name)} has no type constraint`,
    });
    return;
  }
  if (!isObject(schema)) return;
  if (!typed && (keys & TYPE_KEYWORDS) === 0) {
    findings.push({
      code: "SCAN005",
      grade: "warn",
      pointer: pointerOf(node),
      message: `argument ${quote(name)} has no type, enum, const or $ref`,
    });
    return;
  }
  // A sensitive string, or an array of them.
  let leaf: Record<string, unknown> = schema;
  let suffix = "";
  if (isType(schema, "array") && isObject(schema.items)) {
    leaf = schema.items;
    suffix = "/items";
  }
  if (!isType(leaf, "string")) return;
  const constrained =
    leaf === schema
      ? (keys & STRING_CONSTRAINED) !== 0
      : STRING_CONSTRAINTS.some((k) => has(leaf, k));
  if (constrained || !isSensitive(name)) return;
  findings.push({
    code: "SCAN005",
    grade: "warn",
    pointer: `${pointerOf(node)}${suffix}`,
    message: `sensitive string argument ${quote(name)} has no enum, pattern, format or maxLength`,
  });
}

/** Most property names hold no sensitive word at all: those are not tokenised. */
const MAY_BE_SENSITIVE = wordStartFilter(SENSITIVE_ARGUMENT_TOKENS);

/** Does a property name carry a sensitive word token (path, url, command, ...)? */
function isSensitive(name: string): boolean {
  if (!MAY_BE_SENSITIVE(name)) return false;
  for (const t of splitWords(name)) if (SENSITIVE_ARGUMENT_TOKENS.has(t)) return true;
  return false;
}

/** A property name for a message: quoted, and cut at 100 characters. */
function quote(name: string): string {
  return JSON.stringify(name.length > 100 ? `${name.slice(0, 100)}…` : name);
}

function isType(schema: Record<string, unknown>, type: string): boolean {
  const t = schema.type;
  return t === type || (Array.isArray(t) && t.includes(type));
}

const COMPOSITION_KEYS = [
  ["oneOf", KEY.oneOf],
  ["anyOf", KEY.anyOf],
  ["allOf", KEY.allOf],
] as const;

function composition(
  schema: Record<string, unknown>,
  keys: number,
  node: SchemaNode,
  findings: Finding[],
) {
  const closedHere = schema.unevaluatedProperties === false;
  for (const [key, bit] of COMPOSITION_KEYS) {
    const branches = (keys & bit) !== 0 ? schema[key] : undefined;
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
