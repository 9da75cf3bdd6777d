/**
 * Duplicate member names in a JSON text. `JSON.parse` keeps the last of two equal keys
 * and says nothing, so a pin file holding `"servers"` twice reads as its second copy and
 * the next write drops the first: a reviewed lock file must have one meaning. This scan
 * walks a text that `JSON.parse` has already accepted, with an explicit stack (one entry
 * per open object or array, so a deep document cannot overflow the call stack), compares
 * keys as decoded strings (`"a"` and `"\u0061"` are the same key) and stops at the first
 * repeat. `airlock proxy` asks a narrower question of every answer it forwards as
 * received: does the top level name `id` twice? (`{"id":4,...,"id":5}` answers request 5
 * for `JSON.parse` and request 4 for readers that keep the first member, such as
 * RapidJSON's `FindMember`.)
 *
 * Private (src/lib).
 */

/** The first repeated key of a JSON text. */
export interface DuplicateKey {
  /** The key, decoded. */
  key: string;
  /** JSON pointer of the object holding it (`""` for the top level). */
  pointer: string;
  /** 1-based line and column (in UTF-16 code units) of the second occurrence. */
  line: number;
  column: number;
}

interface Level {
  /** Keys seen so far, for an object; null for an array. */
  keys: Set<string> | null;
  /** The key or index under which this level sits in its parent (null at the top). */
  name: string | null;
  /** The key last read in this object (what a nested value sits under), or the array index. */
  current: string;
  index: number;
}

const QUOTE = 0x22;
const BACKSLASH = 0x5c;

/** Index just past the string that opens at `start` (a `"`). */
function stringEnd(text: string, start: number): number {
  let i = start + 1;
  for (;;) {
    const quote = text.indexOf('"', i);
    if (quote < 0) return text.length;
    let slashes = 0;
    for (let k = quote - 1; k > start && text.charCodeAt(k) === BACKSLASH; k--) slashes++;
    if (slashes % 2 === 0) return quote + 1;
    i = quote + 1;
  }
}

function escapePointer(segment: string): string {
  return segment.replaceAll("~", "~0").replaceAll("/", "~1");
}

function pointerOf(stack: Level[]): string {
  return stack
    .map((level) => level.name)
    .filter((name): name is string => name !== null)
    .map((name) => `/${escapePointer(name)}`)
    .join("");
}

function position(text: string, offset: number): { line: number; column: number } {
  let line = 1;
  let lineStart = 0;
  for (let i = text.indexOf("\n"); i >= 0 && i < offset; i = text.indexOf("\n", i + 1)) {
    line++;
    lineStart = i + 1;
  }
  return { line, column: offset - lineStart + 1 };
}

/**
 * The first key that appears twice in one object of `text`, at any depth; null when
 * every object's keys are distinct. `text` must be JSON that `JSON.parse` accepts.
 *
 * @example
 * ```ts
 * import { findDuplicateKey } from "../lib/json-duplicate-key.js";
 * console.log(findDuplicateKey('{"a":{"b":1,"b":2}}')); // { key: "b", pointer: "/a", line: 1, column: 13 }
 * ```
 */
export function findDuplicateKey(text: string): DuplicateKey | null {
  const stack: Level[] = [];
  let i = 0;
  while (i < text.length) {
    const c = text.charCodeAt(i);
    if (c === QUOTE) {
      const end = stringEnd(text, i);
      const top = stack[stack.length - 1];
      // A string is a key when it opens a member: inside an object and followed by ':'.
      let after = end;
      while (after < text.length && text.charCodeAt(after) <= 0x20) after++;
      if (top?.keys && text.charCodeAt(after) === 0x3a) {
        const raw = text.slice(i + 1, end - 1);
        const key = raw.includes("\\") ? (JSON.parse(text.slice(i, end)) as string) : raw;
        if (top.keys.has(key)) {
          return { key, pointer: pointerOf(stack), ...position(text, i) };
        }
        top.keys.add(key);
        top.current = key;
        i = after + 1;
        continue;
      }
      i = end;
      continue;
    }
    if (c === 0x7b || c === 0x5b) {
      const parent = stack[stack.length - 1];
      const name =
        parent === undefined ? null : parent.keys ? parent.current : String(parent.index);
      stack.push({ keys: c === 0x7b ? new Set() : null, name, current: "", index: 0 });
    } else if (c === 0x7d || c === 0x5d) {
      stack.pop();
    } else if (c === 0x2c) {
      const top = stack[stack.length - 1];
      if (top && top.keys === null) top.index++;
    }
    i++;
  }
  return null;
}

/** Keys JSON can spell another way only with `\u` escapes (no `"`, `\`, `/`, controls). */
const PLAIN_KEY = /^[\w.-]*$/;

/**
 * Whether the top-level object of `text` holds `key` more than once. `text` must be JSON
 * that `JSON.parse` accepts; the work is linear in its length, and nothing is scanned
 * when a plain `key` cannot be there twice (its quoted form occurs at most once and the
 * text has no `\u` escape), which is the case for almost every answer a server sends.
 *
 * @example
 * ```ts
 * import { hasTopLevelDuplicate } from "../lib/json-duplicate-key.js";
 * console.log(hasTopLevelDuplicate('{"id":4,"result":{},"i\\u0064":5}', "id")); // true
 * console.log(hasTopLevelDuplicate('{"id":4,"result":{"id":1,"x":{"id":2}}}', "id")); // false
 * ```
 */
export function hasTopLevelDuplicate(text: string, key: string): boolean {
  if (PLAIN_KEY.test(key) && !text.includes("\\u")) {
    const quoted = `"${key}"`;
    const first = text.indexOf(quoted);
    if (first < 0 || text.indexOf(quoted, first + quoted.length) < 0) return false;
  }
  let depth = 0;
  let topIsObject = false;
  let count = 0;
  let i = 0;
  while (i < text.length) {
    const c = text.charCodeAt(i);
    if (c === QUOTE) {
      const end = stringEnd(text, i);
      // A top-level key: a string directly in the top object, followed by ':'.
      let after = end;
      while (after < text.length && text.charCodeAt(after) <= 0x20) after++;
      if (depth === 1 && topIsObject && text.charCodeAt(after) === 0x3a) {
        const raw = text.slice(i + 1, end - 1);
        const name = raw.includes("\\") ? (JSON.parse(text.slice(i, end)) as string) : raw;
        if (name === key && ++count > 1) return true;
      }
      i = end;
      continue;
    }
    if (c === 0x7b || c === 0x5b) {
      if (depth === 0) topIsObject = c === 0x7b;
      depth++;
    } else if (c === 0x7d || c === 0x5d) {
      depth--;
    }
    i++;
  }
  return false;
}
