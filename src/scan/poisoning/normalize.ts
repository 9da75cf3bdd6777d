/**
 * The matching form of a text: NFKC, common Latin look-alikes folded (Cyrillic `о` reads
 * as `o`), invisible and control characters removed, ANSI escape sequences removed,
 * whitespace runs collapsed to one space (a run holding a line break becomes one line
 * break). Case is kept: the phrase patterns read a lower-case twin (case-fold.ts), and the
 * all-caps banner check still sees the capitals.
 *
 * Every unit of the matching text remembers the original span it came from, so findings
 * are reported on the text the caller passed in.
 */
export interface NormalizedText {
  readonly text: string;
  /**
   * True when the matching text is the original text unchanged (printable ASCII with
   * single spaces, the common case): offsets map to themselves and `from` / `to` are empty.
   */
  readonly identity: boolean;
  /** Original start offset of each unit of `text` (empty when `identity`). */
  readonly from: Int32Array;
  /** Original end offset (exclusive) of each unit of `text` (empty when `identity`). */
  readonly to: Int32Array;
}

const EMPTY = new Int32Array(0);

/**
 * A character outside printable ASCII and line feed, or two whitespace characters in a
 * row: a non-graphic character that is followed by another, or is not itself a space or
 * line feed. Written to start on one character class, which the regular-expression engine
 * scans about a quarter faster than the plain alternation
 * `[^\x20-\x7e\n]|[ \n][ \n]` (the same texts match; a property test checks it).
 */
const NOT_NORMAL = /[^!-~](?:[^!-~]|(?<![ \n]))/;

/** Printable ASCII whose only whitespace is single spaces and single line feeds: already in matching form. */
function isAlreadyNormal(text: string): boolean {
  return !NOT_NORMAL.test(text);
}

/**
 * Look-alike letters folded to Latin so `іgnоre` (Cyrillic і, о) still reads `ignore`.
 * Keyed by lower case; an upper-case letter folds through its lower case and stays upper
 * case, so both cases of a letter fold the same way (or neither does).
 */
const CONFUSABLES: Readonly<Record<string, string>> = {
  а: "a",
  е: "e",
  о: "o",
  р: "p",
  с: "c",
  у: "y",
  х: "x",
  і: "i",
  ј: "j",
  ѕ: "s",
  һ: "h",
  ԁ: "d",
  ԛ: "q",
  ԝ: "w",
  ɡ: "g",
  ο: "o",
  α: "a",
  ι: "i",
  κ: "k",
  ν: "v",
  ρ: "p",
  υ: "u",
  χ: "x",
};

function foldConfusable(ch: string): string {
  const lower = ch.toLowerCase();
  const latin = CONFUSABLES[lower];
  if (latin === undefined) return ch;
  return lower === ch ? latin : latin.toUpperCase();
}

/**
 * What an invisible character is. The one table of invisible characters: normalisation
 * drops every kind, the invisible-character check (invisible.ts) reports all but `mark`,
 * and excerpts escape every kind.
 *
 * - `tag`: Unicode tag characters (U+E0000..U+E007F), which can spell hidden text.
 * - `bidi`: bidirectional embeddings, overrides and isolates.
 * - `selector`: supplementary variation selectors (U+E0100..U+E01EF), used to smuggle bytes.
 * - `zero-width`: zero-width characters, fillers and the soft hyphen.
 * - `mark`: left-to-right, right-to-left and Arabic letter marks and the first 16
 *   variation selectors: invisible, but ordinary in right-to-left text and emoji.
 */
export type InvisibleKind = "tag" | "bidi" | "selector" | "zero-width" | "mark";

/** The {@link InvisibleKind} of code point `cp`, or undefined when it is not invisible. */
export function invisibleKind(cp: number): InvisibleKind | undefined {
  if (cp < 0xad) return undefined;
  if (cp >= 0xe0000) {
    if (cp <= 0xe007f) return "tag";
    if (cp >= 0xe0100 && cp <= 0xe01ef) return "selector";
    return undefined;
  }
  if ((cp >= 0x202a && cp <= 0x202e) || (cp >= 0x2066 && cp <= 0x2069)) return "bidi";
  if (
    (cp >= 0x200b && cp <= 0x200d) ||
    (cp >= 0x2060 && cp <= 0x2064) ||
    cp === 0xfeff ||
    cp === 0x00ad ||
    cp === 0x034f ||
    cp === 0x180e ||
    cp === 0x115f ||
    cp === 0x1160 ||
    cp === 0x17b4 ||
    cp === 0x17b5 ||
    cp === 0x3164 ||
    cp === 0xffa0
  )
    return "zero-width";
  if (cp === 0x200e || cp === 0x200f || cp === 0x061c || (cp >= 0xfe00 && cp <= 0xfe0f))
    return "mark";
  return undefined;
}

