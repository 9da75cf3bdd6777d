/**
 * Paging what a reviewer reads (src/cli/pager.ts): rows counted as a terminal wraps them,
 * nothing lost or reordered, a line cut only when it is taller than a screen.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { paginate, wrapRows } from "../../src/cli/pager.js";

describe("wrapRows", () => {
  it("wraps at the width; colour sequences take no room, wide characters two columns", () => {
    expect(wrapRows("abcdef", 4)).toEqual(["abcd", "ef"]);
    expect(wrapRows("\u001b[31mabcd\u001b[39mef", 4)).toEqual(["\u001b[31mabcd\u001b[39m", "ef"]);
    expect(wrapRows("日本語の", 4)).toEqual(["日本", "語の"]);
    expect(wrapRows("a😀b", 3)).toEqual(["a😀", "b"]);
    expect(wrapRows("", 10)).toEqual([""]);
  });

  it("property: the rows put back together are the line", () => {
    fc.assert(
      fc.property(fc.string({ unit: "grapheme" }), fc.integer({ min: 1, max: 30 }), (line, w) => {
        expect(wrapRows(line, w).join("")).toBe(line);
      }),
    );
  });
});

describe("paginate", () => {
  it("keeps a line whole when it fits, moving it to the next screen instead of cutting it", () => {
    const pages = paginate(["one", "x".repeat(25), "three"], 10, 4);
    // "one" (1 row) then a 3-row line fits in 4 rows; "three" starts the next screen.
    expect(pages.map((p) => p.lines)).toEqual([["one", "x".repeat(25)], ["three"]]);
    expect(pages.map((p) => p.rows)).toEqual([4, 1]);
    const moved = paginate(["one", "two", "x".repeat(25)], 10, 4);
    expect(moved.map((p) => p.lines)).toEqual([["one", "two"], ["x".repeat(25)]]);
  });

  it("a line taller than a screen fills the screen and goes on", () => {
    const pages = paginate(["head", "y".repeat(95)], 10, 4);
    expect(pages.map((p) => p.rows)).toEqual([4, 4, 3]);
    expect(pages.flatMap((p) => p.lines).join("")).toBe(`head${"y".repeat(95)}`);
  });

  it("property: every row is shown once, in order, and no screen is over-full", () => {
    fc.assert(
      fc.property(
        fc.array(fc.string({ maxLength: 200 }), { maxLength: 30 }),
        fc.integer({ min: 1, max: 40 }),
        fc.integer({ min: 1, max: 30 }),
        (lines, columns, screen) => {
          const pages = paginate(lines, columns, screen);
          for (const p of pages) expect(p.rows).toBeLessThanOrEqual(screen);
          const rows = lines.reduce((n, l) => n + wrapRows(l, columns).length, 0);
          expect(pages.reduce((n, p) => n + p.rows, 0)).toBe(rows);
          expect(pages.flatMap((p) => p.lines).join("")).toBe(lines.join(""));
        },
      ),
    );
  });
});
