import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

// Every relative link in the README and docs points at a file that exists and, with a
// `#fragment`, at a heading that exists there (GitHub's anchor for it).
const root = fileURLToPath(new URL("..", import.meta.url));
const pages = [
  "README.md",
  "BENCHMARKS.md",
  ...readdirSync(join(root, "docs"))
    .filter((name) => name.endsWith(".md"))
    .map((name) => `docs/${name}`),
];

/** GitHub's anchors for the headings of a Markdown text (repeats get -1, -2, ...). */
function anchorsOf(markdown: string): Set<string> {
  const seen = new Map<string, number>();
  const anchors = new Set<string>();
  let fenced = false;
  for (const line of markdown.split("\n")) {
    if (line.startsWith("```")) fenced = !fenced;
    const heading = fenced ? null : /^#{1,6} (.+)$/.exec(line);
    if (!heading) continue;
    const slug = heading[1]!
      .trim()
      .toLowerCase()
      .replace(/[^\p{L}\p{N} _-]/gu, "")
      .replace(/ /g, "-");
    const count = seen.get(slug) ?? 0;
    seen.set(slug, count + 1);
    anchors.add(count === 0 ? slug : `${slug}-${count}`);
  }
  return anchors;
}

/** The relative link targets of a Markdown text, outside code. */
function linksOf(markdown: string): string[] {
  const prose = markdown.replace(/```[\s\S]*?```/g, "").replace(/`[^`\n]*`/g, "");
  return [...prose.matchAll(/\]\(([^)\s]+)\)/g)]
    .map((m) => m[1]!)
    .filter((target) => !/^[a-z][a-z0-9+.-]*:/i.test(target));
}

describe("links in the README and docs", () => {
  it.each(pages)("%s: every relative link and anchor resolves", (page) => {
    const text = readFileSync(join(root, page), "utf8");
    const broken: string[] = [];
    for (const target of linksOf(text)) {
      const [path = "", fragment] = target.split("#");
      const file = path === "" ? join(root, page) : join(dirname(join(root, page)), path);
      if (!existsSync(file)) {
        broken.push(`${target} (no file ${relative(root, file)})`);
        continue;
      }
      if (fragment === undefined || statSync(file).isDirectory() || !file.endsWith(".md")) continue;
      if (!anchorsOf(readFileSync(file, "utf8")).has(fragment)) {
        broken.push(`${target} (no heading #${fragment} in ${relative(root, file)})`);
      }
    }
    expect(broken).toEqual([]);
  });
});
