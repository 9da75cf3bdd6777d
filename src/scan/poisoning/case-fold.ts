/**
 * The lower-case twin of a matching text, unit for unit, so the phrase patterns can be
 * written in lower case and run without the `i` flag. A case-insensitive pattern costs
 * V8 two to three times as much to compile as the same pattern without `i`, and a
 * whole-process scan compiles every pattern it runs once; matching speed is the same.
 * Offsets in the twin are offsets in the original, so hits need no mapping.
 */

/** Lower-case each UTF-16 unit whose lower case is one unit; keep every other unit. */
function foldUnits(text: string): string {
  let out = "";
  let from = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    let lower: string;
    if (c < 0x80) {
      if (c < 0x41 || c > 0x5a) continue;
      lower = String.fromCharCode(c + 0x20);
    } else {
      const unit = text[i]!;
      lower = unit.toLowerCase();
      if (lower === unit || lower.length !== 1) continue;
    }
    out += text.slice(from, i) + lower;
    from = i + 1;
  }
  return from === 0 ? text : out + text.slice(from);
}

/**
 * `text` in lower case with the same length, so every offset means the same character.
 * Where lower-casing would change the length (`İ` becomes two units), that unit is kept
 * as it is: the phrase patterns hold no such character.
 *
 * @example
 * ```ts
 * import { foldCase } from "./case-fold.js";
 * console.log(foldCase("IGNORE Previous İnstructions")); // "ignore previous İnstructions"
 * ```
 */
export function foldCase(text: string): string {
  const lower = text.toLowerCase();
  // Lower-casing only ever keeps or grows a unit count, so an equal length means every
  // unit mapped to one unit in place.
  return lower.length === text.length ? lower : foldUnits(text);
}
