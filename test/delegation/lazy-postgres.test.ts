/**
 * `pg` is an optional peer, like better-sqlite3 (lazy-sqlite.test.ts): importing the guard
 * never loads it; opening a PostgreSQL registry does, and fails closed when the database
 * cannot be reached (no server is needed to see both).
 */
import { execFileSync } from "node:child_process";
import { describe, expect, it } from "vitest";

const probe = `
import { createRequire } from "node:module";
const require = createRequire(import.meta.url);
const Module = require("node:module");
const loaded = () => Object.keys(Module._cache).some((k) => k.includes("/node_modules/pg/"));
const guard = await import("./src/guard/index.ts");
const before = loaded();
const code = await guard
  .openPostgresRegistry("postgres://airlock@127.0.0.1:9/none", { connectTimeoutMs: 2000 })
  .then(() => "opened", (err) => err.code);
console.log(JSON.stringify({ before, after: loaded(), code }));
`;

describe("the PostgreSQL registry is loaded lazily", () => {
  it("importing agent-airlock/guard does not load pg; opening a PostgreSQL registry does", () => {
    const out = execFileSync(
      process.execPath,
      ["--import", "tsx", "--input-type=module", "-e", probe],
      { encoding: "utf8" },
    );
    expect(JSON.parse(out.trim())).toEqual({
      before: false,
      after: true,
      code: "REGISTRY_UNAVAILABLE",
    });
  });
});
