/**
 * Texts already found clean within one scan. Real listings repeat their texts: every
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
  private readonly byKind = new Map<TextSite["kind"], Set<string>>();

  has(kind: TextSite["kind"], text: string): boolean {
    return this.byKind.get(kind)?.has(text) === true;
  }

  add(kind: TextSite["kind"], text: string): void {
    let texts = this.byKind.get(kind);
    if (texts === undefined) {
      texts = new Set();
      this.byKind.set(kind, texts);
    }
    texts.add(text);
  }
}