/**
 * True for characters that render as nothing: zero-width characters, bidirectional
 * controls and marks, Unicode tag characters, variation selectors, fillers and the soft
 * hyphen (every {@link InvisibleKind}).
 */
export function isInvisibleCodePoint(cp: number): boolean {
  return invisibleKind(cp) !== undefined;
}

function isSpaceCodePoint(cp: number): boolean {
  return (
    cp === 0x20 ||
    (cp >= 0x09 && cp <= 0x0d) ||
    cp === 0xa0 ||
    cp === 0x1680 ||
    (cp >= 0x2000 && cp <= 0x200a) ||
    cp === 0x2028 ||
    cp === 0x2029 ||
    cp === 0x202f ||
    cp === 0x205f ||
    cp === 0x3000
  );
}

/**
 * Marks dropped from the matching form (code point ranges): accents and other diacritics of Latin, Greek and
 * Cyrillic, stacked marks ("zalgo" text) and Arabic vowel marks. The vowel signs and
 * viramas of Indic scripts and Thai are letters of their words and stay.
 */
const DROPPED_MARKS: readonly (readonly [number, number])[] = [
  [0x0300, 0x036f],
  [0x0483, 0x0489],
  [0x064b, 0x065f],
  [0x0670, 0x0670],
  [0x1ab0, 0x1aff],
  [0x1dc0, 0x1dff],
  [0x20d0, 0x20ff],
  [0xfe20, 0xfe2f],
];

function isDroppedMark(ch: string): boolean {
  if (ch.length !== 1) return false;
  const c = ch.charCodeAt(0);
  return DROPPED_MARKS.some(([lo, hi]) => c >= lo && c <= hi);
}

/** UTF-16 code units decode natively on little-endian hosts (lone surrogates are already U+FFFD). */
const LITTLE_ENDIAN = new Uint8Array(new Uint16Array([1]).buffer)[0] === 1;
const UTF16 = new TextDecoder("utf-16le");

class Builder {
  units: Uint16Array;
  from: Int32Array;
  to: Int32Array;
  length = 0;

  constructor(capacity: number) {
    this.units = new Uint16Array(capacity);
    this.from = new Int32Array(capacity);
    this.to = new Int32Array(capacity);
  }

  push(unit: number, from: number, to: number): void {
    if (this.length === this.units.length) this.grow();
    this.units[this.length] = unit;
    this.from[this.length] = from;
    this.to[this.length] = to;
    this.length++;
  }

  private grow(): void {
    const size = this.units.length * 2 + 16;
    const units = new Uint16Array(size);
    const from = new Int32Array(size);
    const to = new Int32Array(size);
    units.set(this.units);
    from.set(this.from);
    to.set(this.to);
    this.units = units;
    this.from = from;
    this.to = to;
  }

  text(): string {
    const units = this.units.subarray(0, this.length);
    if (LITTLE_ENDIAN) return UTF16.decode(units);
    const chunks: string[] = [];
    for (let i = 0; i < units.length; i += 8192) {
      chunks.push(String.fromCharCode(...units.subarray(i, i + 8192)));
    }
    return chunks.join("");
  }
}

/** What one code point (not a space, control or invisible) becomes in the matching form. */
function foldCodePoint(cp: number, lookAlikes = true): string {
  let folded = "";
  for (const ch of String.fromCodePoint(cp).normalize("NFKC")) {
    if (!isDroppedMark(ch)) folded += lookAlikes ? foldConfusable(ch) : ch;
  }
  return folded;
}

const WORD_LETTER = /[\p{L}\p{M}]/u;

/**
 * For each unit of `text`, whether it belongs to a word that holds an ASCII letter.
 * A look-alike letter is folded to Latin only there: "іgnоre" mixes scripts in one word
 * and is an attack, "сообщай" is Russian and stays Russian.
 */
function latinWords(text: string): Uint8Array {
  const n = text.length;
  const marks = new Uint8Array(n);
  let start = 0;
  let latin = false;
  for (let i = 0; i <= n; i++) {
    const c = i < n ? text.charCodeAt(i) : 0x20;
    const letter =
      (c >= 0x41 && c <= 0x5a) ||
      (c >= 0x61 && c <= 0x7a) ||
      (c >= 0x80 && WORD_LETTER.test(text[i]!));
    if (letter) {
      if (c < 0x80) latin = true;
      continue;
    }
    if (latin) marks.fill(1, start, i);
    start = i + 1;
    latin = false;
  }
  return marks;
}

