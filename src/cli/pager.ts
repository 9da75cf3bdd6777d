/**
 * Paging on the terminal, for what a reviewer must read before approving: a definition
 * taller than the screen is shown a screenful at a time, with a "more" prompt between
 * screens, so its end (where a payload hides) is never scrolled past unread. Rows are
 * counted as the terminal wraps them: colour sequences take no room, wide (East Asian)
 * characters take two columns.
 */
import { askLine } from "./prompt.js";

/** The terminal size used when the stream does not report one. */
export const DEFAULT_TERMINAL = Object.freeze({ rows: 24, columns: 80 });

// Our own colour sequences (SGR): zero width. Text from a server is escaped before it
// gets here, so it holds no escape character of its own.
const SGR = /\u001b\[[0-9;]*m/y;

/** Columns a code point takes on a terminal: 2 for wide East Asian ranges and emoji, else 1. */
function columnsOf(code: number): number {
  return (code >= 0x1100 && code <= 0x115f) ||
    (code >= 0x2e80 && code <= 0xa4cf) ||
    (code >= 0xac00 && code <= 0xd7a3) ||
    (code >= 0xf900 && code <= 0xfaff) ||
    (code >= 0xfe30 && code <= 0xfe4f) ||
    (code >= 0xff00 && code <= 0xff60) ||
    (code >= 0xffe0 && code <= 0xffe6) ||
    (code >= 0x1f300 && code <= 0x1faff) ||
    (code >= 0x20000 && code <= 0x3fffd)
    ? 2
    : 1;
}

/**
 * Split one line into the rows a terminal of `columns` columns shows it on.
 *
 * @example
 * ```ts
 * import { wrapRows } from "./pager.js";
 * console.log(wrapRows("abcdef", 4)); // ["abcd", "ef"]
 * ```
 */
export function wrapRows(line: string, columns: number): string[] {
  const width = Math.max(1, columns);
  const rows: string[] = [];
  let start = 0;
  let used = 0;
  let i = 0;
  while (i < line.length) {
    SGR.lastIndex = i;
    const sgr = SGR.exec(line);
    if (sgr !== null) {
      i += sgr[0].length;
      continue;
    }
    const code = line.codePointAt(i)!;
    const size = code > 0xffff ? 2 : 1;
    const cols = columnsOf(code);
    if (used + cols > width) {
      rows.push(line.slice(start, i));
      start = i;
      used = 0;
    }
    used += cols;
    i += size;
  }
  rows.push(line.slice(start));
  return rows;
}

/** Where pages go and how large a screen is. */
export interface PageTarget {
  write(text: string): void;
  rows: number;
  columns: number;
}

/**
 * The terminal that `stream` is, with its size (or {@link DEFAULT_TERMINAL}'s).
 *
 * @example
 * ```ts
 * import { terminalOf } from "./pager.js";
 * console.log(terminalOf(process.stderr).rows > 0); // true
 * ```
 */
export function terminalOf(stream: NodeJS.WriteStream): PageTarget {
  return {
    write: (text) => stream.write(text),
    rows: stream.rows > 2 ? stream.rows : DEFAULT_TERMINAL.rows,
    columns: stream.columns > 0 ? stream.columns : DEFAULT_TERMINAL.columns,
  };
}

/**
 * Show lines a screenful at a time: when they do not fit, each screen but the last ends
 * with a "more" prompt (Enter shows the next screen; `s` skips to the question that
 * follows). Resolves when everything was shown or skipped; rejects with the prompt's
 * `CLI_INTERRUPTED` on Ctrl-C.
 *
 * @example
 * ```ts
 * import { pageLines, terminalOf } from "./pager.js";
 * await pageLines(["line 1", "line 2"], terminalOf(process.stderr));
 * ```
 */
export async function pageLines(lines: readonly string[], to: PageTarget): Promise<void> {
  // One row stays free for the prompt that follows the last screen.
  const screen = Math.max(1, to.rows - 1);
  const pages = paginate(lines, to.columns, screen);
  const total = pages.reduce((n, p) => n + p.rows, 0);
  let shown = 0;
  for (let k = 0; k < pages.length; k++) {
    const page = pages[k]!;
    if (page.lines.length > 0) to.write(`${page.lines.join("\n")}\n`);
    shown += page.rows;
    if (k === pages.length - 1) return;
    const answer = await askLine(
      `-- more: ${shown} of ${total} rows shown; Enter for the next screen, s to skip to the question -- `,
    );
    if (answer === null || answer.trim().toLowerCase() === "s") {
      to.write(`   (${total - shown} rows not shown; answer v to see the whole definition)\n`);
      return;
    }
  }
}

/** One screenful: the text lines to write and the rows they take. */
export interface Page {
  lines: string[];
  rows: number;
}

/**
 * Cut lines into screens of `screen` rows. A line is written whole when it fits (the
 * terminal wraps it, and a copied description stays one line); a line that does not fit
 * in what is left of a screen starts the next one, unless it is taller than a screen:
 * then it fills the screen and goes on, cut only at the terminal's own wrap points.
 *
 * @example
 * ```ts
 * import { paginate } from "./pager.js";
 * console.log(paginate(["a", "bbbbbbb"], 4, 2).map((p) => p.lines)); // [["a", "bbbb"], ["bbb"]]
 * ```
 */
export function paginate(lines: readonly string[], columns: number, screen: number): Page[] {
  const pages: Page[] = [{ lines: [], rows: 0 }];
  for (const line of lines) {
    let rows = wrapRows(line, columns);
    while (rows.length > 0) {
      let page = pages[pages.length - 1]!;
      const room = screen - page.rows;
      if (rows.length > room && (rows.length <= screen || room === 0)) {
        page = { lines: [], rows: 0 };
        pages.push(page);
      }
      const take = rows.slice(0, screen - page.rows);
      page.lines.push(take.join(""));
      page.rows += take.length;
      rows = rows.slice(take.length);
    }
  }
  return pages;
}
