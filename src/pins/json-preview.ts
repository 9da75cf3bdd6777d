/**
 * Short, safe text forms of values from a server for a diff: a JSON preview cut to a
 * length (written iteratively, so a deep or cyclic value cannot overflow the stack) and
 * the escaping of what a terminal would act on. Shared by diff.ts and render-diff.ts.
 */

/**
 * A JSON preview of a value, cut to `max` characters (then `…`), escaped for a terminal;
 * never throws.
 *
 * @example
 * ```ts
 * import { preview } from "./json-preview.js";
 * console.log(preview({ a: [1, 2, 3] }, 8)); // "{\"a\":[1,2…"
 * ```
 */
export function preview(value: unknown, max: number): string {
  let text: string;
  try {
    text = boundedJson(value, max + 1);
  } catch {
    text = "[unprintable]";
  }
  if (text.length > max) text = `${text.slice(0, max)}…`;
  return printable(text);
}

/**
 * A value as indented JSON (two spaces), written iteratively, stopping once `budget`
 * characters are produced: a deep or cyclic value cannot overflow the stack, and a
 * hostile one (100,000 levels pretty-print to gigabytes of indentation) stops at the
 * budget. `complete` is false when it stopped; the text is not escaped for a terminal.
 *
 * @example
 * ```ts
 * import { prettyJson } from "./json-preview.js";
 * console.log(prettyJson({ a: [1] }, 100)); // { text: "{\n  \"a\": [\n    1\n  ]\n}", complete: true }
 * ```
 */
export function prettyJson(value: unknown, budget: number): { text: string; complete: boolean } {
  const text = boundedJson(value, budget, "  ");
  return text.length > budget
    ? { text: text.slice(0, budget), complete: false }
    : { text, complete: true };
}

/** A container being written by {@link boundedJson}: its keys (null for an array) and the next member. */
interface OpenContainer {
  value: object;
  keys: string[] | null;
  next: number;
}

/**
 * JSON text of a value, stopping once `budget` characters are produced (an iterative
 * writer, so a deep or cyclic value cannot overflow the stack). Members are taken one at
 * a time, so a huge container costs what is written of it, not its size. With an
 * `indent`, each member is on its own line, indented by depth (JSON.stringify's layout).
 */
function boundedJson(value: unknown, budget: number, indent = ""): string {
  let out = "";
  const seen = new Set<object>();
  const open: OpenContainer[] = [];
  const newline = (depth: number) => (indent === "" ? "" : `\n${indent.repeat(depth)}`);
  const write = (v: unknown): void => {
    if (v === undefined) out += "null";
    else if (typeof v === "number") out += String(v);
    else if (typeof v === "string" || typeof v === "boolean" || v === null)
      out += JSON.stringify(v);
    else if (typeof v !== "object") out += JSON.stringify(String(v));
    else if (seen.has(v)) out += '"[cycle]"';
    else {
      seen.add(v);
      const keys = Array.isArray(v) ? null : Object.keys(v);
      out += keys === null ? "[" : "{";
      open.push({ value: v, keys, next: 0 });
    }
  };
  write(value);
  while (open.length > 0 && out.length <= budget) {
    const top = open[open.length - 1]!;
    const size = top.keys === null ? (top.value as unknown[]).length : top.keys.length;
    if (top.next === size) {
      if (size > 0) out += newline(open.length - 1);
      out += top.keys === null ? "]" : "}";
      open.pop();
      continue;
    }
    const i = top.next++;
    if (i > 0) out += ",";
    out += newline(open.length);
    if (top.keys === null) {
      write((top.value as unknown[])[i]);
    } else {
      const key = top.keys[i]!;
      out += `${JSON.stringify(key)}:${indent === "" ? "" : " "}`;
      write((top.value as Record<string, unknown>)[key]);
    }
  }
  return out;
}

/**
 * Escape what a terminal would act on: C0/C1 control characters (except newline and tab),
 * bidirectional overrides and isolates, and lone surrogates.
 *
 * @example
 * ```ts
 * import { printable } from "./json-preview.js";
 * console.log(printable("a\u202eb")); // "a\\u202eb"
 * ```
 */
export function printable(text: string): string {
  return text.replace(
    /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u200e\u200f\u202a-\u202e\u2066-\u2069]|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g,
    (ch) => `\\u${ch.charCodeAt(0).toString(16).padStart(4, "0")}`,
  );
}
