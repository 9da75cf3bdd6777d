import { spawn } from "node:child_process";
import { readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { generateDelegationKey } from "../../src/guard/index.js";
import { cliArgs, root, rugServer, runCli, tempDir } from "./helpers.js";

// A proxy that cannot start (pin file, section, delegation settings) tells the real SDK
// client why, in its answer to initialize, instead of a bare "Connection closed"; it says
// so on stderr and in the audit log, and exits 2.

let dir: string;
let pins: string;
const agent = generateDelegationKey().did;
const trustedRoot = generateDelegationKey().did;

beforeAll(async () => {
  dir = tempDir();
  pins = join(dir, "airlock.pins.json");
  const pinned = await runCli([
    "pin",
    "--pins",
    pins,
    "--server",
    "rug",
    "--yes",
    "--",
    process.execPath,
    ...rugServer(),
  ]);
  expect(pinned.code, pinned.stderr).toBe(0);
}, 120_000);
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Connect the SDK client; resolves with the error it got and what the proxy said on stderr. */
async function refusedConnect(proxyArgs: string[]): Promise<{ error: Error; stderr: string }> {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: cliArgs("proxy", ...proxyArgs, "--", process.execPath, ...rugServer()),
    cwd: root,
    stderr: "pipe",
  });
  let stderr = "";
  transport.stderr?.on("data", (d) => {
    stderr += d;
  });
  const client = new Client({ name: "refusal-test", version: "1.0.0" });
  try {
    await client.connect(transport);
  } catch (error) {
    await client.close();
    return { error: error as Error, stderr };
  }
  await client.close();
  throw new Error("the proxy started");
}

describe("airlock proxy refuses to start with a reason the client reads", {
  timeout: 90_000,
}, () => {
  const cases: [string, () => string[], RegExp, string][] = [
    [
      "a missing pin file",
      () => ["--pins", join(dir, "none.json")],
      /pin file .*none\.json/,
      "PIN_FILE_UNREADABLE",
    ],
    [
      "a section the pin file lacks",
      () => ["--pins", pins, "--server", "nope"],
      /pin file has no server "nope" \(it has: "rug"\)/,
      "PIN_FILE_UNKNOWN_SERVER",
    ],
    [
      "delegation without a root",
      () => ["--pins", pins, "--agent", agent, "--chain", join(dir, "x.json")],
      /delegation needs --root DID/,
      "usage",
    ],
    [
      "a root that is not a DID",
      () => [
        "--pins",
        pins,
        "--agent",
        agent,
        "--root",
        "my-org",
        "--didis-url",
        "https://x.example",
      ],
      /root must be a DID/,
      "GUARD_MISCONFIGURED",
    ],
    [
      "a delegation service over plain http beyond loopback",
      () => [
        "--pins",
        pins,
        "--agent",
        agent,
        "--root",
        trustedRoot,
        "--didis-url",
        "http://did.example.com",
      ],
      /--didis-url must be https:\/\//,
      "usage",
    ],
  ];

  it.each(cases)("%s", async (name, args, problem, verdict) => {
    const audit = join(dir, `refused-${name.replaceAll(" ", "-")}.jsonl`);
    const { error, stderr } = await refusedConnect(["--audit-log", audit, ...args()]);
    expect(error.message).toMatch(/AIRLOCK_BLOCK: airlock proxy did not start: /);
    expect(error.message).toMatch(problem);
    expect(stderr).toMatch(/airlock proxy: refusing to start: /);
    expect(stderr).toMatch(problem);
    const records = readFileSync(audit, "utf8")
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l));
    expect(records).toHaveLength(1);
    expect(records[0]).toMatchObject({ event: "proxy_refused", verdict });
    expect(records[0].reason).toMatch(problem);
  });

  it("answers every request meanwhile, exits 2 once the client's input ends", async () => {
    const child = spawn(
      process.execPath,
      cliArgs("proxy", "--pins", join(dir, "none.json"), "--", "x"),
      {
        cwd: root,
        stdio: "pipe",
      },
    );
    let out = "";
    child.stdout.on("data", (d) => {
      out += d;
    });
    const exited = new Promise<number | null>((resolve) => child.on("close", resolve));
    const initialize = { jsonrpc: "2.0", id: 1, method: "initialize", params: {} };
    child.stdin.write(`${JSON.stringify(initialize)}\n`);
    child.stdin.write(
      `${JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" })}\n`,
    );
    child.stdin.end(`${JSON.stringify({ jsonrpc: "2.0", id: "two", method: "tools/list" })}\n`);
    expect(await exited).toBe(2);
    const answers = out
      .trim()
      .split("\n")
      .map((line) => JSON.parse(line));
    expect(answers.map((a) => [a.id, a.error.code])).toEqual([
      [1, -32603],
      ["two", -32603],
    ]);
  });

  it("with no client on its input (closed stdin), exits 2 at once", async () => {
    writeFileSync(join(dir, "empty.json"), "");
    const run = await runCli(["proxy", "--pins", join(dir, "empty.json"), "--", "x"]);
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(/refusing to start: pin file/);
  });
});
