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

/**
 * Bits for the keys the schema rules test, so a rule asks one bit instead of calling
 * `Object.hasOwn` per key: {@link walkSchema} reads each object's own keys once and hands
 * the visitor their bits.
 */
export const KEY = {
  type: 1 << 0,
  enum: 1 << 1,
  const: 1 << 2,
  $ref: 1 << 3,
  oneOf: 1 << 4,
  anyOf: 1 << 5,
  allOf: 1 << 6,
  not: 1 << 7,
  properties: 1 << 8,
  items: 1 << 9,
  prefixItems: 1 << 10,
  pattern: 1 << 11,
  format: 1 << 12,
  minimum: 1 << 13,
  maximum: 1 << 14,
  minLength: 1 << 15,
  maxLength: 1 << 16,
  required: 1 << 17,
  additionalProperties: 1 << 18,
  patternProperties: 1 << 19,
  if: 1 << 20,
  $dynamicRef: 1 << 21,
  $recursiveRef: 1 << 22,
} as const;

/** How a keyword's value holds subschemas, in the bits above the key bits. */
const SINGLE = 1 << 24;
const ITEMS = 2 << 24;
const MAP = 3 << 24;
const ARRAY = 4 << 24;
const HOW = 7 << 24;

/** Each key's rule bit and, for keywords that hold subschemas, how they hold them. */
const KEYS: ReadonlyMap<string, number> = (() => {
  const table = new Map<string, number>(Object.entries(KEY));
  const how: [number, string[]][] = [
    [
      SINGLE,
      [
        "additionalProperties",
        "additionalItems",
        "contains",
        "not",
        "if",
        "then",
        "else",
        "propertyNames",
        "unevaluatedItems",
        "unevaluatedProperties",
      ],
    ],
    [ITEMS, ["items"]],
    [MAP, ["properties", "patternProperties", "$defs", "definitions", "dependentSchemas"]],
    [ARRAY, ["allOf", "anyOf", "oneOf", "prefixItems"]],
  ];
  for (const [bits, keys] of how) for (const k of keys) table.set(k, (table.get(k) ?? 0) | bits);
  return table;
})();

const isObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === "object" && v !== null && !Array.isArray(v);

/** A subschema is an object or a boolean; anything else under a keyword is not walked. */
const isSchema = (v: unknown): boolean => typeof v === "boolean" || isObject(v);

const isEnumerable = Object.prototype.propertyIsEnumerable;

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
 * The objects a walk has expanded. Most schemas have a handful, so a short list is
 * searched before any Set is built (a Set hashes every object it meets).
 */
class SeenObjects {
  private readonly few: object[] = [];
  private many: Set<object> | null = null;

  /** Add `o`; false when it was there already. */
  add(o: object): boolean {
    if (this.many !== null) {
      if (this.many.has(o)) return false;
      this.many.add(o);
      return true;
    }
    if (this.few.includes(o)) return false;
    if (this.few.length < 16) this.few.push(o);
    else this.many = new Set([...this.few, o]);
    return true;
  }
}

/** What {@link walkSchema} returns when it reached every position (shared: nothing to say). */
const WALKED = Object.freeze({ bound: null, node: null });

/**
 * Visit every schema position of a JSON Schema, iteratively (no recursion a deep document
 * can overflow), in document order, never entering data keywords (`enum`, `default`,
 * `const`, `examples`). Stops at {@link MAX_SCHEMA_DEPTH} or {@link MAX_SCHEMA_NODES}
 * and returns the node where it stopped; a cyclic in-memory schema is visited once per
 * object. `visit` gets the {@link KEY} bits of the node's own keys (0 for a boolean).
 */
export function walkSchema<C>(
  root: unknown,
  rootPointer: string,
  visit: (node: SchemaNode, keys: number, context: C) => void,
  context: C,
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
  const seen = new SeenObjects();
  /** Indexes, in the current object's own keys, of the keywords that hold subschemas. */
  const keywords: number[] = [];
  let count = 0;
  while (stack.length > 0) {
    const node = stack.pop()!;
    if (node.depth > MAX_SCHEMA_DEPTH) return { bound: "depth", node };
    if (++count > MAX_SCHEMA_NODES) return { bound: "size", node };
    const s = node.schema;
    if (!isObject(s)) {
      visit(node, 0, context);
      continue;
    }
    // Own keys, enumerable or not, like Object.hasOwn sees them; subschemas are only
    // entered under enumerable keywords, like a for-in over own keys.
    const names = Object.getOwnPropertyNames(s);
    let keys = 0;
    let found = 0;
    for (let i = 0; i < names.length; i++) {
      const bits = KEYS.get(names[i]!);
      if (bits === undefined) continue;
      keys |= bits;
      if ((bits & HOW) !== 0) keywords[found++] = i;
    }
    visit(node, keys & ~HOW, context);
    if (found === 0 || !seen.add(s)) continue;
    const depth = node.depth + 1;
    // As many enumerable own keys as own keys: all are enumerable, no need to ask each.
    const allEnumerable = Object.keys(s).length === names.length;
    // Push children last to first so the stack pops them in document order.
    for (let k = found - 1; k >= 0; k--) {
      const key = names[keywords[k]!]!;
      if (!allEnumerable && !isEnumerable.call(s, key)) continue;
      const how = KEYS.get(key)! & HOW;
      const value = s[key];
      if (how === SINGLE || (how === ITEMS && !Array.isArray(value))) {
        if (isSchema(value)) stack.push(child(value, node, null, depth, key, null));
      } else if (how === MAP) {
        if (!isObject(value)) continue;
        const members = Object.keys(value);
        for (let m = members.length - 1; m >= 0; m--) {
          const name = members[m]!;
          const member = value[name];
          if (isSchema(member)) {
            const property = key === "properties" ? name : null;
            stack.push(child(member, node, name, depth, key, property));
          }
        }
      } else if (Array.isArray(value)) {
        for (let i = value.length - 1; i >= 0; i--) {
          const member: unknown = value[i];
          if (isSchema(member)) stack.push(child(member, node, i, depth, key, null));
        }
      }
    }
  }
  return WALKED;
}
