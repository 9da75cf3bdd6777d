/**
 * What the library imports at run time is installed for its users: every bare import in
 * src/ names a Node built-in, a `dependencies` package, or a peer dependency (optional
 * integrations, loaded only by the module that integrates with them). A dev dependency
 * imported from src/ would work in this repository and fail on a registry install.
 */
import { readdirSync, readFileSync } from "node:fs";
import { builtinModules } from "node:module";
import { join } from "node:path";
import { describe, expect, it } from "vitest";

const root = join(import.meta.dirname, "..");
const pkg = JSON.parse(readFileSync(join(root, "package.json"), "utf8")) as {
  dependencies?: Record<string, string>;
  peerDependencies?: Record<string, string>;
  devDependencies?: Record<string, string>;
};

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    return entry.name.endsWith(".ts") ? [path] : [];
  });
}

/** `@scope/name` or `name` of a bare specifier. */
function packageOf(specifier: string): string {
  const parts = specifier.split("/");
  return specifier.startsWith("@") ? `${parts[0]}/${parts[1]}` : parts[0]!;
}

const IMPORT =
  /(?:^|[\s;])(?:import|export)\s[^'"`]*?from\s*["']([^"']+)["']|import\(\s*["']([^"']+)["']\s*\)/g;

describe("run-time imports", () => {
  it("every bare import in src/ is a built-in, a dependency or a peer dependency", () => {
    const allowed = new Set([
      ...Object.keys(pkg.dependencies ?? {}),
      ...Object.keys(pkg.peerDependencies ?? {}),
    ]);
    const wrong: string[] = [];
    let seen = 0;
    for (const file of sourceFiles(join(root, "src"))) {
      // Comments hold TSDoc examples that import the package by its public name.
      const text = readFileSync(file, "utf8")
        .replace(/\/\*[\s\S]*?\*\//g, "")
        .replace(/^\s*\/\/.*$/gm, "");
      for (const m of text.matchAll(IMPORT)) {
        const specifier = m[1] ?? m[2]!;
        if (specifier.startsWith(".") || specifier.startsWith("node:")) continue;
        if (builtinModules.includes(specifier)) continue;
        seen++;
        if (!allowed.has(packageOf(specifier))) wrong.push(`${file}: ${specifier}`);
      }
    }
    expect(seen).toBeGreaterThan(5);
    expect(wrong).toEqual([]);
  });

  it("canonicalize stays a dev dependency: a test oracle, not a run-time import", () => {
    expect(pkg.devDependencies?.canonicalize).toBeDefined();
    expect(pkg.dependencies?.canonicalize).toBeUndefined();
  });
});
