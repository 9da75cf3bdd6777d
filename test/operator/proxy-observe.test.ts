import { readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { generateDelegationKey, issueDelegation } from "../../src/guard/index.js";
import { clientThroughProxy, resultText, rugServer, runCli, tempDir } from "./helpers.js";

// airlock proxy --observe in front of the real SDK server of rug-pull-server.mjs, with
// the real SDK client: nothing is blocked, and what would have been is logged as such.

let dir: string;
let pins: string;

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
  // "huge" was never approved.
  const file = JSON.parse(readFileSync(pins, "utf8"));
  delete file.servers.rug.tools.huge;
  writeFileSync(pins, JSON.stringify(file));
}, 120_000);
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("airlock proxy --observe", { timeout: 90_000 }, () => {
  it("lists and forwards what the pins and the delegation would refuse, logging each as would-be refusals", async () => {
    const root = generateDelegationKey();
    const agent = generateDelegationKey();
    const { chain } = await issueDelegation({
      issuer: root,
      audience: agent.did,
      capabilities: ["echo", "huge"],
      ttlSeconds: 600,
    });
    const chainFile = join(dir, "agent.chain.json");
    writeFileSync(chainFile, JSON.stringify({ chain }));
    const audit = join(dir, "observe.jsonl");
    const calls = join(dir, "observe-calls.log");
    const { client, stderr } = await clientThroughProxy(
      [
        "--pins",
        pins,
        "--audit-log",
        audit,
        "--observe",
        "--agent",
        agent.did,
        "--root",
        root.did,
        "--chain",
        chainFile,
      ],
      rugServer("--call-log", calls),
    );
    try {
      // The unpinned tool is listed, and both calls reach the server.
      expect((await client.listTools()).tools.map((t) => t.name)).toContain("huge");
      expect(resultText(await client.callTool({ name: "huge", arguments: { bytes: 3 } }))).toBe(
        "xxx",
      );
      // Pinned, but the chain does not grant "add": forwarded all the same.
      expect(resultText(await client.callTool({ name: "add", arguments: { a: 1, b: 2 } }))).toBe(
        "3",
      );
      expect(resultText(await client.callTool({ name: "echo", arguments: { text: "e" } }))).toBe(
        "e",
      );
    } finally {
      await client.close();
    }
    expect(readFileSync(calls, "utf8").split("\n").filter(Boolean)).toEqual([
      "huge",
      "add",
      "echo",
    ]);
    expect(stderr()).toContain(
      "OBSERVE MODE: nothing is blocked; what would be refused is only logged",
    );
    expect(stderr()).toMatch(
      /observe: would block tools\/call "huge" \(deny_unpinned\): .*; forwarded/,
    );
    expect(stderr()).toMatch(/observe: would block tools\/call "add" \(TOOL_NOT_AUTHORIZED\)/);
    const records = readFileSync(audit, "utf8")
      .trim()
      .split("\n")
      .map((line) => JSON.parse(line));
    // Impossible to take for enforcement: every line says observe.
    for (const record of records) expect(record.observe, record.event).toBe(true);
    expect(
      records.find((r) => r.event === "tool_definition_check" && r.toolName === "huge"),
    ).toMatchObject({ verdict: "deny_unpinned", allowed: false, enforced: false });
    const callRecords = records.filter((r) => r.event === "tool_call_check");
    expect(callRecords.map((r) => [r.toolName, r.allowed, r.enforced, r.verdict])).toEqual([
      ["huge", false, false, "deny_unpinned"],
      ["add", false, false, "TOOL_NOT_AUTHORIZED"],
      ["echo", true, undefined, "allow_pinned"],
    ]);
    // airlock audit counts them apart from refusals.
    const summary = await runCli(["audit", audit, "--output", "json"]);
    expect(summary.code).toBe(1);
    const report = JSON.parse(summary.stdout);
    expect(report).toMatchObject({ exitCode: 1, refusals: 0, wouldRefuse: 3 });
  });
});
