/**
 * `wordStartFilter` lets the rules skip tokenising a name that cannot hold a word they
 * look for. It must never say no to a name one of whose tokens is such a word.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { detectInjectionInTool } from "../../src/scan/poisoning/index.js";
import { splitWords, wordStartFilter } from "../../src/scan/tokens.js";
import { SENSITIVE_ARGUMENT_TOKENS } from "../../src/scan/vocabulary.js";

const WORDS = [...SENSITIVE_ARGUMENT_TOKENS];
const mayHold = wordStartFilter(WORDS);

/** Names built from the words themselves, their pieces, case changes and separators. */
const piece = fc.oneof(
  fc.constantFrom(...WORDS),
  fc.constantFrom(...WORDS).map((w) => w.toUpperCase()),
  fc.constantFrom(...WORDS).map((w) => w[0]!.toUpperCase() + w.slice(1)),
  fc.constantFrom(...WORDS).map((w) => w.slice(0, 2)),
  fc.constantFrom(
    "_",
    "-",
    ".",
    " ",
    "/",
    "2",
    "v2",
    "X",
    "a",
    "é",
    "ｐａｔｈ",
    "İ",
    "\u212a",
    "ß",
  ),
  fc.string({ maxLength: 4 }),
);
const name = fc.array(piece, { maxLength: 6 }).map((parts) => parts.join(""));

describe("wordStartFilter", () => {
  it("never rejects a name that has one of the words as a token", () => {
    fc.assert(
      fc.property(name, (n) => {
        const holds = splitWords(n).some((t) => SENSITIVE_ARGUMENT_TOKENS.has(t));
        if (holds) expect(mayHold(n)).toBe(true);
      }),
      { numRuns: 5000 },
    );
  });

  it("rejects plain ASCII names with no word start, and passes any name past ASCII", () => {
    for (const n of ["owner", "repo", "per_page", "issueNumber", "", "pa_th", "PA"])
      expect(mayHold(n)).toBe(false);
    for (const n of ["filePath", "BASE_URL", "webhookUrl", "run-cmd", "ｐａｔｈ", "é"])
      expect(mayHold(n)).toBe(true);
    // Fullwidth letters read as ASCII after NFKC: the tokeniser finds "path" there.
    expect(splitWords("ｐａｔｈ")).toEqual(["path"]);
  });

  it("refuses a word it cannot index", () => {
    expect(() => wordStartFilter(["ab"])).toThrow(RangeError);
    expect(() => wordStartFilter(["Path"])).toThrow(RangeError);
  });
});

/** The side-channel check as it was before the filter: pre-check, words, tokeniser. */
const MAYBE_CONTEXT_KEY =
  /system|prompt|context|conversation|history|instruction|memory|chat|message|transcript|secret|token|credential|password|env|api|key|ssh|session|cookie/i;
const CONTEXT_WORDS =
  "system prompt prompts context conversation history instructions instruction memory chat messages transcript secret secrets token tokens credential credentials password passwords env environment apikey api key keys ssh session cookie cookies".split(
    " ",
  );
const referenceTokens = (name: string) =>
  name
    .replace(/([a-z0-9])([A-Z])/g, "$1 $2")
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    .filter((t) => t !== "");

describe("the side-channel parameter check", () => {
  const contextPiece = fc.oneof(
    fc.constantFrom(...CONTEXT_WORDS),
    fc.constantFrom(...CONTEXT_WORDS).map((w) => w.toUpperCase()),
    fc.constantFrom(...CONTEXT_WORDS).map((w) => w[0]!.toUpperCase() + w.slice(1)),
    fc.constantFrom(...CONTEXT_WORDS).map((w) => w.slice(0, 2)),
    fc.constantFrom("_", "-", "2", "X", "\n", "é", "İ", "\u212aey", "ｋｅｙ"),
    fc.string({ maxLength: 4 }),
  );
  const key = fc.array(contextPiece, { maxLength: 5 }).map((parts) => `_${parts.join("")}_`);

  it("flags an underscore-wrapped name exactly when one of its tokens is a context word", () => {
    const mayHold = wordStartFilter(CONTEXT_WORDS);
    fc.assert(
      fc.property(key, (k) => {
        const holds = referenceTokens(k).some((t) => CONTEXT_WORDS.includes(t));
        if (holds) expect(mayHold(k)).toBe(true);
        const flagged =
          holds && MAYBE_CONTEXT_KEY.test(k) && (/^_.*_$/.test(k) || k.startsWith("__"));
        const findings = detectInjectionInTool({
          name: "t",
          inputSchema: { type: "object", properties: { [k]: { type: "string" } } },
        });
        expect(findings.some((f) => f.signal === "side-channel-parameter")).toBe(flagged);
      }),
      { numRuns: 3000 },
    );
  });
});
