/**
 * Duplicate member names at the top of a JSON text, for `airlock proxy`.
 *
 * The proxy forwards a server's answer to the client as the bytes it received, and it
 * reads those bytes with `JSON.parse`, where the last of two same-named members wins.
 * Some JSON readers keep the first instead (RapidJSON's `FindMember`, simdjson's
 * `find_field`), so `{"id":4,...,"id":5}` is an answer to request 5 for the proxy and to
 * request 4 for such a client. An answer whose top level names `id` twice is therefore
 * never forwarded as is. Only the top level decides which request an answer is for.
 */

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const OPEN_OBJECT = 0x7b;
const CLOSE_OBJECT = 0x7d;
const OPEN_ARRAY = 0x5b;
const CLOSE_ARRAY = 0x5d;
const COMMA = 0x2c;

/** Names JSON can spell another way only with `\u` escapes (no `"`, `\`, `/`, controls). */
const PLAIN_NAME = /^[\w.-]*$/;

/**
 * Whether the top-level object of `text` has more than one member named `name`. `text`
 * must be JSON that `JSON.parse` accepted; the work is linear in its length, and nothing
 * is scanned when `name` (a plain name) cannot be there twice: its quoted form occurs at
 * most once and the text has no `\u` escape.
 *
 * @example
 * ```ts
 * import { detectDuplicateMember } from "./duplicate-members.js";
 * console.log(detectDuplicateMember('{"id":4,"result":{},"i\\u0064":5}', "id")); // true
 * console.log(detectDuplicateMember('{"id":4,"result":{"id":1,"x":{"id":2}}}', "id")); // false
 * ```
 */
export function detectDuplicateMember(text: string, name: string): boolean {
  if (PLAIN_NAME.test(name) && !text.includes("\\u")) {
    const quoted = `"${name}"`;
    const first = text.indexOf(quoted);
    if (first === -1 || text.indexOf(quoted, first + quoted.length) === -1) return false;
  }
  return countTopLevelMembers(text, name) > 1;
}

/** How many members of the top-level object are named `name` (0 for an array). */
function countTopLevelMembers(text: string, name: string): number {
  let count = 0;
  let depth = 0;
  let topIsObject = false;
  let expectName = false;
  let at = 0;
  while (at < text.length) {
    const char = text.charCodeAt(at);
    if (char === QUOTE) {
      const end = stringEnd(text, at);
      if (depth === 1 && expectName) {
        const quoted = text.slice(at, end + 1);
        const member = quoted.includes("\\") ? (JSON.parse(quoted) as string) : quoted.slice(1, -1);
        if (member === name) count++;
        expectName = false;
      }
      at = end + 1;
      continue;
    }
    if (char === OPEN_OBJECT || char === OPEN_ARRAY) {
      depth++;
      if (depth === 1) {
        topIsObject = char === OPEN_OBJECT;
        expectName = topIsObject;
      }
    } else if (char === CLOSE_OBJECT || char === CLOSE_ARRAY) {
      depth--;
    } else if (char === COMMA && depth === 1 && topIsObject) {
      expectName = true;
    }
    at++;
  }
  return count;
}

/** Index of the quote that closes the string opening at `start`. */
function stringEnd(text: string, start: number): number {
  let quote = text.indexOf('"', start + 1);
  while (quote !== -1) {
    // Each run of backslashes is counted once, by the quote right after it: linear.
    let backslashes = 0;
    while (text.charCodeAt(quote - 1 - backslashes) === BACKSLASH) backslashes++;
    if (backslashes % 2 === 0) return quote;
    quote = text.indexOf('"', quote + 1);
  }
  return text.length;
}
