/**
 * src/lib/utf8.ts against Node's own decoder, on any bytes: the first fault is where the
 * decoded text first holds a replacement, and the count is the number of replacements
 * the decoder made (WHATWG's maximal-subpart rule).
 */
import { isUtf8 } from "node:buffer";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { decodeUtf8, findUtf8Fault, strictUtf8Text } from "../../src/lib/utf8.js";

const REPLACEMENT = Buffer.from("\ufffd");
// Bytes near the edges of the UTF-8 ranges, so faults are common and varied.
const byte = fc.oneof(
  fc.integer({ min: 0, max: 255 }),
  fc.constantFrom(
    0x7f,
    0x80,
    0xbf,
    0xc0,
    0xc1,
    0xc2,
    0xdf,
    0xe0,
    0xed,
    0xef,
    0xf0,
    0xf4,
    0xf5,
    0xff,
  ),
);
const bytes = fc
  .array(fc.oneof(byte, fc.constant(0x41)), { maxLength: 64 })
  .map((a) => Buffer.from(a))
  // A literal U+FFFD in the input would be counted by the decoder like a replacement.
  .filter((b) => b.indexOf(REPLACEMENT) < 0);

describe("findUtf8Fault", () => {
  it("is null exactly for well-formed UTF-8", () => {
    fc.assert(
      fc.property(bytes, (b) => (findUtf8Fault(b) === null) === isUtf8(b)),
      { numRuns: 5_000 },
    );
  });

  it("points at the first replaced byte and counts the replacements", () => {
    fc.assert(
      fc.property(bytes, (b) => {
        const fault = findUtf8Fault(b);
        if (fault === null) return;
        const text = b.toString("utf8");
        const prefix = b.subarray(0, fault.offset);
        expect(isUtf8(prefix)).toBe(true);
        expect(text.startsWith(`${prefix.toString("utf8")}\ufffd`)).toBe(true);
        expect(fault.count).toBe(text.split("\ufffd").length - 1);
      }),
      { numRuns: 5_000 },
    );
  });

  it("names overlong forms, surrogates and code points past U+10FFFF as faults", () => {
    for (const bad of [
      [0xc0, 0xaf],
      [0xe0, 0x80, 0xaf],
      [0xed, 0xa0, 0x80],
      [0xf4, 0x90, 0x80, 0x80],
      [0xf0, 0x9f, 0x98],
    ]) {
      expect(findUtf8Fault(Buffer.from([0x61, ...bad]))?.offset).toBe(1);
    }
  });
});

describe("decodeUtf8 and strictUtf8Text", () => {
  it("decode as Node does, and say why strict text is refused", () => {
    expect(decodeUtf8(Buffer.from("café 😀"))).toEqual({ text: "café 😀", fault: null });
    expect(decodeUtf8(Buffer.from([0x61, 0xff]))).toEqual({
      text: "a\ufffd",
      fault: { offset: 1, count: 1 },
    });
    expect(strictUtf8Text(Buffer.from("ok"))).toEqual({ ok: true, text: "ok" });
    expect(strictUtf8Text(Buffer.from([0xff, 0x61, 0xfe]))).toEqual({
      ok: false,
      reason: "not UTF-8 (an invalid byte sequence at byte 0, 2 in all)",
    });
  });
});
