/**
 * Encoded instructions: base64 (standard or URL-safe), hex and `\xNN` runs that decode
 * to readable text are decoded and scanned again. Bounded: at most 32 candidates per
 * text, 64 KiB per candidate, 256 KiB decoded in all, two levels of nesting.
 */
import { signalsOf } from "./detect.js";
import { readsAsLanguage } from "./language.js";
import type { RawHit, TextSite } from "./types.js";

/** Characters of a base64, base64url, hex or `\\x`-escaped run: 1 in this ASCII table. */
const ENCODING_CHAR = new Uint8Array(128);
for (const c of "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/_-\\") {
  ENCODING_CHAR[c.charCodeAt(0)] = 1;
}

function isEncodingChar(c: number): boolean {
  return c < 128 && ENCODING_CHAR[c] === 1;
}

/** The next run of at least 24 encoding characters (plus up to two `=`) at or after `from`, in one linear pass. */
export function nextCandidate(
  text: string,
  from: number,
): { start: number; end: number } | undefined {
  const n = text.length;
  // `i` is always where a run may start (at `from`, or after a non-encoding character),
  // and `[i, known)` are encoding characters already looked at. A qualifying run starting
  // in [i, i + 23] covers everything from its start to i + 23, so the last non-encoding
  // character in that window, looked for backwards, rules out every start up to it: in
  // prose the window jumps past the last space having read only the word before it.
  let i = from;
  let known = i;
  while (i + 23 < n) {
    let j = i + 23;
    while (j >= known && isEncodingChar(text.charCodeAt(j))) j--;
    if (j >= known) {
      known = i + 24;
      i = j + 1;
      continue;
    }
    let end = i + 24;
    while (end < n && isEncodingChar(text.charCodeAt(end))) end++;
    const runEnd = end;
    while (end < n && end - runEnd < 2 && text.charCodeAt(end) === 0x3d) end++;
    return { start: i, end };
  }
  return undefined;
}
const HEX_ONLY = /^[0-9A-Fa-f]+$/;
const ESCAPED_HEX = /^(?:\\x[0-9A-Fa-f]{2})+$/;
const MAX_CANDIDATES = 32;
const MAX_CANDIDATE_LENGTH = 64 * 1024;
const MAX_DECODED_TOTAL = 256 * 1024;

const utf8 = new TextDecoder("utf-8", { fatal: true });

/**
 * Decoded text if it reads as text (mostly printable, has a word and a space or shell
 * operator). Most candidates are ids, paths and identifiers whose bytes are not text;
 * {@link mayRead} rejects those on the bytes, before a decoder is even called.
 */
export function asReadable(bytes: Uint8Array): string | undefined {
  if (bytes.length < 8 || !mayRead(bytes)) return undefined;
  let text: string;
  try {
    text = utf8.decode(bytes);
  } catch {
    return undefined;
  }
  let printable = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if ((c >= 0x20 && c < 0x7f) || c === 0x0a || c === 0x09 || c >= 0xa0) printable++;
  }
  if (printable / text.length < 0.9) return undefined;
  if (!/[A-Za-z]{3}/.test(text) || !/[ |;&/]/.test(text)) return undefined;
  return text;
}

/** Bytes of ASCII letters (1), and of a space or shell operator `|;&/` (2). */
const BYTE_CLASS = new Uint8Array(128);
for (const c of "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz")
  BYTE_CLASS[c.charCodeAt(0)] = 1;
for (const c of " |;&/") BYTE_CLASS[c.charCodeAt(0)] = 2;

/**
 * Whether {@link asReadable}'s checks can pass, read on the bytes themselves: they are
 * well-formed UTF-8 (as the fatal decoder requires: no overlong form, surrogate or code
 * point past U+10FFFF, no sequence cut short), at least 90 % of the UTF-16 units they
 * decode to are printable (a leading byte-order mark, which the decoder drops, not
 * counted), and they hold three ASCII letters in a row and a space or shell operator.
 * ASCII characters only ever come from single bytes in UTF-8, so the last two checks
 * read the same on bytes as on the decoded text. Exact: a test checks it agrees with
 * decoding on every input of eight bytes or more.
 */
export function mayRead(bytes: Uint8Array): boolean {
  const n = bytes.length;
  let i = bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf ? 3 : 0;
  let units = 0;
  let printable = 0;
  let letters = 0;
  let word = false;
  let separator = false;
  while (i < n) {
    const b = bytes[i]!;
    if (b < 0x80) {
      units++;
      if ((b >= 0x20 && b < 0x7f) || b === 0x0a || b === 0x09) printable++;
      const cls = BYTE_CLASS[b]!;
      if (cls === 1) {
        if (++letters >= 3) word = true;
      } else {
        letters = 0;
        if (cls === 2) separator = true;
      }
      i++;
      continue;
    }
    letters = 0;
    const length = sequenceLength(bytes, i);
    if (length === 0) return false;
    if (length === 2) {
      // U+0080..U+07FF: printable from U+00A0 on.
      units++;
      if (((b & 0x1f) << 6) + (bytes[i + 1]! & 0x3f) >= 0xa0) printable++;
    } else {
      // Three bytes: one unit at U+0800 or above; four: a surrogate pair.
      const u = length === 3 ? 1 : 2;
      units += u;
      printable += u;
    }
    i += length;
  }
  return printable / units >= 0.9 && word && separator;
}

