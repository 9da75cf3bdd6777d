/**
 * asReadable rejects most decoded candidates on their bytes, before any decoder runs.
 * That shortcut must never change the answer: here it is held to the plain definition
 * (decode as fatal UTF-8, then check the text) on every kind of byte string.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { asReadable, mayRead } from "../../../src/scan/poisoning/encoded.js";

const fatal = new TextDecoder("utf-8", { fatal: true });

function reference(bytes: Uint8Array): string | undefined {
  if (bytes.length < 8) return undefined;
  let text: string;
  try {
    text = fatal.decode(bytes);
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

const ascii = (text: string) => new Uint8Array(Buffer.from(text, "latin1"));
const concat = (...parts: Uint8Array[]) => new Uint8Array(Buffer.concat(parts));

/** Both the byte check alone and asReadable as a whole must give the plain definition's answer. */
function agrees(bytes: Uint8Array): boolean {
  const expected = reference(bytes);
  return (
    asReadable(bytes) === expected &&
    (bytes.length < 8 || mayRead(bytes) === (expected !== undefined))
  );
}

describe("asReadable's byte check agrees with decoding", () => {
  it("at the 90 % printable threshold, with and without a byte-order mark", () => {
    const bom = new Uint8Array([0xef, 0xbb, 0xbf]);
    for (let n = 8; n <= 40; n++) {
      for (let bad = 0; bad <= n; bad++) {
        const good = Math.max(0, n - bad - 5);
        const body = ascii(`ab|c ${"x".repeat(good)}${"\x01".repeat(bad)}`);
        for (const bytes of [body, concat(bom, body), concat(body, new Uint8Array([0xc2, 0x85]))])
          expect(agrees(bytes), String([...bytes])).toBe(true);
      }
    }
  });

  it("with every kind of character at the 90 % threshold", () => {
    // One character of each kind (ASCII, C1 control, two-, three- and four-byte text, a
    // byte-order mark), whole or cut short, among fillers and controls chosen so one unit
    // tips the ratio.
    const kinds = [
      [0x41],
      [0x01],
      [0xc2, 0x85],
      [0xc2, 0x9f],
      [0xc2, 0xa0],
      [0xdf, 0xbf],
      [0xe0, 0xa0, 0x80],
      [0xe2, 0x80, 0x8b],
      [0xef, 0xbb, 0xbf],
      [0xed, 0x9f, 0xbf],
      [0xf0, 0x9f, 0x98, 0x80],
      [0xf4, 0x8f, 0xbf, 0xbf],
    ];
    const disagree: string[] = [];
    for (const kind of kinds) {
      for (let filler = 0; filler <= 24; filler++) {
        for (let controls = 0; controls <= 4; controls++) {
          const char = new Uint8Array(kind);
          const body = ascii(`cat /${"a".repeat(filler)}${"\x01".repeat(controls)}`);
          const cut = char.subarray(0, char.length - 1);
          for (const bytes of [
            concat(char, body),
            concat(body, char),
            concat(char, char, body),
            concat(body, cut),
            concat(cut, body),
          ])
            if (!agrees(bytes)) disagree.push(String([...bytes]));
        }
      }
    }
    expect(disagree).toEqual([]);
  });

  it("on every two-byte sequence and every lead with every second byte", () => {
    const disagree: string[] = [];
    const prefix = ascii("run cat /etc ");
    for (let lead = 0x80; lead <= 0xff; lead++) {
      for (let second = 0; second <= 0xff; second++) {
        for (const tail of [
          [0x80, 0x80],
          [0xbf, 0x41],
        ]) {
          const bytes = concat(prefix, new Uint8Array([lead, second, ...tail]));
          if (!agrees(bytes)) disagree.push(`${lead} ${second} ${tail}`);
        }
      }
    }
    expect(disagree).toEqual([]);
  });

  it("on random bytes, UTF-8 text, cut UTF-8 text and base64 of identifiers", () => {
    const special = fc.constantFrom(
      0x00,
      0x09,
      0x0a,
      0x0d,
      0x1f,
      0x20,
      0x7c,
      0x3b,
      0x26,
      0x2f,
      0x7f,
      0x80,
      0x9f,
      0xa0,
      0xbf,
      0xc0,
      0xc1,
      0xc2,
      0xdf,
      0xe0,
      0xed,
      0xef,
      0xbb,
      0xf0,
      0xf4,
      0xf5,
      0xff,
    );
    const byteStrings = fc.oneof(
      fc.uint8Array({ maxLength: 48 }),
      fc
        .array(fc.oneof(fc.integer({ min: 0x20, max: 0x7e }), special), { maxLength: 48 })
        .map((b) => new Uint8Array(b)),
      fc
        .tuple(fc.string({ unit: "binary", maxLength: 24 }), fc.nat(4), fc.boolean())
        .map(([text, cut, bom]) => {
          const bytes = Buffer.from(`${bom ? "\ufeff" : ""}${text}`, "utf8");
          return new Uint8Array(bytes.subarray(0, Math.max(0, bytes.length - cut)));
        }),
      fc
        .stringMatching(/^[A-Za-z0-9+/_-]{24,64}$/)
        .map((run) => new Uint8Array(Buffer.from(run, "base64"))),
    );
    fc.assert(
      fc.property(byteStrings, (bytes) => {
        expect(agrees(bytes)).toBe(true);
      }),
      { numRuns: 5000 },
    );
  });
});