/** Length of an ANSI escape sequence starting at `i` (ESC or C1 CSI), bounded. */
export function ansiSequenceLength(text: string, i: number): number {
  const first = text.charCodeAt(i);
  let j = i + 1;
  if (first === 0x1b) {
    const next = text.charCodeAt(j);
    if (next === 0x5b /* [ */) j++;
    else if (next === 0x5d /* ] OSC: up to BEL or ST */) {
      const limit = Math.min(text.length, j + 256);
      for (j++; j < limit; j++) {
        const c = text.charCodeAt(j);
        if (c === 0x07) return j + 1 - i;
        if (c === 0x1b && text.charCodeAt(j + 1) === 0x5c) return j + 2 - i;
      }
      return j - i;
    } else return Math.min(2, text.length - i);
  }
  const limit = Math.min(text.length, j + 32);
  for (; j < limit; j++) {
    const c = text.charCodeAt(j);
    if (c >= 0x40 && c <= 0x7e) return j + 1 - i;
    if (c < 0x20 || c > 0x3f) return j - i;
  }
  return j - i;
}

/** A character outside ASCII, or an escape (which may start an ANSI sequence). */
const NOT_PLAIN_ASCII = /[^\0-\x1a\x1c-\x7f]/;

/**
 * What normalisation changes in ASCII without escapes: a whitespace run of two or more,
 * a lone tab, vertical tab, form feed or carriage return, and runs of other controls.
 * A lone space or line feed stays, as does every printable character.
 */
const ASCII_CHANGE = /[\t-\r ]{2,}|[\t\v\f\r]|[\0-\x08\x0e-\x1f\x7f]+/g;

function asciiReplacement(change: string): string {
  const c = change.charCodeAt(0);
  if (c !== 0x20 && (c < 0x09 || c > 0x0d)) return "";
  return change.includes("\n") || change.includes("\r") ? "\n" : " ";
}

/**
 * The matching form of ASCII text without escapes, spliced around its changes; undefined
 * once the changes are more than one in 128 characters, where pushing every unit (the
 * general path) is cheaper than a native match per change.
 */
function asciiMatchingForm(original: string): string | undefined {
  const budget = (original.length >>> 7) + 16;
  const parts: string[] = [];
  let kept = 0;
  let changes = 0;
  ASCII_CHANGE.lastIndex = 0;
  for (let m = ASCII_CHANGE.exec(original); m !== null; m = ASCII_CHANGE.exec(original)) {
    if (++changes > budget) return undefined;
    parts.push(original.slice(kept, m.index), asciiReplacement(m[0]));
    kept = ASCII_CHANGE.lastIndex;
  }
  parts.push(original.slice(kept));
  return parts.join("");
}

/**
 * The matching form of ASCII text without escape sequences (most texts that are not
 * already normal: a description with paragraphs), found by native matching. Its
 * offset map is only needed to report a finding, so it is built then, by the general
 * path, which yields the same text (a property test checks it).
 */
class AsciiNormalized implements NormalizedText {
  readonly identity = false;
  private map: NormalizedText | undefined;

  constructor(
    readonly text: string,
    private readonly original: string,
  ) {}

  get from(): Int32Array {
    this.map ??= build(this.original);
    return this.map.from;
  }

  get to(): Int32Array {
    this.map ??= build(this.original);
    return this.map.to;
  }
}

/**
 * True when every character past ASCII in `original` is one the general path keeps as it
 * is (a dash, an emoji, an accented letter NFKC leaves alone, no look-alike, mark, space or
 * invisible character) and there is no escape: the ASCII path then gives the same text.
 * Bounded like {@link asciiMatchingForm}: past its budget the general path is cheaper.
 */
function onlyKeptBeyondAscii(original: string): boolean {
  const budget = (original.length >>> 7) + 16;
  let found = 0;
  NOT_PLAIN_ASCII_ALL.lastIndex = 0;
  for (
    let m = NOT_PLAIN_ASCII_ALL.exec(original);
    m !== null;
    m = NOT_PLAIN_ASCII_ALL.exec(original)
  ) {
    if (++found > budget) return false;
    const cp = original.codePointAt(m.index)!;
    if (!keptAsIs(cp)) return false;
    if (cp > 0xffff) NOT_PLAIN_ASCII_ALL.lastIndex = m.index + 2;
  }
  return true;
}
const NOT_PLAIN_ASCII_ALL = new RegExp(NOT_PLAIN_ASCII.source, "g");

