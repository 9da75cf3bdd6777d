import { CanonicalizationError, type CanonicalizationErrorCode } from "../errors.js";

/** How one canonical JSON dialect writes strings and numbers and orders keys. */
export interface Dialect {
  /** Quoted, escaped string, or undefined when the dialect cannot write it (lone surrogate). */
  string(value: string): string | undefined;
  /** Number text; `value` is finite (non-finite numbers are refused before this). */
  number(value: number): string;
  /** Sort object keys in place. */
  sortKeys(keys: string[]): void;
}

/** Limits that keep work bounded on hostile input. */
export interface CanonicalLimits {
  /** Deepest nesting accepted (objects and arrays). Default 1,000. */
  maxDepth?: number;
  /** Most values (of any kind) accepted in one document. Default 1,000,000. */
  maxValues?: number;
}

export const DEFAULT_MAX_DEPTH = 1_000;
export const DEFAULT_MAX_VALUES = 1_000_000;

interface SerializeOptions extends CanonicalLimits {
  /** Drop object members whose value is null, at every depth (pin version 2 normalisation). */
  dropNullMembers?: boolean;
}

interface ObjectFrame {
  array: false;
  container: object;
  source: Record<string, unknown>;
  keys: string[];
  next: number;
}

interface ArrayFrame {
  array: true;
  container: object;
  source: unknown[];
  next: number;
}

type Frame = ObjectFrame | ArrayFrame;

const objectProto = Object.prototype;

/**
 * Serialise `root` as canonical JSON text in `dialect`. Iterative, so a deep document
 * costs heap, not stack, and is refused at `maxDepth` with `CANONICAL_DEPTH`; a cycle is
 * `CANONICAL_CYCLE`; anything JSON cannot carry is a typed error. Never mutates input.
 *
 * Accepted: null, booleans, finite numbers, strings, arrays, plain objects (prototype
 * `Object.prototype` or null), and objects with `toJSON()` (called once, as
 * `JSON.stringify` does). Object members whose value is `undefined` are dropped and
 * `undefined` array elements read as null, as `JSON.stringify` does; functions, symbols,
 * bigints and other class instances are refused rather than silently skipped.
 */
export function serialize(root: unknown, dialect: Dialect, options: SerializeOptions = {}): string {
  const maxDepth = options.maxDepth ?? DEFAULT_MAX_DEPTH;
  const maxValues = options.maxValues ?? DEFAULT_MAX_VALUES;
  const dropNull = options.dropNullMembers === true;
  const stack: Frame[] = [];
  const open = new Set<object>();
  let out = "";
  let values = 0;

  const fail = (code: CanonicalizationErrorCode, message: string): never => {
    throw new CanonicalizationError(code, message, pathOf(stack));
  };

  const writeString = (value: string): string =>
    dialect.string(value) ?? fail("CANONICAL_STRING", "a lone surrogate cannot be written");

  // Writes a scalar, or opens a container frame. `key` is what toJSON receives.
  const emit = (input: unknown, key: string): void => {
    if (++values > maxValues) fail("CANONICAL_SIZE", `more than ${maxValues} values`);
    let value = input;
    if (typeof value === "object" && value !== null && !Array.isArray(value)) {
      const proto = Object.getPrototypeOf(value);
      if (proto !== objectProto && proto !== null) {
        const toJSON = (value as { toJSON?: unknown }).toJSON;
        if (typeof toJSON !== "function") {
          fail("CANONICAL_TYPE", `a ${describe(value)} is not JSON`);
        }
        value = (toJSON as (k: string) => unknown).call(value, key);
      }
    }
    switch (typeof value) {
      case "string":
        out += writeString(value);
        return;
      case "number":
        if (!Number.isFinite(value)) fail("CANONICAL_NUMBER", `${value} is not a JSON number`);
        out += dialect.number(value);
        return;
      case "boolean":
        out += value ? "true" : "false";
        return;
      case "object":
        break;
      default:
        fail("CANONICAL_TYPE", `a ${typeof value} is not JSON`);
    }
    if (value === null) {
      out += "null";
      return;
    }
    const container = value as object;
    if (open.has(container)) fail("CANONICAL_CYCLE", "the document contains itself");
    if (stack.length >= maxDepth) fail("CANONICAL_DEPTH", `nested deeper than ${maxDepth} levels`);
    if (Array.isArray(container)) {
      if (Object.getPrototypeOf(container) !== Array.prototype) {
        fail("CANONICAL_TYPE", "an array subclass is not JSON");
      }
      open.add(container);
      stack.push({ array: true, container, source: container, next: 0 });
      out += "[";
      return;
    }
    if (
      Object.getPrototypeOf(container) !== objectProto &&
      Object.getPrototypeOf(container) !== null
    ) {
      fail("CANONICAL_TYPE", `a ${describe(container)} is not JSON`);
    }
    const source = container as Record<string, unknown>;
    const keys: string[] = [];
    for (const k of Object.keys(source)) {
      const v = source[k];
      if (v === undefined || (dropNull && v === null)) continue;
      keys.push(k);
    }
    dialect.sortKeys(keys);
    open.add(container);
    stack.push({ array: false, container, source, keys, next: 0 });
    out += "{";
  };

  emit(root, "");
  while (stack.length > 0) {
    const frame = stack[stack.length - 1]!;
    if (frame.array) {
      if (frame.next === frame.source.length) {
        out += "]";
        open.delete(frame.container);
        stack.pop();
        continue;
      }
      const i = frame.next++;
      if (i > 0) out += ",";
      const element = frame.source[i];
      emit(element === undefined ? null : element, String(i));
    } else {
      if (frame.next === frame.keys.length) {
        out += "}";
        open.delete(frame.container);
        stack.pop();
        continue;
      }
      const key = frame.keys[frame.next++]!;
      if (frame.next > 1) out += ",";
      out += writeString(key);
      out += ":";
      emit(frame.source[key], key);
    }
  }
  return out;
}

function describe(value: object): string {
  const name = (value as { constructor?: { name?: unknown } }).constructor?.name;
  return typeof name === "string" && name !== "" ? `${name} instance` : "non-plain object";
}

// JSON pointer of the value being written, rebuilt only when an error is thrown.
function pathOf(stack: Frame[]): string {
  let path = "";
  for (const frame of stack) {
    const key = frame.array ? String(frame.next - 1) : frame.keys[frame.next - 1];
    if (key === undefined || frame.next === 0) break;
    path += `/${key.replaceAll("~", "~0").replaceAll("/", "~1")}`;
  }
  return path;
}
