/**
 * The encoded-run scanner skips ahead over prose; it must find exactly the runs a plain
 * character-by-character scan finds (the reference below), in the same order.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { nextCandidate } from "../../../src/scan/poisoning/encoded.js";

const isEncodingChar = (c: number) => /[A-Za-z0-9+/_\-\\]/.test(String.fromCharCode(c));

/** The first maximal run of at least 24 encoding characters (plus up to two `=`) at or after `from`. */
function reference(text: string, from: number): { start: number; end: number } | undefined {
  let i = from;
  while (i < text.length) {
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

function allRuns(find: typeof reference, text: string): { start: number; end: number }[] {
  const runs: { start: number; end: number }[] = [];
  for (let from = 0; ; ) {
    const run = find(text, from);
    if (run === undefined) return runs;
    runs.push(run);
    from = run.end;
  }
}

describe("nextCandidate finds every encoded run a plain scan finds", () => {
  it("on runs of every length around the 24-character threshold", () => {
    for (let n = 20; n <= 30; n++) {
      for (const pad of ["", " ", "ab ", `${"x".repeat(23)} `]) {
        const text = `${pad}${"Q".repeat(n)}== tail ${"a1".repeat(n)}`;
        expect(allRuns(nextCandidate, text)).toEqual(allRuns(reference, text));
      }
    }
  });

  it("on generated text of words, runs, separators and padding", () => {
    const part = fc.oneof(
      fc.stringMatching(/^[A-Za-z0-9+/_\\-]{0,40}$/),
      fc.constantFrom(" ", "=", "==", "===", ".", "\n", "é", "\u200b"),
    );
    fc.assert(
      fc.property(fc.array(part, { maxLength: 20 }), fc.nat(30), (parts, from) => {
        const text = parts.join("");
        expect(nextCandidate(text, from)).toEqual(reference(text, from));
        expect(allRuns(nextCandidate, text)).toEqual(allRuns(reference, text));
      }),
      { numRuns: 500 },
    );
  });
});
