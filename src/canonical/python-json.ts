import { pythonFloatRepr } from "./python-float.js";
import { type CanonicalLimits, type Dialect, serialize } from "./serialize.js";

// Anything outside printable ASCII, plus `"` and `\`, needs escaping.
const NEEDS_ESCAPE = /[^\x20-\x21\x23-\x5b\x5d-\x7e]/;
const NON_ASCII = /[\x7f-\uffff]/g;

function escapeUnit(unit: string): string {
  return `\\u${unit.charCodeAt(0).toString(16).padStart(4, "0")}`;
}

function pythonString(value: string): string {
  if (!NEEDS_ESCAPE.test(value)) return `"${value}"`;
  // JSON.stringify already writes Python's short escapes and lowercase \u00XX for
  // control characters, and escapes lone surrogates; what is left is ensure_ascii.
  return JSON.stringify(value).replace(NON_ASCII, escapeUnit);
}

function pythonNumber(value: number): string {
  if (Number.isSafeInteger(value)) return String(value);
  if (Number.isInteger(value)) return integerFromShortestDigits(value);
  return pythonFloatRepr(value);
}

// An integral double past 2^53 prints as its shortest round-trip digits padded with
// zeros (1e21 -> "1000000000000000000000"): exactly the literal a JavaScript server
// writes on the wire, so Python, which keeps integer literals as written, prints the same.
function integerFromShortestDigits(value: number): string {
  const text = Math.abs(value).toExponential();
  const ePos = text.indexOf("e");
  const digits = text.slice(0, ePos).replace(".", "");
  const exponent = Number(text.slice(ePos + 1));
  const body = digits + "0".repeat(exponent + 1 - digits.length);
  return value < 0 ? `-${body}` : body;
}

const SURROGATE = /[\ud800-\udfff]/;

// Python sorts str keys by code point; JavaScript's default sort is by UTF-16 code unit.
// They differ only when a surrogate meets a character at U+E000 or above.
function compareCodePoints(a: string, b: string): number {
  let i = 0;
  let j = 0;
  while (i < a.length && j < b.length) {
    const ca = a.codePointAt(i)!;
    const cb = b.codePointAt(j)!;
    if (ca !== cb) return ca - cb;
    i += ca > 0xffff ? 2 : 1;
    j += cb > 0xffff ? 2 : 1;
  }
  return a.length - i - (b.length - j);
}

function pythonSortKeys(keys: string[]): void {
  if (keys.length < 2) return;
  keys.sort();
  for (const key of keys) {
    if (SURROGATE.test(key)) {
      keys.sort(compareCodePoints);
      return;
    }
  }
}

/** The dialect of `json.dumps(v, sort_keys=True, separators=(",", ":"))`, ensure_ascii on. */
export const PYTHON_JSON: Dialect = {
  string: pythonString,
  number: pythonNumber,
  sortKeys: pythonSortKeys,
};

/**
 * The text Python's `json.dumps(value, sort_keys=True, separators=(",", ":"))` prints:
 * keys sorted by code point, no whitespace, every non-ASCII character and DEL escaped as
 * lowercase `\uXXXX`, integral numbers as integers and other numbers as Python's float
 * repr. Pin digests of versions 1 and 2 hash this text.
 *
 * Limit: JSON `1.0` and `1` are the same JavaScript number, so both print `1` (Python
 * prints `1.0` for a float). Throws {@link CanonicalizationError} on NaN, Infinity, cycles,
 * depth past `maxDepth`, and values JSON cannot carry.
 *
 * @example
 * ```ts
 * import { pythonCanonicalJson } from "agent-airlock";
 * pythonCanonicalJson({ b: 1.5e-7, a: "café" }); // '{"a":"caf\\u00e9","b":1.5e-07}'
 * ```
 */
export function pythonCanonicalJson(value: unknown, limits?: CanonicalLimits): string {
  return serialize(value, PYTHON_JSON, limits);
}
