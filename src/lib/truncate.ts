/**
 * Cutting a value from the input down to size before it goes into a message: a hostile
 * file can hold a megabyte-long key or a million-level JSON pointer, and an error message
 * should name it, not repeat it.
 *
 * Private (src/lib).
 */

/**
 * `text`, or its first `max` UTF-16 units followed by `…`.
 *
 * @example
 * ```ts
 * import { truncateText } from "../lib/truncate.js";
 * console.log(truncateText("abcdef", 3)); // "abc…"
 * ```
 */
export function truncateText(text: string, max: number): string {
  return text.length > max ? `${text.slice(0, max)}…` : text;
}
