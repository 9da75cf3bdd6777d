import { esc } from "./extract.js";

/**
 * Schema nesting deeper than this is not analysed (SCAN013).
 *
 * @example
 * ```ts
 * import { MAX_SCHEMA_DEPTH } from "agent-airlock/scan";
 * console.log(MAX_SCHEMA_DEPTH); // 128
 * ```
 */
export const MAX_SCHEMA_DEPTH = 128;
/**
 * More schema nodes than this in one schema is not analysed (SCAN013).
 *
 * @example
 * ```ts
 * import { MAX_SCHEMA_NODES } from "agent-airlock/scan";
 * console.log(MAX_SCHEMA_NODES); // 50000
 * ```
 */
export const MAX_SCHEMA_NODES = 50_000;

/** One schema position met by {@link walkSchema}. */
export interface SchemaNode {
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

const isObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === "object" && v !== null && !Array.isArray(v);

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
export function pointerOf(node: SchemaNode): string {
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
export function walkSchema(
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
