/**
 * The tool walk's plain-word check is a character loop standing in for two patterns of
 * detect.ts; it must say exactly what they say, and stay exact if they change.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { ONE_WORD_SIGNAL, PLAIN_WORD } from "../../../src/scan/poisoning/detect.js";
import { worthScanning } from "../../../src/scan/poisoning/tool.js";

const reference = (text: string) =>
  text !== "" && (!PLAIN_WORD.test(text) || ONE_WORD_SIGNAL.test(text));

describe("worthScanning agrees with PLAIN_WORD and ONE_WORD_SIGNAL", () => {
  it("reads the patterns it was written against", () => {
    // If either pattern changes, update the character table in tool.ts to match.
    expect(PLAIN_WORD.source).toBe("^[A-Za-z0-9_.\\-/]{0,23}$");
    expect(PLAIN_WORD.flags).toBe("");
    // Every one-word signal holds a d, x or y: a plain word without one cannot match.
    for (const alternative of ONE_WORD_SIGNAL.source.split("|"))
      expect(alternative.replace(/\\/g, ""), alternative).toMatch(/[dxy]/i);
    expect(ONE_WORD_SIGNAL.flags).toBe("i");
  });

  it("on every single UTF-16 unit and on words at the length limit", () => {
    const disagree: string[] = [];
    for (let c = 0; c <= 0xffff; c++) {
      const ch = String.fromCharCode(c);
      for (const text of [ch, `ab${ch}cd`, `du${ch}mp`])
        if (worthScanning(text) !== reference(text)) disagree.push(text);
    }
    expect(disagree).toEqual([]);
    for (let n = 0; n <= 30; n++) {
      for (const word of ["a".repeat(n), "d".repeat(n), `dump${"a".repeat(n)}`]) {
        expect(worthScanning(word), word).toBe(reference(word));
      }
    }
  });

  it("on generated words, signal words in any case, and separators", () => {
    const piece = fc.oneof(
      fc.stringMatching(/^[A-Za-z0-9_.\-/]{0,12}$/),
      fc.constantFrom(
        "secretly",
        "COVERTLY",
        "Stealthily",
        "surreptitiously",
        "exfiltrat",
        "ExFiltrate",
        "dump",
        "DUMP",
        "/dev/tcp",
        "/DEV/TCP",
        "d",
        "x",
        "y",
        " ",
        ":",
        "é",
        "\u0130",
        "\u212a",
        "\n",
      ),
    );
    fc.assert(
      fc.property(fc.array(piece, { maxLength: 6 }), (pieces) => {
        const text = pieces.join("");
        expect(worthScanning(text)).toBe(reference(text));
      }),
      { numRuns: 3000 },
    );
  });
});
