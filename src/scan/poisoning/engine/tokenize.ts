/**
 * Words, sentences and clauses of a matching text, in one linear pass. The lexicons
 * match tokens, not characters, so word order and spacing are the rules' business and
 * a phrase cannot match across a word boundary it does not contain.
 *
 * A token is a run of letters and digits. It ends at spaces and punctuation, and also
 * at `_`, `-`, apostrophes and a lower-to-upper case change, so `api_key`, `api-key`,
 * `apiKey` and `api key` read the same and French `l'utilisateur` reads `utilisateur`.
 * Runs of Chinese, Japanese, Korean or Thai script are one token each, matched by
 * substring (their words are not separated by spaces).
 */
import { foldToken } from "./fold.js";

/** What a token is made of. */
export const WORD = 0;
/** A run of a script written without spaces between words; matched by substring. */
export const RUN = 1;

/** The tokens of a text as parallel arrays (one allocation per field, not per token). */
export interface Tokens {
  readonly count: number;
  /** Folded token text (see fold.ts). */
  readonly text: string[];
  readonly start: Int32Array;
  readonly end: Int32Array;
  readonly kind: Uint8Array;
  /** Sentence number of each token. */
  readonly sentence: Int32Array;
  /** Clause number of each token (clauses split sentences at `,` `;` `:` and dashes). */
  readonly clause: Int32Array;
  /** 1 when the token sits inside a short quotation, 2 inside backticks. */
  readonly quoted: Uint8Array;
  /** Number of sentences. */
  readonly sentences: number;
}

enum C {
  Other = 0,
  Letter = 1,
  Run = 2,
  Space = 3,
  SentenceEnd = 4,
  ClauseEnd = 5,
  Joiner = 6,
  Newline = 7,
}

/** ASCII classes; non-ASCII is classified on demand and cached. */
const ASCII = new Uint8Array(128);
for (let c = 0; c < 128; c++) {
  const ch = String.fromCharCode(c);
  if (/[A-Za-z0-9]/.test(ch)) ASCII[c] = C.Letter;
  else if (ch === " " || ch === "\t" || ch === "\r") ASCII[c] = C.Space;
  else if (ch === "\n") ASCII[c] = C.Newline;
  else if (ch === "." || ch === "!" || ch === "?") ASCII[c] = C.SentenceEnd;
  else if (ch === "," || ch === ";" || ch === ":" || ch === "(" || ch === ")")
    ASCII[c] = C.ClauseEnd;
  else if (ch === "_" || ch === "-" || ch === "'") ASCII[c] = C.Joiner;
  else ASCII[c] = C.Other;
}

const RUN_SCRIPT =
  /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}\p{Script=Thai}ー]/u;
const LETTER = /[\p{L}\p{M}\p{N}]/u;
const wide = new Map<number, number>();

function classOf(c: number): number {
  if (c < 128) return ASCII[c]!;
  const known = wide.get(c);
  if (known !== undefined) return known;
  const ch = String.fromCharCode(c);
  let k: number;
  if (c >= 0xd800 && c <= 0xdfff) k = C.Other;
  else if (RUN_SCRIPT.test(ch)) k = C.Run;
  else if (LETTER.test(ch)) k = C.Letter;
  else if (c === 0x3002 || c === 0xff01 || c === 0xff1f || c === 0x061f || c === 0x0964)
    k = C.SentenceEnd; // 。！？ ؟ ।
  else if (c === 0xff0c || c === 0x3001 || c === 0xff1b || c === 0xff1a || c === 0x060c)
    k = C.ClauseEnd; // ，、；： ،
  else if (c === 0x2019 || c === 0x2010 || c === 0x2011)
    k = C.Joiner; // ’ ‐ ‑
  else if (c === 0x2013 || c === 0x2014)
    k = C.ClauseEnd; // – —
  else if (/\s/.test(ch)) k = C.Space;
  else k = C.Other;
  if (wide.size < 4096) wide.set(c, k);
  return k;
}

/** Abbreviations whose period does not end a sentence. */
const ABBREVIATIONS = new Set([
  "e",
  "g",
  "i",
  "eg",
  "ie",
  "etc",
  "vs",
  "approx",
  "no",
  "cf",
  "incl",
]);

/** Characters that open or close a quotation. */
const QUOTE_OPEN = new Map<number, number>([
  [0x22, 0x22], // "
  [0x201c, 0x201d], // “ ”
  [0xab, 0xbb], // « »
  [0x300c, 0x300d], // 「 」
  [0x2018, 0x2019], // ‘ ’
  [0x27, 0x27], // '
]);
/** Longest quotation read as a quoted example; longer quoted text is read as text. */
const MAX_QUOTE = 80;

/** The closing quotation mark within {@link MAX_QUOTE} units after `i`, or -1 (bounded: never a scan to the end). */
function closingQuote(lower: string, close: number, i: number): number {
  const stop = Math.min(lower.length, i + 1 + MAX_QUOTE);
  for (let k = i + 1; k < stop; k++) if (lower.charCodeAt(k) === close) return k;
  return -1;
}

