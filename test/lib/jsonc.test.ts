/**
 * The one JSONC reader of client configs (wrap-config, pin/check --config, scan-tools):
 * comments and trailing commas are blanked in place, so offsets and lines are kept.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { blankJsoncExtras, parseJsonc } from "../../src/lib/jsonc.js";

describe("parseJsonc", () => {
  it("reads a VS Code config with line and block comments and trailing commas", () => {
    const text = [
      "// MCP servers of this workspace",
      "{",
      '  "servers": {',
      '    /* the docs server */ "docs": { "command": "node", "args": ["a//b", "c/*d*/",], },',
      "  },",
      "}",
    ].join("\n");
    const read = parseJsonc(text);
    expect(read.hadComments).toBe(true);
    expect(read.value).toEqual({
      servers: { docs: { command: "node", args: ["a//b", "c/*d*/"] } },
    });
    expect(blankJsoncExtras(text)).toHaveLength(text.length);
    expect(blankJsoncExtras(text).split("\n")).toHaveLength(text.split("\n").length);
  });

  it("strict JSON is read as is; text that is neither keeps JSON.parse's error and position", () => {
    expect(parseJsonc('{"a": [1, 2]}')).toEqual({ value: { a: [1, 2] }, hadComments: false });
    expect(() => parseJsonc('{ /* c */ "a": 1 "b": 2 }')).toThrow(/position 17/);
    expect(() => parseJsonc("[1, 2,, ]")).toThrow(SyntaxError);
    expect(() => parseJsonc('{"a": 1 /* unterminated')).toThrow(SyntaxError);
  });

  it("property: blanking keeps the length and every line break, and strict JSON unchanged", () => {
    fc.assert(
      fc.property(fc.jsonValue(), fc.string(), (value, noise) => {
        const json = JSON.stringify(value, null, 1);
        expect(blankJsoncExtras(json)).toBe(json);
        const text = `${noise}${json}`;
        const blanked = blankJsoncExtras(text);
        expect(blanked).toHaveLength(text.length);
        expect(blanked.match(/\n/g)?.length ?? 0).toBe(text.match(/\n/g)?.length ?? 0);
      }),
    );
  });

  it("is linear on hostile input (a megabyte of unterminated comments and commas)", () => {
    const text = `[${",".repeat(500_000)}/*${"/*".repeat(250_000)}`;
    expect(blankJsoncExtras(text)).toHaveLength(text.length);
  });
});
