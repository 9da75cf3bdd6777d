import { existsSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { basename, join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { COMMAND_NAMES, createProgram } from "../../src/cli/program.js";
import { corpusPath, describeCorpus } from "../helpers/corpus.js";
import { type ProcessRun, runProcess } from "../helpers/process.js";

// The shipped CLI is dist/bundle (scripts/bundle-cli.mjs, run by `npm run build` after
// tsc). It must behave exactly like the tsc output it is made from, dist/cli.
const root = fileURLToPath(new URL("../..", import.meta.url));
const realServers = corpusPath("real-servers");
// In the repository, for the tests that do not need the shared corpus.
const exampleTools = join(root, "examples/data/scan/tools.json");
const everythingServer = join(
  root,
  "node_modules/@modelcontextprotocol/server-everything/dist/index.js",
);
const pkg = JSON.parse(readFileSync(join(root, "package.json"), "utf8")) as {
  bin: Record<string, string>;
  peerDependencies: Record<string, string>;
};
const work = mkdtempSync(join(tmpdir(), "airlock-bundle-"));
afterAll(() => rmSync(work, { recursive: true, force: true }));

/** `node SCRIPT ARGS` in the package root, without colours; `script` may be several node arguments. */
function run(script: string | string[], args: string[]): Promise<ProcessRun> {
  return runProcess(process.execPath, [script, ...args].flat(), { cwd: root });
}

/** Which chunk of dist/bundle holds which input files (from esbuild's metafile). */
let chunkInputs: Map<string, string[]>;
let bundledInputs: string[];

beforeAll(() => {
  // Written by the build beside dist/bundle; read, not rebuilt, so the suite never swaps
  // dist/bundle under the tests that run it.
  const metafile = join(root, "dist/bundle-meta.json");
  if (!existsSync(metafile)) {
    throw new Error("dist/bundle-meta.json is missing: run `npm run build` before this test");
  }
  const meta = JSON.parse(readFileSync(metafile, "utf8")) as {
    inputs: Record<string, unknown>;
    outputs: Record<string, { inputs: Record<string, unknown> }>;
  };
  bundledInputs = Object.keys(meta.inputs);
  chunkInputs = new Map(
    Object.entries(meta.outputs).map(([file, output]) => [
      basename(file),
      Object.keys(output.inputs),
    ]),
  );
});

type Case = [bin: string, name: string, args: string[]];
const scripts: Record<string, [string, string]> = {
  airlock: ["dist/cli/bin.js", "dist/bundle/bin.js"],
  "airlock-scan-tools": ["dist/cli/scan-tools-bin.js", "dist/bundle/scan-tools-bin.js"],
};

/** Runs one case with dist/cli and with dist/bundle; they must agree exactly. */
async function sameAsUnbundled([bin, , args]: Case): Promise<ProcessRun> {
  const [unbundled, bundled] = scripts[bin] ?? [];
  if (unbundled === undefined || bundled === undefined) throw new Error(`no bin ${bin}`);
  const [expected, actual] = await Promise.all([run(unbundled, args), run(bundled, args)]);
  expect(actual).toEqual(expected);
  // Not two identical failures to load: each case produced its real output.
  expect(expected.stdout.length + expected.stderr.length).toBeGreaterThan(0);
  return actual;
}

describeCorpus("the bundled bins scan the real servers exactly like dist/cli", () => {
  const cases: Case[] = [
    ["airlock", "scan-tools --output json", ["scan-tools", realServers, "--output", "json"]],
    ["airlock", "scan-tools --output sarif", ["scan-tools", realServers, "--output", "sarif"]],
    ["airlock", "scan-tools --output text", ["scan-tools", realServers, "--output", "text"]],
    ["airlock-scan-tools", "--output json", [realServers, "--output", "json"]],
  ];
  it.each(cases)("%s %s: same stdout, stderr and exit code", async (...testCase) => {
    await sameAsUnbundled(testCase);
  });

  it("the exit code is the report's (the real servers have findings)", async () => {
    const result = await run("dist/bundle/bin.js", ["scan-tools", realServers, "--output", "json"]);
    const report = JSON.parse(result.stdout) as { exitCode: number; toolCount: number };
    expect(report.toolCount).toBeGreaterThan(50);
    expect(report.exitCode).toBeGreaterThan(0);
    expect(result.code).toBe(report.exitCode);
  });
});

describe("the bundled bins behave exactly like dist/cli", () => {
  const cases: Case[] = [
    ["airlock", "--version", ["--version"]],
    ["airlock", "--help", ["--help"]],
    ["airlock", "scan-tools on example tools", ["scan-tools", exampleTools, "--output", "json"]],
    ["airlock", "scan-tools on a missing path", ["scan-tools", "/nonexistent", "--output", "json"]],
    ["airlock", "check --help", ["check", "--help"]],
    ["airlock", "pin --help", ["pin", "--help"]],
    ["airlock", "demo", ["demo"]],
    ["airlock", "a misspelt command", ["scan-tool"]],
    ["airlock-scan-tools", "--output sarif", [exampleTools, "--output", "sarif"]],
  ];
  it.each(cases)("%s %s: same stdout, stderr and exit code", async (...testCase) => {
    await sameAsUnbundled(testCase);
  });

  it("check talks to a real MCP server over stdio through the external SDK (exit 2, unpinned tools)", async () => {
    const args = [
      "check",
      "--pins",
      "examples/data/airlock.pins.json",
      "--output",
      "json",
      "--",
      process.execPath,
      everythingServer,
      "stdio",
    ];
    const [expected, actual] = await Promise.all([
      run("dist/cli/bin.js", args),
      run("dist/bundle/bin.js", args),
    ]);
    expect(actual).toEqual(expected);
    expect(actual.code).toBe(2);
    const report = JSON.parse(actual.stdout) as { servers: { listed: number }[] };
    expect(report.servers[0]?.listed).toBeGreaterThan(5);
  });

  it("wrap-config launches the bin it runs from, by absolute path", async () => {
    const config = join(work, "mcp.json");
    writeFileSync(
      config,
      JSON.stringify({ mcpServers: { w: { command: "node", args: ["s.js"] } } }),
    );
    const argsOf = async (script: string) => {
      const result = await run(script, [
        "wrap-config",
        "--config",
        config,
        "--dry-run",
        "--output",
        "json",
      ]);
      expect(result.code).toBe(0);
      const out = JSON.parse(result.stdout) as {
        document: { mcpServers: { w: { command: string; args: string[] } } };
      };
      return out.document.mcpServers.w;
    };
    const [fromCli, fromBundle] = await Promise.all([
      argsOf("dist/cli/bin.js"),
      argsOf("dist/bundle/bin.js"),
    ]);
    expect(fromCli.command).toBe(process.execPath);
    expect(fromCli.args[0]).toBe(join(root, "dist/cli/bin.js"));
    expect(fromBundle.args[0]).toBe(join(root, "dist/bundle/bin.js"));
    expect(fromBundle.args.slice(1)).toEqual(fromCli.args.slice(1));
  });
});

describe("what the package ships", () => {
  it("package.json bin points at bundle files that exist and start with a node shebang", () => {
    expect(Object.keys(pkg.bin).sort()).toEqual(["airlock", "airlock-scan-tools"]);
    for (const target of Object.values(pkg.bin)) {
      expect(target).toMatch(/^\.\/dist\/bundle\//);
      const text = readFileSync(join(root, target), "utf8");
      expect(text.startsWith("#!/usr/bin/env node\n")).toBe(true);
      // A linked source map, next to it, for readable stack traces.
      const map = text.match(/\/\/# sourceMappingURL=(\S+)\s*$/)?.[1];
      expect(map).toBe(`${basename(target)}.map`);
      expect(existsSync(join(root, "dist/bundle", map ?? ""))).toBe(true);
    }
  });

  it("the bins are executable and dist/bundle is open to every user (npx runs them directly)", () => {
    expect(statSync(join(root, "dist/bundle")).mode & 0o777).toBe(0o755);
    for (const target of Object.values(pkg.bin)) {
      expect((statSync(join(root, target)).mode & 0o777).toString(8)).toBe("755");
    }
  });

  it("the former bins in dist/cli stay executable (an old npx cache still links to them)", () => {
    for (const [unbundled] of Object.values(scripts)) {
      expect((statSync(join(root, unbundled)).mode & 0o777).toString(8)).toBe("755");
    }
  });

  it("no peer dependency, nor the MCP SDK or ajv, is inlined", () => {
    const external = [
      ...Object.keys(pkg.peerDependencies),
      "@modelcontextprotocol/sdk",
      "ajv",
      "ajv-formats",
    ];
    for (const name of external) {
      expect(bundledInputs.filter((input) => input.includes(`node_modules/${name}/`))).toEqual([]);
    }
    // The code is really there (not an empty bundle), and what it needs comes from node_modules.
    expect(
      bundledInputs.some((input) => input.endsWith("node_modules/commander/lib/command.js")),
    ).toBe(true);
    const code = [...chunkInputs.keys()]
      .filter((file) => file.endsWith(".js"))
      .map((file) => readFileSync(join(root, "dist/bundle", file), "utf8"))
      .join("\n");
    expect(code).toContain('import("@modelcontextprotocol/sdk/client/stdio.js")');
    // Markers from inside the SDK's stdio client and better-sqlite3's loader.
    const sdk = readFileSync(
      join(root, "node_modules/@modelcontextprotocol/sdk/dist/esm/client/stdio.js"),
      "utf8",
    );
    expect(sdk).toContain("DEFAULT_INHERITED_ENV_VARS");
    expect(code).not.toContain("DEFAULT_INHERITED_ENV_VARS");
    expect(code).not.toContain("better_sqlite3.node");
  });
});

describe("a run loads only the command it names", () => {
  // A module-loading hook (public API) that logs every file URL the process loads.
  const log = join(work, "loads.log");
  const hook = join(work, "hook.mjs");
  const register = join(work, "register.mjs");
  beforeAll(() => {
    writeFileSync(
      hook,
      `import { appendFileSync } from "node:fs";
export async function load(url, context, next) {
  if (url.startsWith("file:")) appendFileSync(${JSON.stringify(log)}, url + "\\n");
  return next(url, context);
}
`,
    );
    writeFileSync(
      register,
      `import { register } from "node:module";\nregister(${JSON.stringify(pathToFileURL(hook).href)});\n`,
    );
  });

  /** The compiled source files (dist/...) whose code a bundled run loaded. */
  async function loadedSources(args: string[]): Promise<string[]> {
    writeFileSync(log, "");
    const result = await run(["--import", register, "dist/bundle/bin.js"], args);
    expect(result.stderr).toBe("");
    const files = readFileSync(log, "utf8").split("\n").filter(Boolean);
    return files.flatMap((url) => chunkInputs.get(basename(fileURLToPath(url))) ?? []);
  }
  const commandModules = COMMAND_NAMES.map((name) => `dist/cli/commands/${name}.js`);

  it("scan-tools runs from the code-cached script, which holds the scan library and no other command, pins or MCP code", async () => {
    // The ES module side loads only the bin: the command runs from scan-tools.cjs (code-cache.ts).
    const sources = await loadedSources(["scan-tools", exampleTools, "--output", "json"]);
    expect(sources).toEqual(["dist/cli/bin.js", "dist/cli/code-cache.js", "dist/cli/location.js"]);
    // esbuild heads each module it bundles with a `// path` line.
    const script = readFileSync(join(root, "dist", "bundle", "scan-tools.cjs"), "utf8");
    const inlined = [...script.matchAll(/^\/\/ (dist\/\S+\.js)$/gm)].map((m) => m[1]!);
    expect(inlined).toContain("dist/cli/commands/scan-tools.js");
    expect(inlined).toContain("dist/scan/scan.js");
    expect(commandModules.filter((file) => inlined.includes(file))).toEqual([
      "dist/cli/commands/scan-tools.js",
    ]);
    expect(inlined.filter((file) => /^dist\/(pins|mcp|proxy|guard)\//.test(file))).toEqual([]);
  });

  it("--version alone loads no command; --help loads every one", async () => {
    const version = await loadedSources(["--version"]);
    expect(commandModules.filter((file) => version.includes(file))).toEqual([]);
    const help = await loadedSources(["--help"]);
    expect(commandModules.filter((file) => help.includes(file))).toEqual(commandModules);
  });

  it("--help lists every command with its description", async () => {
    const program = await createProgram();
    const commands = program.commands.map((command) => [command.name(), command.description()]);
    expect(commands.map(([name]) => name)).toEqual(COMMAND_NAMES);
    const help = (await run("dist/bundle/bin.js", ["--help"])).stdout;
    for (const [name, description] of commands) {
      expect(help).toMatch(new RegExp(`^  ${name} `, "m"));
      expect(help.replace(/\s+/g, " ")).toContain(String(description).slice(0, 40));
    }
  });

  it("createProgram registers only the commands it is given", async () => {
    const program = await createProgram(["scan-tools"]);
    expect(program.commands.map((command) => command.name())).toEqual(["scan-tools"]);
    await expect(createProgram(["nope"])).rejects.toThrow(/no command nope/);
  });
});
