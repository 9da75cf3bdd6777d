/**
 * Writing Markdown that quotes a server's text safely, for the reports people paste into
 * a pull request or a ticket (`--output markdown` of `scan-tools`, `check`, `pin`). A tool
 * name or description is hostile input: a backtick, a pipe in a table, `<img src=...>`,
 * `[click](https://...)` or a bidi override must show as the characters they are, never
 * become markup, a link, HTML or a broken table. Three forms:
 *
 * - {@link mdText}: prose (our words with a server's words inside): every ASCII
 *   punctuation character CommonMark could read as markup is backslash-escaped, `<`, `>`
 *   and `&` become entities, line breaks become spaces.
 * - {@link mdCode}: an inline code span whose fence is longer than any run of backticks
 *   inside, so nothing inside is markup, HTML or a link.
 * - {@link mdFence}: a fenced block for multi-line text (a description, a schema), fenced
 *   the same way.
 *
 * Control, bidirectional and invisible characters are escaped as `\u{...}` in all three,
 * so the reader sees them. Private (src/lib).
 */

// Control, format (bidi, zero-width, tags), line and paragraph separators.
const UNPRINTABLE = /[\p{Cc}\p{Cf}\p{Zl}\p{Zp}]/gu;
const UNPRINTABLE_BUT_NEWLINE = /(?!\n)[\p{Cc}\p{Cf}\p{Zl}\p{Zp}]/gu;

const escapeUnprintable = (text: string, keepNewlines: boolean) =>
  text.replace(
    keepNewlines ? UNPRINTABLE_BUT_NEWLINE : UNPRINTABLE,
    (ch) => `\\u{${ch.codePointAt(0)!.toString(16)}}`,
  );

// Every ASCII punctuation character that can open or close markup in CommonMark or GFM
// (emphasis, code, links, images, headings, lists, tables, strikethrough, autolinks).
const MARKUP = /[\\`*_{}[\]()#+\-.!|~:^"'=$@/]/g;

/**
 * Prose: text from anywhere, shown as literal characters in Markdown (and in a table cell).
 *
 * @example
 * ```ts
 * import { mdText } from "../lib/markdown.js";
 * console.log(mdText("a|b <img> *x*")); // "a\\|b &lt;img&gt; \\*x\\*"
 * ```
 */
export function mdText(text: string): string {
  return escapeUnprintable(text.replace(/\r\n|\r|\n/g, " "), false)
    .replace(MARKUP, (ch) => `\\${ch}`)
    .replace(/&/g, "&amp;")
    .replace(/</g, "&lt;")
    .replace(/>/g, "&gt;");
}

/** The longest run of `mark` in `text`. */
function longestRun(text: string, mark: string): number {
  let longest = 0;
  let run = 0;
  for (const ch of text) {
    run = ch === mark ? run + 1 : 0;
    if (run > longest) longest = run;
  }
  return longest;
}

/**
 * An inline code span. `inTable`: a `|` is escaped as GFM requires inside a table cell
 * (even inside code); elsewhere it is left as is.
 *
 * @example
 * ```ts
 * import { mdCode } from "../lib/markdown.js";
 * console.log(mdCode("read`file")); // "``read`file``"
 * ```
 */
export function mdCode(text: string, options: { inTable?: boolean } = {}): string {
  let body = escapeUnprintable(text.replace(/\r\n|\r|\n/g, " "), false);
  if (options.inTable) body = body.replace(/\|/g, "\\|");
  const fence = "`".repeat(longestRun(body, "`") + 1);
  // A span that starts or ends with a backtick or a space needs a space of padding
  // (CommonMark strips one from each side), unless it is only spaces (kept as they are).
  const pad = /^[` ]|[` ]$/.test(body) && !/^ *$/.test(body) ? " " : "";
  return `${fence}${pad}${body}${pad}${fence}`;
}

/**
 * A fenced code block (with a language tag or none) holding `text` verbatim, except
 * escaped control and invisible characters. Ends with a newline.
 *
 * @example
 * ```ts
 * import { mdFence } from "../lib/markdown.js";
 * console.log(mdFence("```\nhi", "text")); // "````text\n```\nhi\n````\n"
 * ```
 */
export function mdFence(text: string, language = ""): string {
  const body = escapeUnprintable(text.replace(/\r\n|\r/g, "\n"), true);
  const fence = "`".repeat(Math.max(3, longestRun(body, "`") + 1));
  return `${fence}${language}\n${body}\n${fence}\n`;
}

/**
 * A GFM table: a header row and the rows, cells already made safe (with
 * {@link mdText} or `mdCode(x, { inTable: true })`).
 *
 * @example
 * ```ts
 * import { mdTable } from "../lib/markdown.js";
 * console.log(mdTable(["a", "b"], [["1", "2"]])); // "| a | b |\n|---|---|\n| 1 | 2 |\n"
 * ```
 */
export function mdTable(header: readonly string[], rows: readonly (readonly string[])[]): string {
  const line = (cells: readonly string[]) => `| ${cells.join(" | ")} |\n`;
  return `${line(header)}|${header.map(() => "---").join("|")}|\n${rows.map(line).join("")}`;
}

/**
 * Text inside raw HTML (a `<summary>`): entities for `& < > " '`, control and invisible
 * characters escaped, line breaks as spaces. Markdown is not read there.
 *
 * @example
 * ```ts
 * import { htmlText } from "../lib/markdown.js";
 * console.log(htmlText("<b>&")); // "&lt;b&gt;&amp;"
 * ```
 */
export function htmlText(text: string): string {
  return escapeUnprintable(text.replace(/\r\n|\r|\n/g, " "), false)
    .replace(/&/g, "&amp;")
    .replace(/</g, "&lt;")
    .replace(/>/g, "&gt;")
    .replace(/"/g, "&quot;")
    .replace(/'/g, "&#39;");
}