/**
 * True when the newline at `i` wraps a line inside a sentence: the line ends in a letter
 * or a comma and the next line goes on with a lower-case letter (bounded look-around).
 */
function isWrap(lower: string, cased: string, i: number): boolean {
  let p = i - 1;
  while (p >= 0 && i - p < 8 && (lower.charCodeAt(p) === 0x20 || lower.charCodeAt(p) === 0x0d)) p--;
  if (p < 0) return false;
  const before = lower.charCodeAt(p);
  if (!((before >= 0x61 && before <= 0x7a) || before === 0x2c)) return false;
  let q = i + 1;
  while (q < lower.length && q - i < 16 && lower.charCodeAt(q) === 0x20) q++;
  const after = cased.charCodeAt(q);
  if (!(after >= 0x61 && after <= 0x7a)) return false;
  // "config: {...}" on the next line is a key, not prose going on ("https://" is).
  let w = q;
  while (
    w < lower.length &&
    w - q < 24 &&
    lower.charCodeAt(w) >= 0x61 &&
    lower.charCodeAt(w) <= 0x7a
  )
    w++;
  return lower.charCodeAt(w) !== 0x3a || lower.charCodeAt(w + 1) === 0x2f;
}

/** True when `j` is a capital right after a lower-case ASCII letter (`apiKey`: the `K`). */
function startsCamelWord(lower: string, cased: string, j: number): boolean {
  const d = lower.charCodeAt(j);
  if (d >= 128 || cased.charCodeAt(j) === d) return false;
  const p = lower.charCodeAt(j - 1);
  return p >= 0x61 && p <= 0x7a && cased.charCodeAt(j - 1) === p;
}

/**
 * Tokens of `lower` (the lower-case matching text); `cased` is the same text with its
 * case (for camelCase splits), of the same length.
 */
export function tokenize(lower: string, cased: string): Tokens {
  const n = lower.length;
  const text: string[] = [];
  // A token and the separator after it take two units at least (a run of a script
  // without spaces is one token), so half the length bounds the count.
  const cap = Math.min((n >> 1) + 2, 1 << 20);
  const start = new Int32Array(cap);
  const end = new Int32Array(cap);
  const kind = new Uint8Array(cap);
  const sentence = new Int32Array(cap);
  const clause = new Int32Array(cap);
  const quoted = new Uint8Array(cap);
  let count = 0;
  let s = 0;
  let cl = 0;
  let quoteEnd = -1;
  let inCode = false;
  let i = 0;
  while (i < n && count < cap - 1) {
    const c = lower.charCodeAt(i);
    const k = classOf(c);
    if (k === C.Letter || k === C.Run) {
      let j = i + 1;
      let wide = c >= 0x80;
      while (j < n) {
        const d = lower.charCodeAt(j);
        if (d < 0x80) {
          if (ASCII[d] !== k) break;
          if (k === C.Letter && cased.charCodeAt(j) !== d && startsCamelWord(lower, cased, j))
            break;
        } else {
          if (classOf(d) !== k) break;
          wide = true;
        }
        j++;
      }
      const word = lower.slice(i, j);
      text.push(k === C.Run || !wide ? word : foldToken(word));
      start[count] = i;
      end[count] = j;
      kind[count] = k === C.Run ? RUN : WORD;
      sentence[count] = s;
      clause[count] = cl;
      quoted[count] = inCode ? 2 : i < quoteEnd ? 1 : 0;
      count++;
      i = j;
      continue;
    }
    if (c === 0x60) {
      inCode = !inCode;
    } else if (k === C.SentenceEnd) {
      const next = i + 1 < n ? lower.charCodeAt(i + 1) : 0x20;
      const closes = classOf(next) === C.Space || next === 0x0a || i + 1 >= n || c >= 128;
      const prev = count > 0 && end[count - 1] === i ? text[count - 1]! : "";
      if (closes && !(c === 0x2e && ABBREVIATIONS.has(prev))) {
        s++;
        cl++;
      }
    } else if (k === C.Newline) {
      // A hard-wrapped line ("uploads all files\nmatching ... to\nhttps://...") goes on
      // with its sentence: a newline after a word, before a lower-case word, is a wrap.
      if (!isWrap(lower, cased, i)) s++;
      cl++;
    } else if (k === C.ClauseEnd) {
      cl++;
    } else if (i >= quoteEnd) {
      const close = QUOTE_OPEN.get(c);
      if (
        close !== undefined &&
        (c !== 0x27 || i === 0 || classOf(lower.charCodeAt(i - 1)) !== C.Letter)
      ) {
        const to = closingQuote(lower, close, i);
        if (to > i && to - i <= MAX_QUOTE) {
          quoteEnd = to;
        }
      }
    }
    i++;
  }
  return { count, text, start, end, kind, sentence, clause, quoted, sentences: s + 1 };
}

/** Index of the first token that ends after `offset` (binary search), or `tokens.count`. */
export function tokenAt(tokens: Tokens, offset: number): number {
  let lo = 0;
  let hi = tokens.count;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (tokens.end[mid]! <= offset) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}