/** Whether the general path writes code point `cp` (past ASCII) as it is, in its own width. */
function keptAsIs(cp: number): boolean {
  if (cp === 0x1b || cp <= 0x9f || (cp >= 0xd800 && cp <= 0xdfff)) return false;
  if (isSpaceCodePoint(cp) || isInvisibleCodePoint(cp)) return false;
  return foldCodePoint(cp) === String.fromCodePoint(cp);
}

/**
 * The matching form of a text that already is one: itself, offsets mapping to themselves.
 *
 * @example
 * ```ts
 * import { asItsOwnForm } from "./normalize.js";
 * console.log(asItsOwnForm("Reads a file.").identity); // true
 * ```
 */
export function asItsOwnForm(text: string): NormalizedText {
  return { text, identity: true, from: EMPTY, to: EMPTY };
}

/** Build the matching form of `original` with its offset map. Linear in the text length. */
export function normalizeText(original: string): NormalizedText {
  if (isAlreadyNormal(original)) return asItsOwnForm(original);
  if (!NOT_PLAIN_ASCII.test(original) || onlyKeptBeyondAscii(original)) {
    const text = asciiMatchingForm(original);
    if (text !== undefined) return new AsciiNormalized(text, original);
  }
  return build(original);
}

/**
 * The general path of {@link normalizeText}: every unit pushed with its original span.
 * Exported for the test that holds the fast paths to it.
 */
export function build(original: string): NormalizedText {
  const out = new Builder(original.length + 16);
  // Folding one code point (NFKC, marks, look-alikes) is a pure function of it and costs
  // a normalize call; a text repeats its letters, so each is folded once per text.
  const seen = new Map<number, string>();
  const seenPlain = new Map<number, string>();
  const inLatinWord = latinWords(original);
  const n = original.length;
  let i = 0;
  while (i < n) {
    const c = original.charCodeAt(i);
    if (c < 0x80) {
      if (c === 0x20 || (c >= 0x09 && c <= 0x0d)) {
        i = pushSpaceRun(original, i, out);
        continue;
      }
      if (c === 0x1b) {
        i += ansiSequenceLength(original, i);
        continue;
      }
      if (c < 0x20 || c === 0x7f) {
        i++;
        continue;
      }
      out.push(c, i, i + 1);
      i++;
      continue;
    }
    const cp = original.codePointAt(i)!;
    const width = cp > 0xffff ? 2 : 1;
    if (cp === 0x9b) {
      i += ansiSequenceLength(original, i);
      continue;
    }
    if (isSpaceCodePoint(cp)) {
      i = pushSpaceRun(original, i, out);
      continue;
    }
    if (isInvisibleCodePoint(cp) || (cp >= 0x80 && cp <= 0x9f)) {
      i += width;
      continue;
    }
    if (cp >= 0xd800 && cp <= 0xdfff) {
      out.push(0xfffd, i, i + 1);
      i++;
      continue;
    }
    const lookAlikes = inLatinWord[i] === 1;
    const memo = lookAlikes ? seen : seenPlain;
    let folded = memo.get(cp);
    if (folded === undefined) {
      folded = foldCodePoint(cp, lookAlikes);
      memo.set(cp, folded);
    }
    for (let k = 0; k < folded.length; k++) out.push(folded.charCodeAt(k), i, i + width);
    i += width;
  }
  return {
    text: out.text(),
    identity: false,
    from: out.from.subarray(0, out.length),
    to: out.to.subarray(0, out.length),
  };
}

function pushSpaceRun(text: string, start: number, out: Builder): number {
  let j = start;
  let newline = false;
  while (j < text.length) {
    const cp = text.charCodeAt(j);
    if (!isSpaceCodePoint(cp)) break;
    if (cp === 0x0a || cp === 0x0d || cp === 0x2028 || cp === 0x2029) newline = true;
    j++;
  }
  out.push(newline ? 0x0a : 0x20, start, j);
  return j;
}

/** Map a span of the matching text back to the original text. */
export function originalSpan(
  normalized: NormalizedText,
  start: number,
  end: number,
): { start: number; end: number } {
  if (normalized.text.length === 0) return { start: 0, end: 0 };
  const s = Math.min(Math.max(start, 0), normalized.text.length - 1);
  const e = Math.min(Math.max(end, s + 1), normalized.text.length);
  if (normalized.identity) return { start: s, end: e };
  return { start: normalized.from[s]!, end: normalized.to[e - 1]! };
}
