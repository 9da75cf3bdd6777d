import { execFile } from "node:child_process";
import { mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { promisify } from "node:util";
import { afterAll, describe, expect, it } from "vitest";

const root = resolve(import.meta.dirname, "../..");
const guardEntry = pathToFileURL(join(root, "src/guard/index.ts")).href;
const tmp = join(root, ".airlock-tmp", `docs-delegation-${process.pid}`);
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

describe("docs/delegation.md", () => {
  it("every TypeScript example runs and prints what its comments say", async () => {
    const markdown = readFileSync(join(root, "docs/delegation.md"), "utf8");
    const blocks = [...markdown.matchAll(/```ts\n([\s\S]*?)```/g)].map((m) =>
      (m[1] ?? "").replaceAll('from "agent-airlock/guard"', `from ${JSON.stringify(guardEntry)}`),
    );
    expect(blocks.length).toBeGreaterThanOrEqual(2);
    mkdirSync(tmp, { recursive: true });
    for (const [i, code] of blocks.entries()) {
      const file = join(tmp, `block-${i}.ts`);
      writeFileSync(file, `${code}\nexport {};\n`);
      const { stdout } = await promisify(execFile)(process.execPath, ["--import", "tsx", file], {
        cwd: root,
        encoding: "utf8",
        timeout: 60_000,
      });
      const expected = [...code.matchAll(/console\.log\(.*\);? \/\/ (.+)$/gm)].map((m) =>
        (m[1] ?? "").trim(),
      );
      expect(expected.length, `block ${i} states its output`).toBeGreaterThan(0);
      expect(stdout.trim().split("\n"), `block ${i}`).toEqual(expected);
    }
  });
});
