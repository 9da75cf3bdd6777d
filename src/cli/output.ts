import { InvalidArgumentError } from "commander";
import pc from "picocolors";

/** Output formats of the operator commands. */
export type OutputFormat = "text" | "json";

/** Colour functions: picocolors when stdout is a colour terminal, identity otherwise. */
export interface Palette {
  red(text: string): string;
  green(text: string): string;
  yellow(text: string): string;
  dim(text: string): string;
  bold(text: string): string;
}

/**
 * Whether to colour what goes to a stream: never under `NO_COLOR`; always under a
 * non-empty `FORCE_COLOR` other than `0`; otherwise only on a terminal. picocolors alone
 * is not asked, because it also colours whenever `CI` is set, and a pipe in CI must get
 * plain text like any other pipe.
 *
 * @example
 * ```ts
 * import { colorEnabled } from "./output.js";
 * console.log(colorEnabled({ isTTY: false })); // false (unless FORCE_COLOR is set)
 * ```
 */
export function colorEnabled(
  stream: { isTTY?: boolean },
  env: NodeJS.ProcessEnv = process.env,
): boolean {
  if (env.NO_COLOR !== undefined && env.NO_COLOR !== "") return false;
  const force = env.FORCE_COLOR;
  if (force !== undefined && force !== "") return force !== "0" && force !== "false";
  return stream.isTTY === true && pc.isColorSupported;
}

/**
 * Colours for a stream, as {@link colorEnabled} decides (JSON output passes `{}`).
 *
 * @example
 * ```ts
 * import { paletteFor } from "./output.js";
 * const c = paletteFor(process.stdout);
 * console.log(c.red("refused"));
 * ```
 */
export function paletteFor(stream: { isTTY?: boolean }): Palette {
  const colors = pc.createColors(colorEnabled(stream));
  return {
    red: colors.red,
    green: colors.green,
    yellow: colors.yellow,
    dim: colors.dim,
    bold: colors.bold,
  };
}

/**
 * Escape what a terminal would act on in text that came from a server: control
 * characters (except newline and tab), bidirectional overrides, lone surrogates.
 *
 * @example
 * ```ts
 * import { printable } from "./output.js";
 * console.log(printable("evil\u001b[2J")); // "evil\\u001b[2J"
 * ```
 */
export function printable(text: string): string {
  return text.replace(
    /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u200e\u200f\u202a-\u202e\u2066-\u2069]|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g,
    (ch) => `\\u${ch.charCodeAt(0).toString(16).padStart(4, "0")}`,
  );
}

/** Output formats of the commands that also write a Markdown report (`pin`, `check`). */
export type ReportFormat = OutputFormat | "markdown";

/**
 * Validate `--output` of `pin` and `check`: text, json or markdown.
 *
 * @example
 * ```ts
 * import { parseReportFormat } from "./output.js";
 * console.log(parseReportFormat("markdown")); // "markdown"
 * ```
 */
export function parseReportFormat(value: string): ReportFormat {
  if (value === "text" || value === "json" || value === "markdown") return value;
  throw new InvalidArgumentError(
    `--output must be text, json or markdown, got ${JSON.stringify(value)}`,
  );
}

/** Validate `--output`. */
export function parseOutputFormat(value: string): OutputFormat {
  if (value === "text" || value === "json") return value;
  throw new Error(`--output must be text or json, got ${JSON.stringify(value)}`);
}

/** Progress and diagnostics go to stderr, so stdout stays clean for JSON. */
export function progressLine(line: string): void {
  process.stderr.write(`airlock: ${printable(line)}\n`);
}

/** Write a JSON document to stdout. */
export function writeJson(value: unknown): void {
  process.stdout.write(`${JSON.stringify(value, null, 2)}\n`);
}

/**
 * A commander option parser for positive integers (`--max-pages`, `--timeout`...): a bad
 * value is a usage error (exit 2).
 *
 * @example
 * ```ts
 * import { positiveInteger } from "./output.js";
 * positiveInteger("100"); // 100
 * ```
 */
export function positiveInteger(value: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n <= 0) {
    throw new InvalidArgumentError(`expected a positive integer, got ${JSON.stringify(value)}`);
  }
  return n;
}
