/**
 * Characters a reviewer cannot see: zero-width characters, bidirectional controls,
 * Unicode tag characters (which can spell a whole hidden sentence), variation selectors
 * used to smuggle bytes, other control characters, and ANSI escape sequences. Scanned on
 * the original text, so the spans point at the characters themselves.
 */

import { signalsOf } from "./detect.js";
import { ansiSequenceLength, type InvisibleKind, invisibleKind } from "./normalize.js";
import type { InjectionSignal, RawHit, TextSite } from "./types.js";

/** At most this many runs are reported per signal and text; the last one counts the rest. */
const MAX_RUNS = 8;

/** What a reported run is: an invisible kind (normalize.ts keeps the table), or control characters. */
type Kind = Exclude<InvisibleKind, "mark"> | "control";

function classify(cp: number): Kind | undefined {
  const kind = invisibleKind(cp);
  if (kind !== undefined) return kind === "mark" ? undefined : kind;
  if ((cp < 0x20 && cp !== 0x09 && cp !== 0x0a && cp !== 0x0d && cp !== 0x1b) || cp === 0x7f)
    return "control";
  if (cp >= 0x80 && cp <= 0x9f && cp !== 0x9b) return "control";
  return undefined;
}

/** Anything outside printable ASCII, tab and line breaks is worth a character-by-character look. */
const NEEDS_SCAN = /[^\x20-\x7e\t\n\r]/;

const PICTOGRAPHIC = /^\p{Extended_Pictographic}$/u;
const JOINING_SCRIPT =
  /^[\p{Script=Arabic}\p{Script=Syriac}\p{Script=Devanagari}\p{Script=Bengali}\p{Script=Malayalam}\p{Script=Kannada}\p{Script=Telugu}\p{Script=Sinhala}]$/u;

/**
 * A text about hyphenation that names the soft hyphen: the soft hyphens inside its words
 * are its subject (a hyphenation tool's example), not a trick.
 */
const NAMES_SOFT_HYPHENS = /soft[\s-]hyphen|U\+00AD|&shy;|hyphenat/i;
const LETTER = /\p{L}/u;

function betweenLetters(text: string, i: number): boolean {
  return LETTER.test(text[i - 1] ?? "") && LETTER.test(text[i + 1] ?? "");
}

/** ZWJ inside an emoji sequence and ZWNJ/ZWJ between letters of a joining script are text, not tricks. */
function isLegitimateJoiner(text: string, i: number, cp: number): boolean {
  if (cp !== 0x200c && cp !== 0x200d) return false;
  const before = previousCodePoint(text, i);
  const after = text.codePointAt(i + 1);
  if (before === undefined || after === undefined) return false;
  const b = String.fromCodePoint(before);
  const a = String.fromCodePoint(after);
  if (
    cp === 0x200d &&
    (PICTOGRAPHIC.test(b) || before === 0xfe0f || (before >= 0x1f3fb && before <= 0x1f3ff)) &&
    PICTOGRAPHIC.test(a)
  )
    return true;
  return JOINING_SCRIPT.test(b) && JOINING_SCRIPT.test(a);
}

function previousCodePoint(text: string, i: number): number | undefined {
  if (i === 0) return undefined;
  const low = text.charCodeAt(i - 1);
  if (low >= 0xdc00 && low <= 0xdfff && i >= 2) return text.codePointAt(i - 2);
  return low;
}

const WHY: Record<Kind, string> = {
  "zero-width": "contains zero-width characters that hide or split words from a reviewer",
  bidi: "contains bidirectional control characters that can reorder what a reviewer sees",
  tag: "contains Unicode tag characters, invisible text the model can still read",
  selector: "contains variation-selector characters that can smuggle hidden bytes",
  control: "contains control characters that can hide or rewrite text in a terminal",
};

interface Run {
  kind: Kind;
  start: number;
  end: number;
  hidden: string;
}

/** Find invisible, control and ANSI runs in the original text. */
export function detectInvisible(
  text: string,
  hits: RawHit[],
  site: TextSite,
  depth: number,
  gate: boolean,
): void {
  if (!NEEDS_SCAN.test(text)) return;
  const runs: Run[] = [];
  const ansi: { start: number; end: number }[] = [];
  let ansiCount = 0;
  const counts = new Map<Kind, number>();
  const softHyphensNamed = text.includes("\u00ad") && NAMES_SOFT_HYPHENS.test(text);
  for (let i = 0; i < text.length; ) {
    const c = text.charCodeAt(i);
    if (c === 0x1b || c === 0x9b) {
      const len = ansiSequenceLength(text, i);
      ansiCount++;
      const last = ansi[ansi.length - 1];
      if (last && last.end === i) last.end = i + len;
      else if (ansi.length < MAX_RUNS) ansi.push({ start: i, end: i + len });
      i += len;
      continue;
    }
    if (c >= 0x20 && c < 0x7f) {
      i++;
      continue;
    }
    const cp = text.codePointAt(i)!;
    const width = cp > 0xffff ? 2 : 1;
    const kind = classify(cp);
    if (
      kind === undefined ||
      isLegitimateJoiner(text, i, cp) ||
      (cp === 0xad && softHyphensNamed && betweenLetters(text, i))
    ) {
      i += width;
      continue;
    }
    const last = runs[runs.length - 1];
    const hiddenChar =
      kind === "tag" && cp >= 0xe0020 && cp <= 0xe007e ? String.fromCharCode(cp - 0xe0000) : "";
    if (last && last.kind === kind && last.end === i) {
      last.end = i + width;
      if (last.hidden.length < 4096) last.hidden += hiddenChar;
    } else {
      counts.set(kind, (counts.get(kind) ?? 0) + 1);
      if ((counts.get(kind) ?? 0) <= MAX_RUNS)
        runs.push({ kind, start: i, end: i + width, hidden: hiddenChar });
    }
    i += width;
  }
  for (const run of runs) {
    let why = WHY[run.kind];
    if (run.kind === "tag" && run.hidden.trim() !== "") {
      const inner = signalsOf(run.hidden, site, depth + 1, gate);
      why += `; they spell ${JSON.stringify(run.hidden.slice(0, 80))}${inner.length > 0 ? ` (${inner.join(", ")})` : ""}`;
    }
    const total = counts.get(run.kind) ?? 0;
    if (total > MAX_RUNS && run === runs.filter((r) => r.kind === run.kind).at(-1)) {
      why += ` (and ${total - MAX_RUNS} more runs)`;
    }
    const signal: InjectionSignal =
      run.kind === "control" ? "control-characters" : "invisible-characters";
    hits.push({ signal, start: run.start, end: run.end, why });
  }
  ansi.forEach((span, index) => {
    const more =
      index === ansi.length - 1 && ansiCount > ansi.length
        ? ` (${ansiCount} sequences in all)`
        : "";
    hits.push({
      signal: "ansi-escape",
      start: span.start,
      end: span.end,
      why: `contains ANSI escape sequences that can hide or restyle text in a terminal${more}`,
    });
  });
}
