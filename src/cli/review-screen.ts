/**
 * What `airlock pin` shows a reviewer for one tool before asking: never a cut definition.
 * The description whole, the schemas and annotations pretty-printed whole, each scan
 * finding with its message and the excerpt it quotes, and for a changed tool the diff. The
 * whole definition as listed (every field, pinned or not) is one answer away (`v`).
 * Everything from the server is escaped for the terminal.
 */
import { PINNED_FIELDS } from "../canonical/index.js";
import { prettyJson } from "../pins/json-preview.js";
import type { TargetResult } from "../scan/types.js";
import { type Palette, printable } from "./output.js";
import { renderToolReview, type ToolReview } from "./review.js";

/**
 * Most characters of one field (or of the whole definition) shown: far past any real
 * definition (the largest of 2,089 real tools is 108 kB pretty-printed), a bound on hostile ones
 * (a 100,000-level schema pretty-prints to gigabytes). Past it the screen says so.
 */
export const MAX_SHOWN_CHARACTERS = 4 * 1024 * 1024;

const INDENT = "        ";
/** The fields a version 2 pin covers (PINNED_FIELDS[2]), in reading order. */
const SHOWN_FIELDS = ["description", "inputSchema", "outputSchema", "annotations"] as const;
const isRecord = (v: unknown): v is Record<string, unknown> =>
  typeof v === "object" && v !== null && !Array.isArray(v);

/** A value's lines, indented, escaped; a string as its text, anything else as indented JSON. */
function valueLines(value: unknown, c: Palette): string[] {
  let text: string;
  let complete = true;
  if (typeof value === "string") {
    complete = value.length <= MAX_SHOWN_CHARACTERS;
    text = complete ? value : value.slice(0, MAX_SHOWN_CHARACTERS);
  } else {
    ({ text, complete } = prettyJson(value, MAX_SHOWN_CHARACTERS));
  }
  const lines = printable(text)
    .split("\n")
    .map((line) => `${INDENT}${line}`);
  if (!complete) {
    lines.push(
      c.red(
        `${INDENT}[too large to show past ${MAX_SHOWN_CHARACTERS} characters: no real tool is this large; decline it]`,
      ),
    );
  }
  return lines;
}

/** The pinned fields of a new tool, each in full. */
function newToolLines(item: ToolReview, c: Palette): string[] {
  const lines = [`  ${c.yellow("NEW".padEnd(10))} ${c.bold(printable(JSON.stringify(item.name)))}`];
  const def = isRecord(item.definition) ? item.definition : {};
  for (const field of SHOWN_FIELDS) {
    if (!Object.hasOwn(def, field) || def[field] === undefined) continue;
    const value = def[field];
    const size = typeof value === "string" ? ` (${value.length} characters)` : "";
    lines.push(`      ${field}${size}:`, ...valueLines(value, c));
  }
  const other = Object.keys(def).filter(
    (k) => k !== "name" && !(PINNED_FIELDS[2] as readonly string[]).includes(k),
  );
  if (other.length > 0) {
    lines.push(
      c.dim(
        `      not pinned (answer v to read them): ${other.map((k) => printable(JSON.stringify(k))).join(", ")}`,
      ),
    );
  }
  return lines;
}

/** The scan grade and every unsuppressed finding, with its pointer and its excerpt quoted. */
function scanLines(scan: TargetResult, c: Palette): string[] {
  const grade =
    scan.grade === "pass"
      ? c.green("pass")
      : scan.grade === "warn"
        ? c.yellow("warn")
        : c.red("fail");
  const lines = [`      scan-tools: ${grade}`];
  for (const f of scan.findings) {
    if (f.suppressed) continue;
    const tone = f.grade === "fail" ? c.red : c.yellow;
    const at = f.pointer ? ` at ${printable(f.pointer)}` : "";
    const signal = f.signal ? ` [${printable(f.signal)}]` : "";
    lines.push(`        ${tone(`${f.code} ${f.grade}`)}${at}${signal}: ${printable(f.message)}`);
    if (f.excerpt) lines.push(`          quoted: «${printable(f.excerpt)}»`);
  }
  return lines;
}

/**
 * The lines shown for a tool under review: a new tool's pinned fields in full, or a
 * changed tool's diff (values shown whole), then its scan findings.
 *
 * @example
 * ```ts
 * import { plainPalette } from "./review.js";
 * import { reviewScreen } from "./review-screen.js";
 * const item = { name: "t", index: 0, status: "unpinned" as const, verdict: null, detail: "", diff: null, definition: { name: "t", description: "Adds." } };
 * console.log(reviewScreen(item, undefined, plainPalette)[1]); // "      description (5 characters):"
 * ```
 */
export function reviewScreen(
  item: ToolReview,
  scan: TargetResult | undefined,
  c: Palette,
): string[] {
  const lines =
    item.status === "drift"
      ? renderToolReview(item, c, { maxValueLength: MAX_SHOWN_CHARACTERS })
      : newToolLines(item, c);
  if (scan) lines.push(...scanLines(scan, c));
  return lines;
}

/**
 * The whole definition as listed (every field, pinned or not), pretty-printed: what `v`
 * shows.
 *
 * @example
 * ```ts
 * import { plainPalette } from "./review.js";
 * import { wholeDefinition } from "./review-screen.js";
 * console.log(wholeDefinition({ name: "t" }, plainPalette)[1]); // "        {"
 * ```
 */
export function wholeDefinition(definition: unknown, c: Palette): string[] {
  return [
    c.bold("      the whole definition, as the server listed it:"),
    ...valueLines(definition, c),
  ];
}
