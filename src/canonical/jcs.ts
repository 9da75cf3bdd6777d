import { createHash } from "node:crypto";
import { type CanonicalLimits, type Dialect, serialize } from "./serialize.js";

// String.prototype.isWellFormed (ES2024, in Node 20): false exactly when a lone surrogate is present.
const isWellFormed = (value: string): boolean =>
  (value as unknown as { isWellFormed(): boolean }).isWellFormed();

function jcsString(value: string): string | undefined {
  if (!isWellFormed(value)) return undefined;
  // ECMAScript JSON.stringify string escaping is exactly RFC 8785's (section 3.2.2.2).
  return JSON.stringify(value);
}

/** RFC 8785: ECMAScript Number-to-String; keys ordered by UTF-16 code units. */
const JCS: Dialect = {
  string: jcsString,
  number: (value) => String(value),
  sortKeys: (keys) => {
    keys.sort();
  },
};

/**
 * The RFC 8785 (JSON Canonicalization Scheme) text of `value`. Iterative and bounded;
 * throws {@link CanonicalizationError} on NaN, Infinity, lone surrogates, cycles, depth
 * past `maxDepth` and values JSON cannot carry. Members whose value is `undefined` are
 * dropped.
 *
 * @example
 * ```ts
 * import { jcsCanonicalize } from "agent-airlock";
 * jcsCanonicalize({ b: [1e21, 0.1], a: "€" }); // '{"a":"€","b":[1e+21,0.1]}'
 * ```
 */
export function jcsCanonicalize(value: unknown, limits?: CanonicalLimits): string {
  return serialize(value, JCS, limits);
}

/**
 * Lowercase hex SHA-256 of the UTF-8 RFC 8785 text of a tool definition as served (the
 * whole object, every field). The tool guard compares it with a pin in constant time.
 *
 * @example
 * ```ts
 * import { definitionSha256 } from "agent-airlock";
 * definitionSha256({ name: "t", description: "d" });
 * // '7b1e...' (64 hex characters)
 * ```
 */
export function definitionSha256(definition: unknown, limits?: CanonicalLimits): string {
  return createHash("sha256").update(jcsCanonicalize(definition, limits), "utf8").digest("hex");
}
