/**
 * Words that mix Latin letters with Cyrillic or Greek look-alikes (`gіthub.com` with a
 * Cyrillic і, `rеad_file` with a Cyrillic е): a host, an address, a package or a tool
 * name spelled to read as a familiar one while it points somewhere else. A word written
 * wholly in one script (`пример.рф`, `λ`) is ordinary; only the mix inside one word is
 * the trick, and only letters that pass for Latin ones count (so `μs` is not one).
 */
import type { RawHit } from "./types.js";

/** Cyrillic and Greek letters that render like Latin letters in common fonts. */
const LOOK_ALIKES = new Set(
  [..."аеорсухіјѕһԁԛԝӏвкмнтАВЕКМНОРСТУХІЈЅԜοναικρτυχΑΒΕΖΗΙΚΜΝΟΡΤΥΧ"].map((c) => c.codePointAt(0)),
);
/** A word, with the dots, dashes, slashes and `@` that hold hosts, addresses and names together. */
const WORD = /[\p{L}\p{N}_][\p{L}\p{N}_.@/-]*/gu;
const ASCII_LETTER = /[A-Za-z]/;
/**
 * Words that say a text is about look-alikes (a checker quoting one as an example): then
 * the word is mentioned, not used.
 */
const ABOUT_LOOK_ALIKES =
  /homoglyph|homograph|look-?alike|confusable|spoof|punycode|\bidn\b|typosquat|phishing|impersonat/i;
/** How far around a word its sentence is looked at for those, in characters. */
const ABOUT_REACH = 240;
/** Most words examined per text: enough for any real one, bounded for a hostile one. */
const MAX_WORDS = 20_000;
/** Most findings per text. */
const MAX_HITS = 8;

function hasLookAlike(part: string): boolean {
  for (const c of part) if (LOOK_ALIKES.has(c.codePointAt(0))) return true;
  return false;
}

/**
 * Adds a `mixed-script` hit to `out` for each word of `text` that mixes Latin letters
 * with Cyrillic or Greek look-alikes.
 *
 * @example
 * ```ts
 * import { detectMixedScript } from "./mixed-script.js";
 * const hits = [];
 * detectMixedScript("Downloads from https://g\u0456thub.com/acme/tool", hits);
 * console.log(hits[0]?.signal); // "mixed-script"
 * ```
 */
export function detectMixedScript(text: string, out: RawHit[]): void {
  if (!/[\u0370-\u04ff\u0500-\u052f]/.test(text)) return;
  let words = 0;
  let hits = 0;
  WORD.lastIndex = 0;
  for (let m = WORD.exec(text); m !== null; m = WORD.exec(text)) {
    if (++words > MAX_WORDS || hits >= MAX_HITS) break;
    const word = m[0];
    if (!ASCII_LETTER.test(word)) continue;
    // Each part of a host, an address or a name on its own: "API-ключ" joins two words,
    // "gіthub.com" hides one in a label.
    const part = word.split(/[._@/-]/).find((p) => ASCII_LETTER.test(p) && hasLookAlike(p));
    if (part === undefined) continue;
    const around = text.slice(
      Math.max(0, m.index - ABOUT_REACH),
      m.index + word.length + ABOUT_REACH,
    );
    if (ABOUT_LOOK_ALIKES.test(around)) continue;
    const alike = [...part].find((c) => LOOK_ALIKES.has(c.codePointAt(0)))!;
    hits++;
    const code = alike.codePointAt(0)!.toString(16).toUpperCase().padStart(4, "0");
    out.push({
      signal: "mixed-script",
      start: m.index,
      end: m.index + word.length,
      why: `spells a Latin word with a look-alike letter of another script (U+${code}), so it reads as a familiar name while it names another`,
    });
  }
  WORD.lastIndex = 0;
}
