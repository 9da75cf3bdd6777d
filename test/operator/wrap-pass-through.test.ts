import { mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { generateDelegationKey, issueDelegation } from "../../src/guard/index.js";
import { resultText, rugServer, runCli, tempDir } from "./helpers.js";

// wrap-config writes the proxy's options into every wrapped entry (paths made absolute),
// and the entry, started as a desktop client starts it, runs with them.

const root = generateDelegationKey();
const agent = generateDelegationKey();
let dir: string;
let config: string;
let pins: string;
const original = {
  mcpServers: { rug: { command: process.execPath, args: rugServer(), env: { KEEP: "me" } } },
};

beforeAll(async () => {
  dir = tempDir();
  config = join(dir, "claude_desktop_config.json");
  writeFileSync(config, `${JSON.stringify(original, null, 2)}\n`);
  pins = join(dir, "airlock.pins.json");
  const pinned = await runCli(["pin", "--pins", pins, "--config", config, "--yes"]);
  expect(pinned.code, pinned.stderr).toBe(0);
  mkdirSync(join(dir, "keys"));
  const { chain } = await issueDelegation({
    issuer: root,
    audience: agent.did,
    capabilities: ["echo"],
    ttlSeconds: 600,
  });
  writeFileSync(join(dir, "keys", "agent.chain.json"), JSON.stringify({ chain }));
  writeFileSync(join(dir, "caps.json"), JSON.stringify({ add: "math:add" }));
}, 120_000);
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("airlock wrap-config passes the proxy's options through", { timeout: 120_000 }, () => {
  it("writes them before the real command, paths absolute; the wrapped entry enforces the delegation; --unwrap restores", async () => {
    const wrapped = await runCli(
      [
        "wrap-config",
        "--config",
        config,
        "--pins",
        pins,
        "--agent",
        agent.did,
        "--root",
        root.did,
        "--chain",
        "keys/agent.chain.json",
        "--capabilities",
        "caps.json",
        "--max-pages",
        "5",
        "--relist-before-each-call",
        "--output",
        "json",
      ],
      { cwd: dir },
    );
    expect(wrapped.code, wrapped.stdout + wrapped.stderr).toBe(0);
    const entry = JSON.parse(readFileSync(config, "utf8")).mcpServers.rug;
    const args = entry.args as string[];
    const proxyOptions = args.slice(args.indexOf("proxy") + 1, args.indexOf("--"));
    expect(proxyOptions).toEqual([
      "--pins",
      pins,
      "--server",
      "rug",
      "--agent",
      agent.did,
      "--root",
      root.did,
      "--chain",
      join(dir, "keys", "agent.chain.json"),
      "--capabilities",
      join(dir, "caps.json"),
      "--max-pages",
      "5",
      "--relist-before-each-call",
    ]);
    expect(args.slice(args.indexOf("--") + 1)).toEqual([process.execPath, ...rugServer()]);

    // Started as a desktop client starts it, from elsewhere.
    const transport = new StdioClientTransport({
      command: entry.command,
      args,
      env: { ...process.env, ...entry.env } as Record<string, string>,
      cwd: join(dir, "keys"),
      stderr: "pipe",
    });
    const client = new Client({ name: "desktop", version: "1" });
    await client.connect(transport);
    try {
      expect(resultText(await client.callTool({ name: "echo", arguments: { text: "ok" } }))).toBe(
        "ok",
      );
      const add = await client.callTool({ name: "add", arguments: { a: 1, b: 2 } });
      expect(resultText(add)).toMatch(
        /^AIRLOCK_BLOCK: tool "add" is not admitted \(TOOL_NOT_AUTHORIZED\): agent is not authorized for "math:add"/,
      );
    } finally {
      await client.close();
    }

    const unwrapped = await runCli(["wrap-config", "--config", config, "--unwrap"]);
    expect(unwrapped.code).toBe(0);
    expect(JSON.parse(readFileSync(config, "utf8"))).toEqual(original);
  });

  it("refuses, writing nothing, options the proxy would refuse to start with", async () => {
    const before = readFileSync(config, "utf8");
    const cases: [string[], RegExp][] = [
      [["--agent", agent.did, "--chain", "keys/agent.chain.json"], /delegation needs --root DID/],
      [
        ["--agent", agent.did, "--root", root.did, "--chain", "keys/none.json"],
        /none\.json does not exist/,
      ],
      [
        ["--agent", agent.did, "--root", root.did, "--chain", "a", "--didis-url", "https://x"],
        /give one chain source/,
      ],
      [["--unwrap", "--observe"], /--unwrap takes no proxy options \(got --observe\)/],
      [["--max-pages", "0"], /expected a positive integer/],
    ];
    const runs = await Promise.all(
      cases.map(([extra]) =>
        runCli(["wrap-config", "--config", config, "--pins", pins, ...extra], { cwd: dir }),
      ),
    );
    cases.forEach(([extra, problem], i) => {
      expect(runs[i]!.code, extra.join(" ")).toBe(2);
      expect(runs[i]!.stderr, extra.join(" ")).toMatch(problem);
    });
    expect(readFileSync(config, "utf8")).toBe(before);
  });

  it("--dry-run --observe shows the entry with --observe", async () => {
    const run = await runCli(
      [
        "wrap-config",
        "--config",
        config,
        "--pins",
        pins,
        "--observe",
        "--dry-run",
        "--output",
        "json",
      ],
      { cwd: dir },
    );
    expect(run.code).toBe(0);
    const args = JSON.parse(run.stdout).document.mcpServers.rug.args as string[];
    expect(args.slice(args.indexOf("proxy"), args.indexOf("--"))).toEqual([
      "proxy",
      "--pins",
      pins,
      "--server",
      "rug",
      "--observe",
    ]);
  });
});
