const ASCII = /^[\u0000-\u007f]*$/;

/** 0 separator, 1 lower-case letter, 2 upper-case letter, 3 digit. */
type Kind = 0 | 1 | 2 | 3;

function kindOf(c: string): Kind {
  const code = c.charCodeAt(0);
  if (code >= 97 && code <= 122) return 1;
  if (code >= 65 && code <= 90) return 2;
  if (code >= 48 && code <= 57) return 3;
  if (code < 128) return 0;
  if (/\p{N}/u.test(c)) return 3;
  if (!/\p{L}/u.test(c)) return 0;
  return c === c.toLowerCase() ? 1 : 2;
}

/**
 * Split an identifier into lower-case word tokens: camelCase, PascalCase, snake_case,
 * kebab-case, dotted and spaced names, acronyms (`HTTPRequest` → `http`, `request`) and
 * letter/digit boundaries, after NFKC (so fullwidth letters read as ASCII). The
 * heuristics match whole tokens, never substrings, so `profile` is not a file and
 * `cathedral` is not `cat`. One linear pass; the result is frozen.
 *
 * @example
 * ```ts
 * import { wordTokens } from "agent-airlock/scan";
 * console.log(wordTokens("readFile_v2-HTTPServer.open")); // ["read", "file", "v", "2", "http", "server", "open"]
 * ```
 */
export function wordTokens(identifier: string): readonly string[] {
  return Object.freeze(splitWords(identifier));
}

/** {@link wordTokens} as a fresh array, unfrozen: for the rules, which only read it. */
export function splitWords(identifier: string): string[] {
  return asciiTokens(identifier) ?? unicodeTokens(identifier);
}

/** Kind of each ASCII character, by code. */
const ASCII_KIND: readonly Kind[] = Array.from({ length: 128 }, (_, code) =>
  kindOf(String.fromCharCode(code)),
);

/**
 * The tokens of an all-ASCII identifier, the same pass as {@link unicodeTokens} read
 * straight off the char codes (no per-character strings, one slice per word); null when
 * the identifier has a character past ASCII.
 */
function asciiTokens(s: string): string[] | null {
  const n = s.length;
  if (n > 0 && s.charCodeAt(0) >= 128) return null;
  const out: string[] = [];
  let start = -1;
  // Whether the word being read has an upper-case letter (else it needs no lower-casing).
  let upper = false;
  let prev: Kind = 0;
  let k: Kind = n > 0 ? ASCII_KIND[s.charCodeAt(0)]! : 0;
  for (let i = 0; i < n; i++) {
    const code = i + 1 < n ? s.charCodeAt(i + 1) : 0;
    if (code >= 128) return null;
    const next: Kind = ASCII_KIND[code]!;
    if (start < 0) {
      if (k !== 0) {
        start = i;
        upper = k === 2;
      }
    } else if (
      k === 0 ||
      (prev === 1 && k === 2) ||
      (prev === 2 && k === 2 && next === 1) ||
      (prev === 3) !== (k === 3)
    ) {
      const word = s.slice(start, i);
      out.push(upper ? word.toLowerCase() : word);
      start = k === 0 ? -1 : i;
      upper = k === 2;
    } else if (k === 2) upper = true;
    prev = k;
    k = next;
  }
  if (start >= 0) {
    const word = s.slice(start);
    out.push(upper ? word.toLowerCase() : word);
  }
  return out;
}

function unicodeTokens(identifier: string): string[] {
  const text = ASCII.test(identifier) ? identifier : identifier.normalize("NFKC");
  const chars = text.length === identifier.length && ASCII.test(text) ? text : Array.from(text);
  const n = chars.length;
  const kinds: Kind[] = new Array(n);
  for (let i = 0; i < n; i++) kinds[i] = kindOf(chars[i]!);
  const out: string[] = [];
  let start = -1;
  const flush = (end: number) => {
    let word = "";
    for (let j = start; j < end; j++) word += chars[j];
    out.push(word.toLowerCase());
  };
  for (let i = 0; i < n; i++) {
    const k = kinds[i]!;
    if (start < 0) {
      if (k !== 0) start = i;
      continue;
    }
    const prev = kinds[i - 1]!;
    const next = i + 1 < n ? kinds[i + 1]! : 0;
    const boundary =
      k === 0 ||
      (prev === 1 && k === 2) ||
      (prev === 2 && k === 2 && next === 1) ||
      (prev === 3) !== (k === 3);
    if (boundary) {
      flush(i);
      start = k === 0 ? -1 : i;
    }
  }
  if (start >= 0) flush(n);
  return out;
}

/**
 * A quick, exact "no" for "could this identifier hold one of `words`?": false only when
 * the identifier is all ASCII and no three letters in a row in it spell, in any case,
 * the first three letters of a word. A word token of an ASCII identifier is a run of
 * its characters, lower-cased, so a name that fails the filter has no such token and
 * needs no tokenising; anything past ASCII (which NFKC may turn into ASCII letters)
 * always passes. Every word must be at least three ASCII lower-case letters long.
 *
 * @example
 * ```ts
 * import { wordStartFilter } from "./tokens.js";
 * const mayHold = wordStartFilter(["path", "url"]);
 * console.log(mayHold("owner"), mayHold("filePath"), mayHold("baseURL")); // false true true
 * ```
 */
export function wordStartFilter(words: Iterable<string>): (identifier: string) => boolean {
  const starts = new Uint8Array(26 * 26 * 26);
  for (const w of words) {
    if (!/^[a-z]{3}/.test(w)) throw new RangeError(`not a lower-case ASCII word: ${w}`);
    starts[((w.charCodeAt(0) - 97) * 26 + w.charCodeAt(1) - 97) * 26 + w.charCodeAt(2) - 97] = 1;
  }
  return (identifier) => {
    // The last two letters read, as 0..25 (-1 after anything else).
    let a = -1;
    let b = -1;
    for (let i = 0; i < identifier.length; i++) {
      const code = identifier.charCodeAt(i);
      if (code >= 128) return true;
      // Setting the 0x20 bit maps A-Z onto a-z and no other ASCII character onto a-z.
      const letter = (code | 0x20) - 97;
      if (letter < 0 || letter > 25) {
        a = -1;
        b = -1;
        continue;
      }
      if (a >= 0 && starts[(a * 26 + b) * 26 + letter] === 1) return true;
      a = b;
      b = letter;
    }
    return false;
  };
}
