import { esc } from "./extract.js";

/** Schema nesting deeper than this is not analysed (SCAN013). */
export const MAX_SCHEMA_DEPTH = 128;
/** More schema nodes than this in one schema is not analysed (SCAN013). */
export const MAX_SCHEMA_NODES = 50_000;

/** One schema position met by {@link walkSchema}. */
export interface SchemaNode {
  /** The schema at this position (an object or a boolean). */
  schema: unknown;
  /** JSON pointer of this schema inside the tool definition. */
  pointer: string;
  /** Schema nesting depth (the root is 0). */
  depth: number;
  /** The keyword that led here (`properties`, `items`, `anyOf`, ...); null at the root. */
  via: string | null;
  /** For `properties` members: the property name. */
  property: string | null;
}

const SINGLE = [
  "additionalProperties",
  "items",
  "additionalItems",
  "contains",
  "not",
  "if",
  "then",
  "else",
  "propertyNames",
  "unevaluatedItems",
  "unevaluatedProperties",
];
const MAPS = ["properties", "patternProperties", "$defs", "definitions", "dependentSchemas"];
const ARRAYS = ["allOf", "anyOf", "oneOf", "prefixItems", "items"];

const isObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === "object" && v !== null && !Array.isArray(v);

/**
 * Visit every schema position of a JSON Schema, iteratively (no recursion a deep document
 * can overflow), in document order, never entering data keywords (`enum`, `default`,
 * `const`, `examples`). Stops at {@link MAX_SCHEMA_DEPTH} or {@link MAX_SCHEMA_NODES}
 * and says which bound it hit; a cyclic in-memory schema is visited once per object.
 */
export function walkSchema(
  root: unknown,
  rootPointer: string,
  visit: (node: SchemaNode) => void,
): { bound: "depth" | "size" | null; pointer: string | null } {
  const stack: SchemaNode[] = [
    { schema: root, pointer: rootPointer, depth: 0, via: null, property: null },
  ];
  const seen = new Set<object>();
  let count = 0;
  while (stack.length > 0) {
    const node = stack.pop()!;
    if (node.depth > MAX_SCHEMA_DEPTH) return { bound: "depth", pointer: node.pointer };
    if (++count > MAX_SCHEMA_NODES) return { bound: "size", pointer: node.pointer };
    visit(node);
    const s = node.schema;
    if (!isObject(s) || seen.has(s)) continue;
    seen.add(s);
    const children: SchemaNode[] = [];
    const child = (
      schema: unknown,
      pointer: string,
      via: string,
      property: string | null = null,
    ) => {
      if (isObject(schema) || typeof schema === "boolean") {
        children.push({ schema, pointer, depth: node.depth + 1, via, property });
      }
    };
    for (const key of SINGLE) {
      if (Object.hasOwn(s, key) && !Array.isArray(s[key]))
        child(s[key], `${node.pointer}/${key}`, key);
    }
    for (const key of MAPS) {
      const map = Object.hasOwn(s, key) ? s[key] : undefined;
      if (!isObject(map)) continue;
      for (const name of Object.keys(map)) {
        child(
          map[name],
          `${node.pointer}/${key}/${esc(name)}`,
          key,
          key === "properties" ? name : null,
        );
      }
    }
    for (const key of ARRAYS) {
      const arr = Object.hasOwn(s, key) ? s[key] : undefined;
      if (!Array.isArray(arr)) continue;
      arr.forEach((item, i) => {
        child(item, `${node.pointer}/${key}/${i}`, key);
      });
    }
    // Reverse so the stack pops children in document order.
    for (let i = children.length - 1; i >= 0; i--) stack.push(children[i]!);
  }
  return { bound: null, pointer: null };
}
