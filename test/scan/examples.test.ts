/**
 * Every TSDoc `@example` in src/scan runs, and each `console.log(x); // value` line holds:
 * the documentation cannot drift from the code.
 */
import { spawnSync } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { describe, expect, it } from "vitest";

/** Every module under src/scan, at any depth (the detector's engine, lexicons and signals included). */
const files = (readdirSync("src/scan", { recursive: true }) as string[])
  .filter((f) => f.endsWith(".ts"))
  .map((f) => join("src/scan", f))
  .sort();

function examples(): { file: string; code: string }[] {
  const out: { file: string; code: string }[] = [];
  for (const file of files) {
    const text = readFileSync(file, "utf8");
    for (const m of text.matchAll(/@example\s*\n((?:\s*\*.*\n)*?)\s*\*\/|```ts\n([\s\S]*?)```/g)) {
      const block = m[0].includes("@example") ? m[1]! : null;
      if (block === null) continue;
      const fence = /```ts\n([\s\S]*?)```/.exec(block.replace(/^\s*\* ?/gm, ""));
      if (fence) out.push({ file, code: fence[1]! });
    }
  }
  return out;
}

/** Turn `console.log(expr); // literal` into an assertion; leave other logs alone. */
function assertify(code: string): string {
  return code
    .split("\n")
    .map((line) => {
      const m = /^(\s*)console\.log\((.*)\);\s*\/\/\s*(.+?)\s*$/.exec(line);
      if (!m) return line;
      const [, indent, expr, expected] = m;
      if (!/^(["[{\d-]|true|false|null)/.test(expected!)) return line;
      const exprs = expr!.split(/,\s*(?![^([{]*[)\]}])/);
      const values =
        exprs.length > 1 && !expected!.startsWith("[") ? `[${exprs.join(", ")}]` : expr;
      const want =
        exprs.length > 1 && !expected!.startsWith("[")
          ? `[${expected!.split(/\s+(?![^([{]*[)\]}])/).join(", ")}]`
          : expected;
      try {
        new Function(`return ${want};`);
      } catch {
        return line; // a comment, not a value
      }
      return `${indent}assert.deepStrictEqual(${values}, ${want}, ${JSON.stringify(line.trim())});`;
    })
    .join("\n");
}

describe("TSDoc examples in src/scan", () => {
  it("all run and their printed values hold", () => {
    const list = examples();
    expect(list.length).toBeGreaterThan(30);
    const dir = mkdtempSync(join(tmpdir(), "airlock-examples-"));
    const index = resolve("src/scan/index.ts");
    const runner: string[] = [];
    list.forEach(({ file, code }, i) => {
      // The public name reads the package index; a relative import reads the module's neighbour.
      const body = assertify(code)
        .replaceAll('"agent-airlock/scan"', JSON.stringify(index))
        .replace(
          /(from\s+|import\()"(\.\.?\/[\w/.-]+)\.js"/g,
          (_, lead: string, name: string) =>
            `${lead}${JSON.stringify(resolve(dirname(file), `${name}.ts`))}`,
        );
      const path = join(dir, `ex${i}.mts`);
      writeFileSync(path, `import assert from "node:assert";\n${body}\nexport {};\n`);
      runner.push(
        `try { await import(${JSON.stringify(path)}); } catch (e) { failures.push(${JSON.stringify(file)} + " example " + ${i} + ": " + (e && e.message)); }`,
      );
    });
    const main = join(dir, "run.mts");
    writeFileSync(
      main,
      `const failures: string[] = [];\n${runner.join("\n")}\nconsole.error(JSON.stringify(failures));\n`,
    );
    const out = spawnSync(process.execPath, ["--import", "tsx", main], {
      encoding: "utf8",
      timeout: 60_000,
    });
    const last = out.stderr.trim().split("\n").at(-1) ?? "";
    expect(JSON.parse(last)).toEqual([]);
  });
});
