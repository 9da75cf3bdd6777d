/**
 * `loadToolDefs(path, { blocking: true })` (what the CLI uses) reads the same tool sets,
 * problems and errors as the default, which reads through Node's thread pool.
 */
import { chmodSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { loadToolDefs } from "../../src/scan/index.js";
import { corpusPath, describeCorpus } from "../helpers/corpus.js";

async function outcome(path: string, blocking: boolean): Promise<unknown> {
  try {
    return { set: await loadToolDefs(path, { blocking }) };
  } catch (err) {
    const e = err as { code?: string; message?: string; source?: string };
    return { error: { code: e.code, message: e.message, source: e.source } };
  }
}

describe("blocking reads", () => {
  const dir = mkdtempSync(join(tmpdir(), "airlock-load-blocking-"));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  writeFileSync(join(dir, "good.json"), JSON.stringify([{ name: "echo", description: "Echo." }]));
  writeFileSync(join(dir, "broken.json"), "{ not json");
  writeFileSync(join(dir, "package.json"), JSON.stringify({ name: "x" }));
  mkdirSync(join(dir, "folder.json"));
  writeFileSync(join(dir, "locked.json"), "[]");
  chmodSync(join(dir, "locked.json"), 0o000);
  // Unreadable even for root, whom mode 000 does not stop: a link to nothing.
  symlinkSync(join(dir, "nowhere.json"), join(dir, "dangling.json"));

  for (const [name, path] of [
    ["a directory of good, broken, unreadable and non-tool files", dir],
    ["one file", join(dir, "good.json")],
    ["an invalid file", join(dir, "broken.json")],
    ["a missing path", join(dir, "missing.json")],
    ["the bundled example data", "examples/data/scan"],
  ] as const) {
    it(`give what the default reads give: ${name}`, async () => {
      const blocking = await outcome(path, true);
      expect(blocking).toEqual(await outcome(path, false));
      expect(blocking).toBeDefined();
    });
  }

  it("report the unreadable file of a directory as a warning naming it, in both modes", async () => {
    for (const blocking of [true, false]) {
      const set = await loadToolDefs(dir, { blocking });
      const unreadable = set.problems.filter((p) => p.code === "INPUT_UNREADABLE");
      expect(unreadable.map((p) => p.source).join(" ")).toContain("dangling.json");
      expect(set.tools.map((t) => t.definition.name)).toContain("echo");
    }
  });
});

describeCorpus("blocking reads of the real servers", () => {
  it("give the same tool set", async () => {
    const path = corpusPath("real-servers");
    const blocking = await loadToolDefs(path, { blocking: true });
    expect(blocking.tools.length).toBeGreaterThan(50);
    expect(blocking).toEqual(await loadToolDefs(path));
  });
});
