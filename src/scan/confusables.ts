/**
 * A look-alike skeleton for tool names, after UTS #39's idea: NFKC (fullwidth and
 * mathematical letters fold to ASCII), default-ignorable characters removed (zero-width
 * joiners, variation selectors, tags, bidi controls), case folded, then the common
 * confusables of Latin letters and digits mapped to one representative. Two names with
 * the same skeleton read the same to a person (and often to a model).
 *
 * The table covers the Cyrillic, Greek, Armenian and Cherokee letters that render like
 * Latin ones, dotless/undotted forms, and the digit/letter pairs `0 o`, `1 l i`, `5 s`,
 * `rn m`, `vv w`, plus separators (`-` `_` `.` and their look-alikes, which read the
 * same in a name).
 */
const CONFUSABLE: Readonly<Record<string, string>> = Object.freeze({
  // Cyrillic
  а: "a",
  в: "b",
  с: "c",
  ԁ: "d",
  е: "e",
  ё: "e",
  һ: "h",
  і: "l",
  ї: "l",
  ј: "j",
  к: "k",
  ӏ: "l",
  м: "m",
  н: "h",
  о: "o",
  р: "p",
  ԛ: "q",
  г: "r",
  ѕ: "s",
  т: "t",
  ս: "u",
  ѵ: "v",
  ԝ: "w",
  х: "x",
  у: "y",
  ү: "y",
  ʐ: "z",
  ь: "b",
  ӕ: "ae",
  // Greek
  α: "a",
  β: "b",
  ϲ: "c",
  ε: "e",
  η: "n",
  ι: "l",
  κ: "k",
  ν: "v",
  ο: "o",
  ρ: "p",
  τ: "t",
  υ: "u",
  χ: "x",
  γ: "y",
  ζ: "z",
  ϳ: "j",
  μ: "u",
  // Armenian, Cherokee and others
  օ: "o",
  ց: "g",
  հ: "h",
  ո: "n",
  ռ: "n",
  ք: "p",
  ᴄ: "c",
  ᴏ: "o",
  ᴠ: "v",
  ᴡ: "w",
  ᴢ: "z",
  ı: "l",
  ȷ: "j",
  ɡ: "g",
  ɑ: "a",
  ǀ: "l",
  ℓ: "l",
  ꭰ: "d",
  ꮃ: "w",
  // digits and letters that stand in for each other (every i-like and l-like letter
  // ends up as "l", in one pass)
  "0": "o",
  "1": "l",
  i: "l",
  "5": "s",
  "|": "l",
  // separators
  "-": "_",
  ".": "_",
  "‐": "_",
  "‑": "_",
  "‒": "_",
  "–": "_",
  "—": "_",
  "―": "_",
  "−": "_",
  "⁃": "_",
  "＿": "_",
  "·": "_",
  "•": "_",
  " ": "_",
});

const IGNORABLE = /\p{Default_Ignorable_Code_Point}/gu;
const ASCII = /^[\u0000-\u007f]*$/;

/**
 * The look-alike skeleton of a name: equal skeletons mean the names are confusable.
 *
 * @example
 * ```ts
 * import { nameSkeleton } from "agent-airlock/scan";
 * console.log(nameSkeleton("read_file") === nameSkeleton("reаd_fіle")); // true: Cyrillic а and і
 * console.log(nameSkeleton("read_file") === nameSkeleton("READ-FILE")); // true
 * ```
 */
export function nameSkeleton(name: string): string {
  if (PRINTABLE_ASCII.test(name)) return asciiSkeleton(name);
  // ASCII names need no normalisation: only case and the ASCII look-alikes.
  const folded = ASCII.test(name)
    ? name.toLowerCase()
    : name.normalize("NFKC").replace(IGNORABLE, "").toLowerCase();
  const chars =
    folded === name.toLowerCase() && ASCII.test(folded) ? folded : folded.normalize("NFD");
  let out = "";
  for (const ch of chars) {
    // Drop combining marks so accented look-alikes (é, ï) meet their base letter.
    if (ch.charCodeAt(0) >= 0x300 && /\p{M}/u.test(ch)) continue;
    out += CONFUSABLE[ch] ?? ch;
  }
  // Multi-letter look-alikes: "rn" reads as "m", "vv" as "w".
  return out.replaceAll("rn", "m").replaceAll("vv", "w");
}

const PRINTABLE_ASCII = /^[ -~]*$/;
/** The skeleton of each printable ASCII character, by code point. */
const ASCII_SKELETON: readonly string[] = Array.from({ length: 128 }, (_, code) => {
  const ch = String.fromCharCode(code).toLowerCase();
  return CONFUSABLE[ch] ?? ch;
});

function asciiSkeleton(name: string): string {
  let out = "";
  for (let i = 0; i < name.length; i++) out += ASCII_SKELETON[name.charCodeAt(i)];
  if (out.includes("rn")) out = out.replaceAll("rn", "m");
  if (out.includes("vv")) out = out.replaceAll("vv", "w");
  return out;
}

/** {@link ASCII_SKELETON} as char codes (each entry is one character). */
const ASCII_SKELETON_CODE: readonly number[] = ASCII_SKELETON.map((ch) => ch.charCodeAt(0));

const FNV_OFFSET = 0x811c9dc5 | 0;
/** 30 bits: small integers, which a Map keys without boxing. */
const SMALL = 0x3fffffff;
const mix = (h: number, code: number) => Math.imul(h ^ code, 16777619);
/** Mix one skeleton character in, with `m` spelled `rn` and `w` spelled `vv`. */
const spell = (h: number, code: number) =>
  code === 109 ? mix(mix(h, 114), 110) : code === 119 ? mix(mix(h, 118), 118) : mix(h, code);

/**
 * A 30-bit number that is equal for any two names whose {@link nameSkeleton}s are equal
 * (a hash of the skeleton with `m` and `w` spelled `rn` and `vv`, which the skeleton's own
 * "rn" → "m" and "vv" → "w" steps cannot change). Printable ASCII names, nearly all of
 * them, hash in one pass without building the skeleton string, so a caller can group names
 * by hash and build skeletons only for names whose hashes meet.
 */
export function skeletonHash(name: string): number {
  let h = FNV_OFFSET;
  for (let i = 0; i < name.length; i++) {
    const code = name.charCodeAt(i);
    if (code < 0x20 || code > 0x7e) return hashOfSkeleton(nameSkeleton(name));
    h = spell(h, ASCII_SKELETON_CODE[code]!);
  }
  return h & SMALL;
}

function hashOfSkeleton(skeleton: string): number {
  let h = FNV_OFFSET;
  for (let i = 0; i < skeleton.length; i++) h = spell(h, skeleton.charCodeAt(i));
  return h & SMALL;
}
