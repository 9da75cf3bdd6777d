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

/** A container of the copy {@link serializeCopy} builds. */
type CopyTarget = unknown[] | Record<string, unknown>;

/**
 * An own member of a copy. Plain objects keep V8's fast shapes (an object without a
 * prototype is a slow dictionary, and slower still to freeze); a `__proto__` key is
 * defined, since assigning it would set the prototype instead.
 */
function setMember(target: Record<string, unknown>, key: string, value: unknown): void {
  if (key === "__proto__") {
    Object.defineProperty(target, key, {
      value,
      enumerable: true,
      writable: true,
      configurable: true,
    });
  } else {
    target[key] = value;
  }
}

interface Frame {
  container: object;
  /** Array elements, or object member values in key order. */
  values: unknown[];
  /** Object keys (sorted), or null for an array. */
  keys: string[] | null;
  next: number;
  /** The copy being built of this container (serializeCopy only). */
  target: CopyTarget | null;
}

interface State {
  dialect: Dialect;
  dropNull: boolean;
  maxDepth: number;
  maxValues: number;
  stack: Frame[];
  values: number;
  /**
   * The text so far. Appending to one string is faster here than joining an array of
   * pieces: V8 keeps the pieces as a rope and flattens it once, when it is hashed.
   */
  out: string;
  /** Build a deep-frozen copy of what is written (serializeCopy). */
  copying: boolean;
  /** The dialect's text of recently written object keys. */
  keyTexts: Map<string, string>;
}

/**
 * Object keys repeat across documents ("type", "properties", "description"), so each
 * dialect keeps the text of the short ones it wrote (a bounded cache, emptied when full).
 */
const KEY_TEXTS = new WeakMap<Dialect, Map<string, string>>();
const MAX_CACHED_KEYS = 4_096;
const MAX_CACHED_KEY_LENGTH = 64;

function keyTextsOf(dialect: Dialect): Map<string, string> {
  let cache = KEY_TEXTS.get(dialect);
  if (cache === undefined) {
    cache = new Map();
    KEY_TEXTS.set(dialect, cache);
  }
  return cache;
}

const objectProto = Object.prototype;
const arrayProto = Array.prototype;

/**
 * Serialise `root` as canonical JSON text in `dialect`. Iterative, so a deep document
 * costs heap, not stack, and is refused at `maxDepth` with `CANONICAL_DEPTH`; a cycle is
 * `CANONICAL_CYCLE`; anything JSON cannot carry is a typed error. Never mutates input.
 *
 * Accepted: null, booleans, finite numbers, strings, arrays, plain objects (prototype
 * `Object.prototype` or null), and objects with `toJSON()` (called once, as
 * `JSON.stringify` does). Object members whose value is `undefined` are dropped and
 * `undefined` array elements read as null, as `JSON.stringify` does; functions, symbols,
 * bigints and other class instances are refused rather than silently skipped. Each member
 * is read once.
 */
export function serialize(root: unknown, dialect: Dialect, options: SerializeOptions = {}): string {
  return run(root, dialect, options, false).text;
}

/**
 * {@link serialize}, also returning a deep-frozen copy of the value as JSON data, read in
 * the same pass (each member once, so the copy is exactly what the text says): plain
 * objects (a `__proto__` key is an own member, so read members with `Object.hasOwn`),
 * arrays, strings, finite numbers, booleans and null; `toJSON()` results in place of
 * their objects, `undefined` members left out, `undefined` elements as null. Null members
 * are kept in the copy even when `dropNullMembers` leaves them out of the text.
 */
export function serializeCopy(
  root: unknown,
  dialect: Dialect,
  options: SerializeOptions = {},
): { text: string; copy: unknown } {
  return run(root, dialect, options, true);
}

function run(
  root: unknown,
  dialect: Dialect,
  options: SerializeOptions,
  copying: boolean,
): { text: string; copy: unknown } {
  const state: State = {
    dialect,
    dropNull: options.dropNullMembers === true,
    maxDepth: options.maxDepth ?? DEFAULT_MAX_DEPTH,
    maxValues: options.maxValues ?? DEFAULT_MAX_VALUES,
    stack: [],
    values: 0,
    out: "",
    copying,
    keyTexts: keyTextsOf(dialect),
  };
  const stack = state.stack;
  const copy = emit(state, root, "");
  while (stack.length > 0) {
    const frame = stack[stack.length - 1]!;
    const i = frame.next;
    if (i === frame.values.length) {
      state.out += frame.keys === null ? "]" : "}";
      if (frame.target !== null) Object.freeze(frame.target);
      stack.pop();
      continue;
    }
    frame.next = i + 1;
    if (i > 0) state.out += ",";
    if (frame.keys === null) {
      const element = frame.values[i];
      const value = emit(state, element === undefined ? null : element, String(i));
      if (frame.target !== null) (frame.target as unknown[]).push(value);
    } else {
      const key = frame.keys[i]!;
      state.out += writeKey(state, key);
      const value = emit(state, frame.values[i], key);
      if (frame.target !== null) setMember(frame.target as Record<string, unknown>, key, value);
    }
  }
  return { text: state.out, copy };
}

