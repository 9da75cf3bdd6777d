import { type ChildProcessWithoutNullStreams, spawn } from "node:child_process";
import { mkdtempSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { jsonLinesPeer } from "../helpers/json-lines-peer.js";

const here = dirname(fileURLToPath(import.meta.url));
export const root = resolve(here, "../..");
const require = createRequire(import.meta.url);

/** The bin of an npm MCP server package, run with this Node (never npx). */
function binOf(pkg: string, bin: string): string {
  return join(dirname(require.resolve(`${pkg}/package.json`)), bin);
}
export const everythingServer = [
  binOf("@modelcontextprotocol/server-everything", "dist/index.js"),
  "stdio",
];
export const filesystemServer = (dir: string) => [
  binOf("@modelcontextprotocol/server-filesystem", "dist/index.js"),
  dir,
];
export const rugServer = (...flags: string[]) => [
  join(root, "test/fixtures/operator/rug-pull-server.mjs"),
  ...flags,
];
/** The raw JSON-RPC server that plays id games (`--mode`, `--call-log`; see the file). */
export const hostileIdServer = (...flags: string[]) => [
  join(root, "test/fixtures/operator/hostile-id-server.mjs"),
  ...flags,
];

/** `node --import tsx src/cli/bin.ts ...args`, by absolute paths (works from any cwd). */
export function cliArgs(...args: string[]): string[] {
  return ["--import", import.meta.resolve("tsx"), join(root, "src/cli/bin.ts"), ...args];
}

export interface CliRun {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Run the airlock CLI to completion. */
export function runCli(
  args: string[],
  options: { cwd?: string; env?: NodeJS.ProcessEnv } = {},
): Promise<CliRun> {
  return new Promise((done, fail) => {
    const child = spawn(process.execPath, cliArgs(...args), {
      cwd: options.cwd ?? root,
      env: { ...process.env, NO_COLOR: "1", ...options.env },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (d) => {
      stdout += d;
    });
    child.stderr.on("data", (d) => {
      stderr += d;
    });
    child.on("error", fail);
    child.on("close", (code) => done({ code, stdout, stderr }));
  });
}

export function tempDir(): string {
  return mkdtempSync(join(tmpdir(), "airlock-operator-"));
}

/** A real SDK client connected to `airlock proxy ... -- node <server...>`. */
export async function clientThroughProxy(
  proxyArgs: string[],
  server: string[],
  options: {
    capabilities?: ConstructorParameters<typeof Client>[1];
    setup?: (client: Client) => void;
  } = {},
): Promise<{ client: Client; transport: StdioClientTransport; stderr: () => string }> {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: cliArgs("proxy", ...proxyArgs, "--", process.execPath, ...server),
    cwd: root,
    stderr: "pipe",
  });
  let stderr = "";
  transport.stderr?.on("data", (d) => {
    stderr += d;
  });
  const client = new Client({ name: "operator-test", version: "1.0.0" }, options.capabilities);
  options.setup?.(client);
  await client.connect(transport);
  return { client, transport, stderr: () => stderr };
}

/** `airlock proxy ... -- node <server...>` as a raw process, spoken to in JSON lines. */
export function rawProxy(proxyArgs: string[], server: string[]) {
  const child: ChildProcessWithoutNullStreams = spawn(
    process.execPath,
    cliArgs("proxy", ...proxyArgs, "--", process.execPath, ...server),
    { cwd: root, stdio: "pipe" },
  );
  return jsonLinesPeer(child);
}

/** Text of the first content item of a tool result. */
export function resultText(result: unknown): string {
  const content = (result as { content?: { type: string; text?: string }[] }).content;
  return content?.[0]?.text ?? "";
}

/** A real SDK client connected to `airlock proxy ... --url URL` (no command). */
export async function clientThroughProxyUrl(proxyArgs: string[]): Promise<{ client: Client }> {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: cliArgs("proxy", ...proxyArgs),
    cwd: root,
    stderr: "pipe",
  });
  const client = new Client({ name: "operator-test", version: "1.0.0" });
  await client.connect(transport);
  return { client };
}
