/**
 * `airlock scan-tools` runs from a CommonJS script with V8's code cache (src/cli/code-cache.ts).
 * The cache only saves compiling: with it, without it, or refused by V8, a run prints
 * what the plain ES module CLI prints, byte for byte, with the same exit code. Needs
 * `npm run build` (CI's `npm ci` runs it through `prepare`).
 */
import { spawn } from "node:child_process";
import {
  cpSync,
  existsSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";

const root = fileURLToPath(new URL("../..", import.meta.url));
const bundle = join(root, "dist", "bundle");
const examples = join(root, "examples", "data", "scan");

interface Result {
  code: number | null;
  stdout: string;
  stderr: string;
}

function run(args: string[], env: Record<string, string> = {}): Promise<Result> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, args, {
      cwd: root,
      env: { ...process.env, NO_COLOR: "1", ...env },
    });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (d) => (stdout += d));
    child.stderr.on("data", (d) => (stderr += d));
    child.on("error", reject);
    child.on("close", (code) => resolve({ code, stdout, stderr }));
  });
}

const DEBUG = { AIRLOCK_DEBUG_CODE_CACHE: "1" };
/** stderr without the debug line, which only the cached path prints. */
const withoutDebug = (r: Result) => ({
  ...r,
  stderr: r.stderr.replace(/^airlock: code cache \w+\n/, ""),
});

describe("the code-cached scan-tools script", () => {
  const work = mkdtempSync(join(tmpdir(), "airlock-code-cache-"));
  afterAll(() => rmSync(work, { recursive: true, force: true }));

  it("is built next to the bundled bin, with its cache", () => {
    expect(existsSync(join(bundle, "scan-tools.cjs"))).toBe(true);
    expect(readFileSync(join(bundle, "scan-tools.cache")).length).toBeGreaterThan(10_000);
  });

  for (const args of [
    ["scan-tools", examples, "--output", "json"],
    ["scan-tools", examples, "--output", "sarif"],
    ["scan-tools", examples],
    ["scan-tools", "--help"],
    ["scan-tools", join(work, "missing.json"), "--output", "json"],
    ["scan-tools", examples, "--policy", "nope"],
  ]) {
    it(`airlock ${args.slice(0, 1).concat(args.slice(2)).join(" ")}: V8 takes the cache, and the output is the ES module CLI's`, async () => {
      const cached = await run([join(bundle, "bin.js"), ...args], DEBUG);
      expect(cached.stderr).toMatch(/^airlock: code cache accepted\n/);
      const plain = await run([join(root, "dist", "cli", "bin.js"), ...args]);
      expect(withoutDebug(cached)).toEqual(plain);
    });
  }

  it("airlock-scan-tools takes the same path", async () => {
    const cached = await run(
      [join(bundle, "scan-tools-bin.js"), examples, "--output", "json"],
      DEBUG,
    );
    expect(cached.stderr).toMatch(/^airlock: code cache accepted\n/);
    const plain = await run([
      join(root, "dist", "cli", "scan-tools-bin.js"),
      examples,
      "--output",
      "json",
    ]);
    expect(withoutDebug(cached)).toEqual(plain);
  });

  it("a cache V8 refuses (other flags, as another Node would) costs only time", async () => {
    const args = ["scan-tools", examples, "--output", "json"];
    // --no-lazy-feedback-allocation changes V8's flag hash, so the cache no longer fits.
    const refused = await run(
      ["--no-lazy-feedback-allocation", join(bundle, "bin.js"), ...args],
      DEBUG,
    );
    expect(refused.stderr).toMatch(/^airlock: code cache rejected\n/);
    const plain = await run([join(root, "dist", "cli", "bin.js"), ...args]);
    expect(withoutDebug(refused)).toEqual(plain);
  });

  /** A copy of the package (its bundle, package.json, node_modules) at the same depth; its bundle directory. */
  function packageCopy(name: string): string {
    const pkg = join(work, name);
    cpSync(bundle, join(pkg, "dist", "bundle"), { recursive: true });
    cpSync(join(root, "package.json"), join(pkg, "package.json"));
    symlinkSync(join(root, "node_modules"), join(pkg, "node_modules"));
    return join(pkg, "dist", "bundle");
  }

  it("a bundle without its cache compiles from source and prints the same", async () => {
    const copy = packageCopy("pkg");
    rmSync(join(copy, "scan-tools.cache"));
    const args = ["scan-tools", examples, "--output", "json"];
    const absent = await run([join(copy, "bin.js"), ...args], DEBUG);
    expect(absent.stderr).toMatch(/^airlock: code cache absent\n/);
    const plain = await run([join(root, "dist", "cli", "bin.js"), ...args]);
    expect(withoutDebug(absent)).toEqual(plain);
  });

  it("a script that does not load leaves the command to the ES module CLI", async () => {
    const copy = packageCopy("damaged");
    writeFileSync(join(copy, "scan-tools.cjs"), "this is not JavaScript {");
    const args = ["scan-tools", examples, "--output", "json"];
    const damaged = await run([join(copy, "bin.js"), ...args], DEBUG);
    expect(damaged.stderr).not.toContain("code cache");
    expect(damaged).toEqual(await run([join(root, "dist", "cli", "bin.js"), ...args]));
  });

  it("other commands do not take it", async () => {
    const version = await run([join(bundle, "bin.js"), "--version"], DEBUG);
    expect(version.stderr).toBe("");
    expect(version.stdout.trim()).toMatch(/^\d+\.\d+\.\d+/);
  });
});
