import { execFileSync } from "node:child_process";
import { describe, expect, it } from "vitest";

const probe = `
import { createRequire } from "node:module";
const require = createRequire(import.meta.url);
const Module = require("node:module");
const loaded = () => Object.keys(Module._cache).some((k) => k.includes("better-sqlite3"));
const guard = await import("./src/guard/index.ts");
const before = loaded();
const registry = await guard.openSqliteRegistry(":memory:");
await registry.close();
console.log(JSON.stringify({ before, after: loaded() }));
`;

describe("the SQLite registry is loaded lazily", () => {
  it("importing agent-airlock/guard does not load better-sqlite3; opening a SQLite registry does", () => {
    const out = execFileSync(
      process.execPath,
      ["--import", "tsx", "--input-type=module", "-e", probe],
      {
        encoding: "utf8",
      },
    );
    expect(JSON.parse(out.trim())).toEqual({ before: false, after: true });
  });
});
