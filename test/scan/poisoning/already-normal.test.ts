/**
 * normalizeText returns a text unchanged (identity) exactly when it is printable ASCII
 * with single spaces and single line feeds. The check is one regular expression written
 * for speed; this holds it to the plain definition.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { build, normalizeText } from "../../../src/scan/poisoning/normalize.js";

/** The plain definition: a character outside printable ASCII and line feed, or two whitespace characters in a row. */
const NOT_NORMAL = /[^\x20-\x7e\n]|[ \n][ \n]/;

describe("normalizeText's already-normal check", () => {
  it("agrees with the plain definition on every pair of UTF-16 units around a space", () => {
    const units = [
      0, 9, 10, 13, 0x1f, 0x20, 0x21, 0x41, 0x7e, 0x7f, 0x80, 0xa0, 0xe9, 0x200b, 0xd800,
    ];
    for (const a of units)
      for (const b of units) {
        for (const text of [
          String.fromCharCode(a, b),
          `x${String.fromCharCode(a)} ${String.fromCharCode(b)}y`,
          `${String.fromCharCode(a)}\n${String.fromCharCode(b)}`,
        ]) {
          expect(normalizeText(text).identity, JSON.stringify(text)).toBe(!NOT_NORMAL.test(text));
        }
      }
  });

  it("agrees with the plain definition on generated text", () => {
    const piece = fc.oneof(
      fc.stringMatching(/^[!-~]{0,8}$/),
      fc.constantFrom(
        " ",
        "\n",
        "  ",
        " \n",
        "\n\n",
        "\t",
        "\r",
        "\x00",
        "\x7f",
        "é",
        "\u00a0",
        "\u200b",
      ),
    );
    fc.assert(
      fc.property(fc.array(piece, { maxLength: 12 }), (pieces) => {
        const text = pieces.join("");
        const norm = normalizeText(text);
        expect(norm.identity).toBe(!NOT_NORMAL.test(text));
        if (norm.identity) expect(norm.text).toBe(text);
      }),
      { numRuns: 3000 },
    );
  });
});

describe("normalizeText's ASCII path", () => {
  const piece = fc.oneof(
    fc.stringMatching(/^[!-~]{0,6}$/),
    // Past ASCII: characters normalisation keeps (dash, emoji, accented letter, CJK) and
    // ones it changes or drops (look-alike, full-width, mark, invisible, space, lone surrogate).
    fc.constantFrom(
      "–",
      "🎉",
      "é",
      "東京",
      "й",
      "о",
      "Ｉ",
      "e\u0301",
      "\u200b",
      "\u00a0",
      "\ud800",
      "\u009b[1m",
      "ﬁ",
      "™",
    ),
    fc.string({ unit: "binary", maxLength: 2 }),
    fc.constantFrom(
      " ",
      "\n",
      "\t",
      "\r",
      "\v",
      "\f",
      "\r\n",
      "  ",
      " \t ",
      "\x00",
      "\x01",
      "\x08",
      "\x0e",
      "\x1f",
      "\x7f",
    ),
  );

  it("gives the general path's text and offset map", () => {
    fc.assert(
      fc.property(fc.array(piece, { maxLength: 16 }), (pieces) => {
        const text = pieces.join("");
        const fast = normalizeText(text);
        const general = build(text);
        expect(fast.text).toBe(general.text);
        if (!fast.identity) {
          expect([...fast.from]).toEqual([...general.from]);
          expect([...fast.to]).toEqual([...general.to]);
        }
      }),
      { numRuns: 3000 },
    );
  });

  it("with few changes spliced in, and with more than its budget of changes", () => {
    for (const change of ["  ", "\t", "\r\n", "\x01", " \x7f "]) {
      for (let changes = 0; changes <= 40; changes += 4) {
        for (const gap of [1, 30, 200]) {
          const text = `${`${"w".repeat(gap)}${change}`.repeat(changes)}end`;
          const fast = normalizeText(text);
          const general = build(text);
          expect(fast.text).toBe(general.text);
          expect(fast.identity).toBe(changes === 0);
          if (!fast.identity) expect([...fast.from]).toEqual([...general.from]);
        }
      }
    }
  });

  it("on every ASCII character between words and between spaces", () => {
    for (let c = 0; c < 0x80; c++) {
      const ch = String.fromCharCode(c);
      for (const text of [`a${ch}b`, `a ${ch} b`, `a${ch}${ch}b`, `${ch}\n${ch}`]) {
        expect(normalizeText(text).text, JSON.stringify(text)).toBe(build(text).text);
      }
    }
  });
});

describe("normalizeText's general path", () => {
  // A look-alike folds by the word it sits in (only inside a word that holds ASCII
  // letters), so the repeat stands as a word of its own.
  it("folds a repeated word the same way each time (each character is folded once per text)", () => {
    const char = fc.oneof(
      fc.constantFrom(
        "Ｉ",
        "і",
        "А",
        "ﬁ",
        "é",
        "é",
        "ǆ",
        "①",
        "𝐀",
        "\u{1d7d8}",
        "ß",
        "İ",
        "Ω",
        "ο",
      ),
      fc.string({ unit: "grapheme", minLength: 1, maxLength: 1 }),
    );
    fc.assert(
      fc.property(fc.array(char, { minLength: 1, maxLength: 6 }), (chars) => {
        const word = chars.join("");
        const once = normalizeText(`${word}é`).text;
        expect(normalizeText(`${word}é|${word}é`).text).toBe(`${once}|${once}`);
      }),
      { numRuns: 1000 },
    );
  });
});