/**
 * Length of the well-formed UTF-8 sequence whose lead byte (0x80 or above) is at `i`,
 * or 0 when it is ill-formed (the WHATWG decoder's table: C2..DF take one continuation,
 * E0 needs A0..BF next, ED needs 80..9F, F0 needs 90..BF, F4 needs 80..8F).
 */
function sequenceLength(bytes: Uint8Array, i: number): number {
  const b = bytes[i]!;
  let length: number;
  let low = 0x80;
  let high = 0xbf;
  if (b >= 0xc2 && b <= 0xdf) length = 2;
  else if (b >= 0xe0 && b <= 0xef) {
    length = 3;
    if (b === 0xe0) low = 0xa0;
    else if (b === 0xed) high = 0x9f;
  } else if (b >= 0xf0 && b <= 0xf4) {
    length = 4;
    if (b === 0xf0) low = 0x90;
    else if (b === 0xf4) high = 0x8f;
  } else return 0;
  if (i + length > bytes.length) return 0;
  const second = bytes[i + 1]!;
  if (second < low || second > high) return 0;
  for (let k = 2; k < length; k++) {
    const c = bytes[i + k]!;
    if (c < 0x80 || c > 0xbf) return 0;
  }
  return length;
}

function decodeCandidate(candidate: string): { text: string; encoding: string } | undefined {
  if (candidate.includes("\\")) {
    if (!ESCAPED_HEX.test(candidate)) return undefined;
    const text = asReadable(Buffer.from(candidate.replace(/\\x/g, ""), "hex"));
    return text === undefined ? undefined : { text, encoding: "\\x-escaped hex" };
  }
  if (HEX_ONLY.test(candidate) && candidate.length >= 32) {
    const even = candidate.length % 2 === 0 ? candidate : candidate.slice(0, -1);
    const text = asReadable(Buffer.from(even, "hex"));
    if (text !== undefined) return { text, encoding: "hex" };
  }
  const text = asReadable(Buffer.from(candidate, "base64"));
  return text === undefined ? undefined : { text, encoding: "base64" };
}

/**
 * Decode bounded candidates in the original text and scan the decoded text again; a
 * candidate whose decoded text carries any signal becomes an
 * `encoded-instruction` hit (original offsets).
 */
/** An example marker right before an encoded run. */
const EXAMPLE_BEFORE =
  /(?:\be\.g\.|\bfor example|\bfor instance|\bsuch as|\bexample|\blike|\bgives|\bbecomes|\breturns)\s?[:,(]?\s?[`'"]?$/i;

export function detectEncoded(
  text: string,
  hits: RawHit[],
  site: TextSite,
  depth: number,
  gate: boolean,
): void {
  if (text.length < 24) return;
  let candidates = 0;
  let decodedTotal = 0;
  for (let from = 0; ; ) {
    const match = nextCandidate(text, from);
    if (match === undefined || candidates >= MAX_CANDIDATES || decodedTotal >= MAX_DECODED_TOTAL)
      break;
    from = match.end;
    const candidate = text.slice(match.start, match.end);
    if (candidate.length > MAX_CANDIDATE_LENGTH) continue;
    if (!/[0-9+/=\\]/.test(candidate) && !/[A-Z].*[a-z].*[A-Z]/.test(candidate.slice(0, 64))) {
      // A plain word run (snake_case_identifier_names) is not an encoding.
      if (!HEX_ONLY.test(candidate)) continue;
    }
    candidates++;
    const decoded = decodeCandidate(candidate);
    if (decoded === undefined) continue;
    decodedTotal += decoded.text.length;
    const signals = signalsOf(decoded.text, site, depth + 1, gate);
    // Sentences hidden in an encoding are suspicious whatever they say.
    if (signals.length === 0 && !readsAsLanguage(decoded.text)) continue;
    // An encoded sentence that says nothing and is given as an example ("e.g. aGVsbG8...")
    // is an encoding tool's documentation.
    if (
      signals.length === 0 &&
      EXAMPLE_BEFORE.test(text.slice(Math.max(0, match.start - 32), match.start))
    )
      continue;
    hits.push({
      signal: "encoded-instruction",
      start: match.start,
      end: match.end,
      why: `${decoded.encoding} text decodes to ${JSON.stringify(decoded.text.slice(0, 80))}${signals.length > 0 ? `, which carries ${signals.join(", ")}` : ", sentences hidden from a reader"}`,
    });
  }
}
