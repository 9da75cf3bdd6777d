import { readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import ts from "typescript";
import { describe, expect, it } from "vitest";

// Every function, class and constant the package exports, through any of its subpaths,
// carries a TSDoc `@example` (the style the project follows). Types and interfaces are
// documented where they are used.
const root = fileURLToPath(new URL("..", import.meta.url));
const pkg = JSON.parse(readFileSync(join(root, "package.json"), "utf8")) as {
  exports: Record<string, { import?: string }>;
};

/** The source entry of each subpath: `./dist/x/index.js` is `src/x/index.ts`. */
const entries = Object.values(pkg.exports)
  .map((target) => target.import)
  .filter((target): target is string => typeof target === "string")
  .map((target) => join(root, target.replace(/^\.\/dist\//, "src/").replace(/\.js$/, ".ts")));

describe("the public surface", () => {
  it("every exported function, class and constant has an @example", () => {
    expect(entries.length).toBeGreaterThanOrEqual(8);
    const program = ts.createProgram(entries, {
      module: ts.ModuleKind.NodeNext,
      moduleResolution: ts.ModuleResolutionKind.NodeNext,
      target: ts.ScriptTarget.ES2022,
      noEmit: true,
      skipLibCheck: true,
    });
    const checker = program.getTypeChecker();
    const missing = new Set<string>();
    let checked = 0;
    for (const entry of entries) {
      const file = program.getSourceFile(entry);
      const module = file && checker.getSymbolAtLocation(file);
      expect(module, entry).toBeDefined();
      for (const exported of checker.getExportsOfModule(module!)) {
        const symbol =
          exported.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(exported) : exported;
        const declaration = symbol.declarations?.[0];
        if (
          declaration === undefined ||
          !(
            ts.isFunctionDeclaration(declaration) ||
            ts.isClassDeclaration(declaration) ||
            ts.isVariableDeclaration(declaration)
          )
        ) {
          continue;
        }
        checked++;
        const statement = ts.isVariableDeclaration(declaration)
          ? declaration.parent.parent
          : declaration;
        const source = statement.getSourceFile();
        const leading = source.getFullText().slice(statement.getFullStart(), statement.getStart());
        if (!leading.includes("@example")) {
          missing.add(`${source.fileName.slice(root.length)}: ${symbol.name}`);
        }
      }
    }
    expect(checked).toBeGreaterThan(150);
    expect([...missing].sort()).toEqual([]);
  }, 60_000);
});
