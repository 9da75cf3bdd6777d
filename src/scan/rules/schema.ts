import type { ToolDefinition } from "../../pins/types.js";
import type { CapabilityProfile } from "../capabilities.js";
import {
  MAX_SCHEMA_DEPTH,
  MAX_SCHEMA_NODES,
  pointerOf,
  type SchemaNode,
  walkSchema,
} from "../schema-walk.js";
import { wordTokens } from "../tokens.js";
import type { Finding } from "../types.js";
import { SENSITIVE_ARGUMENT_TOKENS } from "../vocabulary.js";

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
export function schemaFindings(tool: ToolDefinition, profile: CapabilityProfile): Finding[] {
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
      findings.push({
        code: destructive ? "SCAN003" : "SCAN004",
        grade: destructive ? "fail" : "warn",
        pointer: "/inputSchema",
        message: `${destructive ? "mutating tool" : "tool"} accepts undeclared arguments: ${open}`,
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