function fail(
  state: State,
  code: CanonicalizationErrorCode,
  message: string,
  frames: Frame[] = state.stack,
): never {
  throw new CanonicalizationError(code, message, pathOf(frames));
}

function writeString(state: State, value: string): string {
  return (
    state.dialect.string(value) ??
    fail(state, "CANONICAL_STRING", "a lone surrogate cannot be written")
  );
}

// The text of a member's key and its colon.
function writeKey(state: State, key: string): string {
  let text = state.keyTexts.get(key);
  if (text === undefined) {
    text = `${writeString(state, key)}:`;
    if (key.length <= MAX_CACHED_KEY_LENGTH) {
      if (state.keyTexts.size >= MAX_CACHED_KEYS) state.keyTexts.clear();
      state.keyTexts.set(key, text);
    }
  }
  return text;
}

// Writes a scalar, or opens a container frame. `key` is what toJSON receives. Returns the
// copy of the value (a container's copy is filled as its frame is written), when copying.
function emit(state: State, input: unknown, key: string): unknown {
  if (++state.values > state.maxValues)
    fail(state, "CANONICAL_SIZE", `more than ${state.maxValues} values`);
  let value = input;
  switch (typeof value) {
    case "string":
      state.out += writeString(state, value);
      return value;
    case "number":
      if (!Number.isFinite(value)) fail(state, "CANONICAL_NUMBER", `${value} is not a JSON number`);
      state.out += state.dialect.number(value);
      return value;
    case "boolean":
      state.out += value ? "true" : "false";
      return value;
    case "object":
      if (value === null) {
        state.out += "null";
        return null;
      }
      break;
    default:
      fail(state, "CANONICAL_TYPE", `a ${typeof value} is not JSON`);
  }
  let proto = Object.getPrototypeOf(value);
  if (proto !== objectProto && proto !== arrayProto && proto !== null) {
    const toJSON = (value as { toJSON?: unknown }).toJSON;
    if (typeof toJSON !== "function")
      fail(state, "CANONICAL_TYPE", `a ${describe(value as object)} is not JSON`);
    value = (toJSON as (k: string) => unknown).call(value, key);
    if (typeof value !== "object" || value === null) {
      const copy = emit(state, value, key);
      state.values--;
      return copy;
    }
    proto = Object.getPrototypeOf(value);
    if (proto !== objectProto && proto !== arrayProto && proto !== null) {
      fail(state, "CANONICAL_TYPE", `a ${describe(value as object)} is not JSON`);
    }
  }
  const container = value as object;
  if (state.stack.length >= state.maxDepth) {
    // A cycle always ends here, so it costs nothing on well-formed input. Report it
    // where it first closes: the second time its first container is entered.
    const first = state.stack.findIndex((frame) => frame.container === container);
    if (first === -1) fail(state, "CANONICAL_DEPTH", `nested deeper than ${state.maxDepth} levels`);
    const again = state.stack.findIndex((frame, i) => i > first && frame.container === container);
    const closes = state.stack.slice(0, again === -1 ? state.stack.length : again);
    fail(state, "CANONICAL_CYCLE", "the document contains itself", closes);
  }
  if (proto === arrayProto) {
    if (!Array.isArray(container))
      fail(state, "CANONICAL_TYPE", "an array-like object is not JSON");
    const target = state.copying ? [] : null;
    state.stack.push({ container, values: container as unknown[], keys: null, next: 0, target });
    state.out += "[";
    return target;
  }
  const source = container as Record<string, unknown>;
  const all = Object.keys(source);
  state.dialect.sortKeys(all);
  const keys: string[] = [];
  const values: unknown[] = [];
  const target: Record<string, unknown> | null = state.copying ? {} : null;
  for (const k of all) {
    const v = source[k];
    if (v === undefined) continue;
    if (state.dropNull && v === null) {
      if (target !== null) setMember(target, k, null);
      continue;
    }
    keys.push(k);
    values.push(v);
  }
  state.stack.push({ container, values, keys, next: 0, target });
  state.out += "{";
  return target;
}

function describe(value: object): string {
  const name = (value as { constructor?: { name?: unknown } }).constructor?.name;
  return typeof name === "string" && name !== "" ? `${name} instance` : "non-plain object";
}

// JSON pointer of the value being written, rebuilt only when an error is thrown.
function pathOf(stack: Frame[]): string {
  let path = "";
  for (const frame of stack) {
    if (frame.next === 0) break;
    const key = frame.keys === null ? String(frame.next - 1) : frame.keys[frame.next - 1]!;
    path += `/${key.replaceAll("~", "~0").replaceAll("/", "~1")}`;
  }
  return path;
}
