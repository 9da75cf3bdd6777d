/**
 * Encoded instructions: base64 (standard or URL-safe), hex and `\xNN` runs that decode
 * to readable text are decoded and scanned again. Bounded: at most 32 candidates per
 * text, 64 KiB per candidate, 256 KiB decoded in all, two levels of nesting.
 */
import { signalsOf } from "./detect.js";
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
  // `i` is always where a run may start (at `from`, or after a non-encoding character).
  // A qualifying run starting in [i, i + 23] would cover i + 23, so when that character
  // ends runs, none can start before it: skip 24 characters at once (most prose).
  let i = from;
  while (i + 23 < text.length) {
    if (!isEncodingChar(text.charCodeAt(i + 23))) {
      i += 24;
      continue;
    }
    if (!isEncodingChar(text.charCodeAt(i))) {
      i++;
      continue;
    }
    const start = i;
    while (i < text.length && isEncodingChar(text.charCodeAt(i))) i++;
    if (i - start >= 24) {
      let end = i;
      while (end < text.length && end - i < 2 && text.charCodeAt(end) === 0x3d) end++;
      return { start, end };
    }
  }
  return undefined;
}
const HEX_ONLY = /^[0-9A-Fa-f]+$/;
const ESCAPED_HEX = /^(?:\\x[0-9A-Fa-f]{2})+$/;
const MAX_CANDIDATES = 32;
const MAX_CANDIDATE_LENGTH = 64 * 1024;
const MAX_DECODED_TOTAL = 256 * 1024;

const utf8 = new TextDecoder("utf-8", { fatal: true });

/** Decoded text if it reads as text (mostly printable, has a word and a space or shell operator). */
function asReadable(bytes: Uint8Array): string | undefined {
  if (bytes.length < 8) return undefined;
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
    if (signals.length === 0) continue;
    hits.push({
      signal: "encoded-instruction",
      start: match.start,
      end: match.end,
      why: `${decoded.encoding} text decodes to ${JSON.stringify(decoded.text.slice(0, 80))}, which carries ${signals.join(", ")}`,
    });
  }
}
