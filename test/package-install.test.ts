import { execFileSync } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runProcess } from "./helpers/process.js";

// The package as a user gets it: `npm pack` of this checkout (its dist/ as built by
// `npm ci`), installed into an empty project. Dependencies come from npm's cache, which
// `npm ci` has just filled (`--prefer-offline`).
const root = fileURLToPath(new URL("..", import.meta.url));
const pkg = JSON.parse(readFileSync(join(root, "package.json"), "utf8")) as { version: string };
const project = mkdtempSync(join(tmpdir(), "airlock-install-"));
afterAll(() => rmSync(project, { recursive: true, force: true }));
let packed: string[];

beforeAll(() => {
  const npm = process.platform === "win32" ? "npm.cmd" : "npm";
  const report = JSON.parse(
    execFileSync(npm, ["pack", "--ignore-scripts", "--json", "--pack-destination", project], {
      cwd: root,
      encoding: "utf8",
    }),
  ) as { filename: string; files: { path: string }[] }[];
  packed = report[0]!.files.map((f) => f.path);
  writeFileSync(
    join(project, "package.json"),
    JSON.stringify({ name: "user-project", version: "1.0.0", private: true, type: "module" }),
  );
  execFileSync(
    npm,
    ["install", `./${report[0]!.filename}`, "--prefer-offline", "--no-audit", "--no-fund"],
    { cwd: project, stdio: "ignore" },
  );
}, 180_000);

const bin = (name: string) => join(project, "node_modules", ".bin", name);

describe("the installed package", () => {
  it("ships dist, docs and the example data, not the sources, tests or build leftovers", () => {
    expect(packed).toContain("dist/bundle/bin.js");
    expect(packed).toContain("dist/bundle/scan-tools.cache");
    expect(packed).toContain("docs/scan-report.schema.json");
    expect(packed.some((p) => p.startsWith("examples/data/"))).toBe(true);
    for (const path of packed) {
      expect(path).not.toMatch(/^(?:src|test|bench|scripts)\/|bundle-meta\.json$|\.tgz$/);
    }
  });

  it("runs both bins directly (linked and executable): --version, demo, scan-tools", async () => {
    const version = await runProcess(bin("airlock"), ["--version"], { cwd: project });
    expect(version.stdout.trim()).toBe(pkg.version);
    const demo = await runProcess(bin("airlock"), ["demo"], { cwd: project });
    expect(demo.code, demo.stderr).toBe(0);
    const examples = join(project, "node_modules/agent-airlock/examples/data/scan");
    const scan = await runProcess(bin("airlock-scan-tools"), [examples, "--output", "json"], {
      cwd: project,
    });
    const report = JSON.parse(scan.stdout) as { exitCode: number; toolCount: number };
    expect(report.toolCount).toBeGreaterThan(0);
    expect(scan.code).toBe(report.exitCode);
  });

  it("every subpath without an optional peer imports; those built on one name the missing peer", async () => {
    const probe = (specifier: string, expression: string) =>
      runProcess(
        process.execPath,
        [
          "--input-type=module",
          "-e",
          `const m = await import(${JSON.stringify(specifier)}); console.log(${expression});`,
        ],
        { cwd: project },
      );
    const core: [string, string][] = [
      ["agent-airlock", "typeof m.ToolDefinitionPinGuard"],
      ["agent-airlock/mcp", "typeof m.secureServer"],
      ["agent-airlock/scan", "typeof m.scanTools"],
      ["agent-airlock/guard", "typeof m.createToolGuard + typeof m.didWebResolver"],
      ["agent-airlock/didis", "typeof m.didisVerifier"],
      ["agent-airlock/openai-agents", "typeof m.guardFunctionTool"],
    ];
    for (const [specifier, expression] of core) {
      const run = await probe(specifier, expression);
      expect(run.stderr, specifier).toBe("");
      expect(run.stdout.trim(), specifier).toMatch(/^(?:function)+$/);
    }
    // A subpath built on a missing peer throws a PeerDependencyError naming the package.
    for (const [specifier, peer] of [
      ["agent-airlock/ai-sdk", "ai"],
      ["agent-airlock/langchain", "@langchain/core"],
    ]) {
      const run = await runProcess(
        process.execPath,
        [
          "--input-type=module",
          "-e",
          `try { await import(${JSON.stringify(specifier)}); } catch (e) { console.log(JSON.stringify({ name: e.name, code: e.code, peer: e.peer, message: e.message })); }`,
        ],
        { cwd: project },
      );
      const error = JSON.parse(run.stdout) as Record<string, string>;
      expect(error.name, specifier).toBe("PeerDependencyError");
      expect(error.code).toBe("PEER_DEPENDENCY_MISSING");
      expect(error.peer).toBe(peer);
      expect(error.message).toContain(`npm install ${peer}`);
      expect(error.message).toContain(specifier);
    }
    // What npm installed for the user: the runtime dependencies, no development tool.
    const installed = readdirSync(join(project, "node_modules"));
    for (const dev of ["vitest", "typescript", "@biomejs", "esbuild", "tsx"]) {
      expect(installed, dev).not.toContain(dev);
    }
  });

  it("refuses require() from CommonJS with a message that says ES modules only", async () => {
    for (const specifier of ["agent-airlock", "agent-airlock/scan", "agent-airlock/langchain"]) {
      const run = await runProcess(
        process.execPath,
        [
          "-e",
          `try { require(${JSON.stringify(specifier)}); console.log("loaded"); } catch (e) { console.log(e.code + " " + e.message); }`,
        ],
        { cwd: project },
      );
      expect(run.stdout, specifier).toMatch(
        /^PACKAGE_ESM_ONLY agent-airlock is an ES module package/,
      );
      expect(run.stdout).toContain("import(");
    }
  });
});
