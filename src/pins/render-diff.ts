/**
 * The text form of a definition diff (diff.ts computes it): what `airlock pin` and
 * `airlock check` print before a changed tool is re-approved. An annotation change is
 * shown by the direction of risk it takes (annotation-risk.ts): toward more risk in red
 * and in words, never as a green addition.
 */
import { type AnnotationRisk, judgeAnnotationChange } from "./annotation-risk.js";
import type { DefinitionDiff, JsonChange } from "./diff.js";
import { preview, printable } from "./json-preview.js";

/** Options of {@link renderDefinitionDiff}. */
export interface RenderDiffOptions {
  /**
   * Colour functions (e.g. picocolors); plain text markers are always present, and an
   * annotation's direction of risk is always said in words. `yellow` (default: none)
   * marks an annotation that now claims less risk.
   */
  colors?: {
    red(text: string): string;
    green(text: string): string;
    dim(text: string): string;
    yellow?(text: string): string;
  };
  /** Indentation of every line (default two spaces). */
  indent?: string;
  /** Longest JSON value shown before it is cut (default 200 characters). */
  maxValueLength?: number;
}

/**
 * Render a diff as text lines a person can review in a terminal. Removed words are shown
 * as `[-words-]`, added ones as `{+words+}` (git's word-diff markers), JSON changes as
 * `+`, `-`, `~` lines with their pointer. Control and bidirectional-override characters
 * from the server are escaped, so a hostile description cannot rewrite the terminal.
 *
 * @example
 * ```ts
 * import { diffToolDefinitions, renderDefinitionDiff } from "agent-airlock";
 * const text = renderDefinitionDiff(
 *   diffToolDefinitions({ name: "t", inputSchema: { type: "object" } }, { name: "t", inputSchema: { type: "array" } }),
 * );
 * console.log(text); // "  inputSchema:\n    ~ /type: \"object\" -> \"array\""
 * ```
 */
export function renderDefinitionDiff(
  diff: DefinitionDiff,
  options: RenderDiffOptions = {},
): string {
  const indent = options.indent ?? "  ";
  const red = options.colors?.red ?? identity;
  const green = options.colors?.green ?? identity;
  const dim = options.colors?.dim ?? identity;
  const max = options.maxValueLength ?? 200;
  const lines: string[] = [];
  if (diff.renamed) {
    lines.push(
      `${indent}name: ${red(printable(diff.renamed.before))} -> ${green(printable(diff.renamed.after))}`,
    );
  }
  for (const field of diff.fields) {
    if (field.field === "description") {
      const { text } = field;
      if (text.before === null) {
        lines.push(`${indent}description: added`);
      } else if (text.after === null) {
        lines.push(`${indent}description: removed`);
      } else {
        lines.push(`${indent}description:`);
      }
      const body = text.parts
        .map((part) => {
          const shown = printable(part.text);
          if (part.op === "same") return shown;
          if (part.op === "remove") return red(`[-${shown}-]`);
          return green(`{+${shown}+}`);
        })
        .join("");
      lines.push(`${indent}${indent}${body}`);
      continue;
    }
    lines.push(`${indent}${field.field}:`);
    for (const change of field.changes) {
      const risks =
        field.field === "annotations"
          ? judgeAnnotationChange(change.pointer, change.before, change.after)
          : [];
      const line = `${indent}${indent}${changeText(change, max, risks.length > 0 ? identity : red, risks.length > 0 ? identity : green)}`;
      if (risks.length === 0) {
        const flip = isFlip(change) ? dim(" (flipped)") : "";
        lines.push(change.op === "change" ? `${line}${flip}` : line);
        continue;
      }
      // Coloured by the direction of risk, and said in words (colour may be off).
      const more = risks.some((r) => r.direction === "more");
      const tone = more ? red : (options.colors?.yellow ?? identity);
      lines.push(tone(`${line} (${isFlip(change) ? "flipped, " : ""}${riskWords(risks)})`));
    }
  }
  if (diff.truncated)
    lines.push(
      dim(`${indent}(diff truncated: the definitions are too large or too deep to show in full)`),
    );
  return lines.join("\n");
}

function identity(text: string): string {
  return text;
}

/** `+ /p: v`, `- /p: v` or `~ /p: a -> b`, old values through `red`, new ones through `green`. */
function changeText(
  change: JsonChange,
  max: number,
  red: (text: string) => string,
  green: (text: string) => string,
): string {
  const at = change.pointer === "" ? "(whole field)" : printable(change.pointer);
  if (change.op === "add") return green(`+ ${at}: ${preview(change.after, max)}`);
  if (change.op === "remove") return red(`- ${at}: ${preview(change.before, max)}`);
  return `~ ${at}: ${red(preview(change.before, max))} -> ${green(preview(change.after, max))}`;
}

function isFlip(change: JsonChange): boolean {
  return (
    change.op === "change" &&
    typeof change.before === "boolean" &&
    typeof change.after === "boolean"
  );
}

/** The risk moves of one change in words, riskier first. */
function riskWords(risks: AnnotationRisk[]): string {
  return [...risks]
    .sort((a, b) => (a.direction === b.direction ? 0 : a.direction === "more" ? -1 : 1))
    .map((r) => (risks.length > 1 ? `${r.hint}: ${r.says}` : r.says))
    .join("; ");
}
