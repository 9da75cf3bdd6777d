/**
 * UTF-8 decoding that says where the bytes were not UTF-8. Node's decoders replace an
 * invalid sequence with U+FFFD and say nothing, so a scanned tool name or a pinned
 * definition could silently differ from the bytes on disk. `Buffer.isUtf8` answers the
 * common case at native speed; only text that fails it is walked here, once, to find the
 * first bad byte and count the replacements (the WHATWG decoder's "maximal subpart"
 * rule, so the count is the number of U+FFFD the decoded text holds for them).
 *
 * Private (src/lib).
 */
import { isUtf8 } from "node:buffer";

/** Where a byte sequence stops being UTF-8. */
export interface Utf8Fault {
  /** Byte offset of the first invalid sequence (0-based). */
  offset: number;
  /** How many invalid sequences there are (each decodes to one U+FFFD). */
  count: number;
}

/** Decoded text, and `fault` when some bytes were not UTF-8 (decoded as U+FFFD). */
export interface Utf8Text {
  text: string;
  fault: Utf8Fault | null;
}

/** Sequence length announced by a lead byte, or 0 for a byte that cannot lead. */
function leadLength(byte: number): number {
  if (byte < 0x80) return 1;
  if (byte >= 0xc2 && byte <= 0xdf) return 2;
  if (byte >= 0xe0 && byte <= 0xef) return 3;
  if (byte >= 0xf0 && byte <= 0xf4) return 4;
  return 0;
}

/** Range allowed for the second byte (Unicode table 3-7: no overlong form, surrogate or > U+10FFFF). */
function secondRange(lead: number): [number, number] {
  if (lead === 0xe0) return [0xa0, 0xbf];
  if (lead === 0xed) return [0x80, 0x9f];
  if (lead === 0xf0) return [0x90, 0xbf];
  if (lead === 0xf4) return [0x80, 0x8f];
  return [0x80, 0xbf];
}

/**
 * The first invalid sequence of `bytes` and how many there are; null when the bytes are
 * well-formed UTF-8.
 *
 * @example
 * ```ts
 * import { findUtf8Fault } from "../lib/utf8.js";
 * console.log(findUtf8Fault(Buffer.from([0x61, 0xff, 0x62]))); // { offset: 1, count: 1 }
 * ```
 */
export function findUtf8Fault(bytes: Uint8Array): Utf8Fault | null {
  if (isUtf8(bytes)) return null;
  let first = -1;
  let count = 0;
  let i = 0;
  while (i < bytes.length) {
    const lead = bytes[i]!;
    const length = leadLength(lead);
    let valid = length > 0;
    let used = 1;
    if (length > 1) {
      // A maximal subpart: the lead and the continuation bytes that were still allowed.
      const [low, high] = secondRange(lead);
      for (let k = 1; k < length; k++) {
        const byte = bytes[i + k];
        const [min, max] = k === 1 ? [low, high] : [0x80, 0xbf];
        if (byte === undefined || byte < min || byte > max) {
          valid = false;
          break;
        }
        used++;
      }
    }
    if (!valid) {
      if (first < 0) first = i;
      count++;
    }
    i += used;
  }
  return first < 0 ? null : { offset: first, count };
}

/**
 * Decode UTF-8 bytes (invalid sequences become U+FFFD) and say where they were invalid.
 *
 * @example
 * ```ts
 * import { decodeUtf8 } from "../lib/utf8.js";
 * console.log(decodeUtf8(Buffer.from("café")).fault); // null
 * ```
 */
export function decodeUtf8(bytes: Buffer): Utf8Text {
  return { text: bytes.toString("utf8"), fault: findUtf8Fault(bytes) };
}

/** Text of a file that must be UTF-8, or why it is not (see {@link strictUtf8Text}). */
export type StrictText = { ok: true; text: string } | { ok: false; reason: string };

/**
 * The text of bytes that must be well-formed UTF-8 (a configuration file, a saved
 * listing: a reviewed file must mean one thing), or a reason naming the first bad byte.
 *
 * @example
 * ```ts
 * import { strictUtf8Text } from "../lib/utf8.js";
 * console.log(strictUtf8Text(Buffer.from([0x7b, 0xc3, 0x28]))); // { ok: false, reason: "not UTF-8 (an invalid byte sequence at byte 1)" }
 * ```
 */
export function strictUtf8Text(bytes: Buffer): StrictText {
  const fault = findUtf8Fault(bytes);
  if (fault === null) return { ok: true, text: bytes.toString("utf8") };
  const more = fault.count > 1 ? `, ${fault.count} in all` : "";
  return {
    ok: false,
    reason: `not UTF-8 (an invalid byte sequence at byte ${fault.offset}${more})`,
  };
}
