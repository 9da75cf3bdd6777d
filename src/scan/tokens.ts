/**
 * Split an identifier into lower-case word tokens: camelCase, PascalCase, snake_case,
 * kebab-case, dotted and spaced names, acronyms (`HTTPRequest` → `http`, `request`) and
 * letter/digit boundaries. The heuristics match whole tokens, never substrings, so
 * `profile` is not a file and `cathedral` is not `cat`.
 *
 * @example
 * ```ts
 * import { wordTokens } from "agent-airlock/scan";
 * console.log(wordTokens("readFile_v2-HTTPServer.open")); // ["read", "file", "v", "2", "http", "server", "open"]
 * ```
 */
export function wordTokens(identifier: string): string[] {
  const text = identifier.normalize("NFKC");
  const out: string[] = [];
  // One pass, no regex backtracking: a token ends at a separator, at a lower→upper step,
  // at the last capital of an acronym followed by lower case, and at letter/digit steps.
  let start = -1;
  const kind = (c: string): 0 | 1 | 2 | 3 => {
    if (c >= "a" && c <= "z") return 1;
    if (c >= "A" && c <= "Z") return 2;
    if (c >= "0" && c <= "9") return 3;
    if (/\p{L}/u.test(c)) return c === c.toLowerCase() ? 1 : 2;
    return 0;
  };
  const chars = Array.from(text);
  for (let i = 0; i <= chars.length; i++) {
    const c = chars[i];
    const k = c === undefined ? 0 : kind(c);
    if (start >= 0 && i < chars.length) {
      const prev = kind(chars[i - 1]!);
      const next = i + 1 < chars.length ? kind(chars[i + 1]!) : 0;
      const boundary =
        k === 0 ||
        (prev === 1 && k === 2) ||
        (prev === 2 && k === 2 && next === 1) ||
        (prev === 3) !== (k === 3);
      if (boundary) {
        out.push(chars.slice(start, i).join("").toLowerCase());
        start = k === 0 ? -1 : i;
      }
    } else if (start >= 0) {
      out.push(chars.slice(start, i).join("").toLowerCase());
      start = -1;
    } else if (k !== 0) {
      start = i;
    }
  }
  return out;
}
