/**
 * Texts already found clean within one scan. Real listings repeat their schema texts: every
 * GitHub tool describes `owner`, `repo` and `page` the same way, so a scan of a whole
 * listing reads each distinct text once. Only a clean result whose reading did not depend
 * on the tool's own name is kept (see `ownNameSkipCount` in shadowing.ts), keyed by where
 * the text sits (a schema text can carry signals a description cannot) and by the text.
 * One set lives for one `scanTools` call and is dropped with it: nothing carries over from
 * one scan to the next.
 */
import type { TextSite } from "./types.js";

/**
 * The texts of one scan found to carry no signal, per site kind.
 *
 * @example
 * ```ts
 * import { CleanTexts } from "./clean-texts.js";
 * const clean = new CleanTexts();
 * clean.add("schema-description", "Repository owner");
 * console.log(clean.has("schema-description", "Repository owner"), clean.has("description", "Repository owner")); // true false
 * ```
 */
export class CleanTexts {
  /** For each clean text, a bit per site kind it was found clean in: one lookup a text. */
  private readonly kinds = new Map<string, number>();

  has(kind: TextSite["kind"], text: string): boolean {
    return (this.kindsOf(text) & KIND_BIT[kind]) !== 0;
  }

  add(kind: TextSite["kind"], text: string): void {
    this.addKinds(text, this.kindsOf(text), kind);
  }

  /** The kinds `text` was found clean in, as bits (0 for none): read once, then {@link addKinds}. */
  kindsOf(text: string): number {
    return this.kinds.get(text) ?? 0;
  }

  /** {@link add} for a text whose {@link kindsOf} is already known: one map write, no read. */
  addKinds(text: string, known: number, kind: TextSite["kind"]): void {
    this.kinds.set(text, known | KIND_BIT[kind]);
  }

  /** The bit of `kind` in {@link kindsOf}. */
  static bitOf(kind: TextSite["kind"]): number {
    return KIND_BIT[kind];
  }
}

const KIND_BIT: Readonly<Record<TextSite["kind"], number>> = {
  description: 1,
  "schema-description": 2,
  "schema-title": 4,
  "schema-default": 8,
  "schema-enum": 16,
  "schema-other": 32,
  instructions: 64,
};
