/**
 * Markdown that quotes a server's text (lib/markdown.ts): whatever a tool name or
 * description holds, it reads back as the same characters and never becomes markup,
 * HTML, a link or an extra table cell.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { htmlText, mdCode, mdFence, mdTable, mdText } from "../../src/lib/markdown.js";

const HOSTILE = [
  "read`file",
  "``` fence",
  "a | b | c",
  "<img src=x onerror=alert(1)>",
  "[click](https://evil.example/)",
  "**bold** _it_ ~~del~~",
  "# heading\n- item\n> quote",
  "right\u202eleft\u200b",
  "&amp; &#60;",
  "\\|",
  "` ",
  "",
];

/** The cells of one GFM table row: split on pipes that no backslash escapes. */
const cells = (row: string) => row.slice(2, -2).split(/(?<!\\)\|/);

describe("mdCode", () => {
  it("a code span that reads back as the text, whatever backticks it holds", () => {
    fc.assert(
      fc.property(fc.string({ unit: "binary", minLength: 1 }), (text) => {
        const span = mdCode(text);
        const fence = /^`+/.exec(span)![0];
        expect(span.endsWith(fence)).toBe(true);
        let body = span.slice(fence.length, -fence.length);
        // No run of backticks as long as the fence inside, so nothing closes it early.
        expect(body.includes(fence)).toBe(false);
        // CommonMark's reading: one space off each side when both are spaces, unless all are.
        if (body.startsWith(" ") && body.endsWith(" ") && !/^ *$/.test(body))
          body = body.slice(1, -1);
        const expected = text
          .replace(/\r\n|\r|\n/g, " ")
          .replace(
            /[\p{Cc}\p{Cf}\p{Zl}\p{Zp}]/gu,
            (ch) => `\\u{${ch.codePointAt(0)!.toString(16)}}`,
          );
        expect(body).toBe(expected);
      }),
    );
  });

  it("in a table, a pipe cannot open a cell", () => {
    for (const name of HOSTILE) {
      const table = mdTable(["tool", "grade"], [[mdCode(name, { inTable: true }), "fail"]]);
      const row = table.trimEnd().split("\n")[2]!;
      expect(cells(row), name).toHaveLength(2);
    }
  });
});

describe("mdText", () => {
  it("leaves no markup, HTML or line break: every special character is escaped", () => {
    fc.assert(
      fc.property(fc.string(), (text) => {
        const out = mdText(text);
        expect(out).not.toMatch(/[<>\n\r]/);
        // Every markup character is preceded by a backslash that is not itself escaped.
        const unescaped = out.replace(/\\[\s\S]/g, "").replace(/&(amp|lt|gt);/g, "");
        expect(unescaped).not.toMatch(/[\\`*_{}[\]()#+\-.!|~:^"'=$@/<>&]/);
      }),
    );
    expect(mdText("<img src=x>")).toBe("&lt;img src\\=x&gt;");
    expect(mdText("[click](https://evil.example/)")).toBe(
      "\\[click\\]\\(https\\:\\/\\/evil\\.example\\/\\)",
    );
    expect(mdText("a\u202eb")).toBe("a\\\\u\\{202e\\}b");
  });

  it("a table cell of escaped prose keeps its column count", () => {
    for (const text of HOSTILE) {
      const table = mdTable(["a", "b"], [[mdText(text), "x"]]);
      expect(cells(table.trimEnd().split("\n")[2]!), text).toHaveLength(2);
    }
  });
});

describe("mdFence and htmlText", () => {
  it("a fenced block is longer than any backtick run inside, and keeps the lines", () => {
    for (const text of [...HOSTILE, "````\n`````"]) {
      const block = mdFence(text, "text");
      const fence = /^`+/.exec(block)![0];
      expect(fence.length).toBeGreaterThanOrEqual(3);
      const inner = block.slice(fence.length + "text\n".length, -(fence.length + 2));
      expect(inner.includes(fence)).toBe(false);
      expect(inner.split("\n")).toHaveLength(text.split("\n").length);
    }
  });

  it("HTML text has no tag, attribute quote or raw ampersand", () => {
    expect(htmlText(`<b title="x" data='y'>&\n`)).toBe(
      "&lt;b title=&quot;x&quot; data=&#39;y&#39;&gt;&amp; ",
    );
  });
});
