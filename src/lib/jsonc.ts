/**
 * JSON with comments (JSONC), as VS Code and Cursor write their MCP configs: `//` and
 * `/* *\/` comments and trailing commas. One reader for every command that reads a client
 * config (`wrap-config`, `pin --config`, `check --config`, `scan-tools`), so a file one
 * command accepts is never refused by another.
 *
 * Comments and trailing commas are replaced by spaces (line breaks kept), so every
 * offset, line and column of the text is unchanged: `JSON.parse` errors and the line
 * numbers `scan-tools` reports point at the file as written.
 *
 * Private (src/lib).
 */

/** What {@link parseJsonc} read. */
export interface JsoncValue {
  value: unknown;
  /** True when the text needed the JSONC reading (it had comments or trailing commas). */
  hadComments: boolean;
}

/**
 * Parse JSON, or JSON with comments and trailing commas. Strict JSON is tried first, so
 * plain JSON costs one `JSON.parse`. Throws the `SyntaxError` of `JSON.parse` on text
 * that is neither; its positions are those of the original text.
 *
 * @example
 * ```ts
 * import { parseJsonc } from "../lib/jsonc.js";
 * const read = parseJsonc('{ // servers\n "servers": { "a": { "command": "x", }, } }');
 * console.log(read.hadComments, Object.keys(read.value as object)); // true ["servers"]
 * ```
 */
export function parseJsonc(text: string): JsoncValue {
  try {
    return { value: JSON.parse(text), hadComments: false };
  } catch {
    return { value: JSON.parse(blankJsoncExtras(text)), hadComments: true };
  }
}

/**
 * The text with comments and trailing commas blanked out: each of their characters
 * becomes a space, except line breaks, which are kept. Strings are copied verbatim (a
 * `//` inside a string is text). One pass; linear in the length of the text.
 *
 * @example
 * ```ts
 * import { blankJsoncExtras } from "../lib/jsonc.js";
 * console.log(blankJsoncExtras('[1, /* two *\/ 2,]')); // "[1,           2 ]"
 * ```
 */
export function blankJsoncExtras(text: string): string {
  const out: string[] = [];
  // Index in `out` of the last comma outside strings, while only blanks follow it.
  let pendingComma = -1;
  let i = 0;
  const n = text.length;
  while (i < n) {
    const ch = text[i]!;
    if (ch === '"') {
      let j = i + 1;
      while (j < n && text[j] !== '"') j += text[j] === "\\" ? 2 : 1;
      out.push(text.slice(i, j + 1));
      i = j + 1;
      pendingComma = -1;
    } else if (ch === "/" && text[i + 1] === "/") {
      let j = i;
      while (j < n && text[j] !== "\n" && text[j] !== "\r") j++;
      out.push(" ".repeat(j - i));
      i = j;
    } else if (ch === "/" && text[i + 1] === "*") {
      const close = text.indexOf("*/", i + 2);
      const end = close === -1 ? n : close + 2;
      out.push(text.slice(i, end).replace(/[^\r\n]/g, " "));
      i = end;
    } else if (ch === ",") {
      pendingComma = out.length;
      out.push(ch);
      i++;
    } else if (ch === "}" || ch === "]") {
      if (pendingComma !== -1) out[pendingComma] = " ";
      pendingComma = -1;
      out.push(ch);
      i++;
    } else {
      if (ch !== " " && ch !== "\t" && ch !== "\n" && ch !== "\r") pendingComma = -1;
      out.push(ch);
      i++;
    }
  }
  return out.join("");
}
