/** Printable excerpts of spans: control, invisible and non-printing characters escaped. */
import { isInvisibleCodePoint } from "./normalize.js";

/** Longest excerpt, in characters of the original text. */
export const MAX_EXCERPT = 160;

/**
 * The span `[start, end)` of `text`, at most {@link MAX_EXCERPT} characters, with every
 * control, invisible or lone-surrogate character written as `\u{XXXX}` so a terminal or a
 * reviewer sees exactly what is there.
 */
export function printableExcerpt(text: string, start: number, end: number): string {
  const stop = Math.min(end, start + MAX_EXCERPT);
  let out = "";
  for (let i = start; i < stop; ) {
    const cp = text.codePointAt(i)!;
    const width = cp > 0xffff ? 2 : 1;
    const lone = cp >= 0xd800 && cp <= 0xdfff;
    if (cp < 0x20 || (cp >= 0x7f && cp <= 0x9f) || isInvisibleCodePoint(cp) || lone) {
      out += cp === 0x0a ? "\\n" : cp === 0x09 ? "\\t" : `\\u{${cp.toString(16).toUpperCase()}}`;
    } else {
      out += String.fromCodePoint(cp);
    }
    i += width;
  }
  return stop < end ? `${out}…` : out;
}
