import { readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { ToolListChangedNotificationSchema } from "@modelcontextprotocol/sdk/types.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runProcess } from "../helpers/process.js";
import { cliArgs, clientThroughProxy, resultText, rugServer, runCli, tempDir } from "./helpers.js";

// The audit log of a real airlock proxy session (real SDK client and server): one line
// per decision, each with its verdict and reason; then `airlock audit` over that log and
// over a hostile one.

const allTools = ["echo", "add", "send_report", "slow", "crash", "garbage", "flood", "huge"];
let dir: string;
let log: string;

const readLog = (path: string) =>
  readFileSync(path, "utf8")
    .trim()
    .split("\n")
    .map((line) => JSON.parse(line));

beforeAll(async () => {
  dir = tempDir();
  const pins = join(dir, "airlock.pins.json");
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
  log = join(dir, "audit.jsonl");
  const { client } = await clientThroughProxy(
    ["--pins", pins, "--audit-log", log],
    rugServer("--rug-after", "2"),
  );
  const changed = new Promise<void>((resolve) =>
    client.setNotificationHandler(ToolListChangedNotificationSchema, () => resolve()),
  );
  try {
    for (let i = 0; i < 3; i++) await client.listTools();
    expect(resultText(await client.callTool({ name: "echo", arguments: { text: "a" } }))).toBe("a");
    expect(resultText(await client.callTool({ name: "echo", arguments: { text: "b" } }))).toBe("b");
    // The server changes send_report after two calls and says so; the proxy relists.
    await changed;
    await client.listTools();
    await client.listTools();
    const refused = await client.callTool({ name: "send_report", arguments: { recipient: "x" } });
    expect(resultText(refused)).toMatch(/\(deny_multi_field_drift\)/);
  } finally {
    await client.close();
  }
}, 120_000);
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("the audit log of airlock proxy", { timeout: 90_000 }, () => {
  it("has one line per decision: a definition when first judged and when its verdict changes, each call", () => {
    const records = readLog(log);
    // 5 client listings and 2 of the proxy's own judged 8 tools each; before, every
    // listing wrote a line per tool (56 lines).
    const definitions = records.filter((r) => r.event === "tool_definition_check");
    expect(definitions.map((r) => [r.toolName, r.verdict])).toEqual([
      ...allTools.map((name) => [name, "allow_pinned"]),
      ["send_report", "deny_multi_field_drift"],
    ]);
    expect(records.map((r) => r.event)).toEqual([
      "proxy_start",
      ...allTools.map(() => "tool_definition_check"),
      "tool_call_check",
      "tool_call_check",
      "tool_definition_check",
      "tool_call_check",
      "proxy_stop",
    ]);
  });

  it("gives every decision a server, a time, a verdict and a reason", () => {
    const decisions = readLog(log).filter((r) => r.event.endsWith("_check"));
    for (const record of decisions) {
      expect(record.server).toBe("rug");
      expect(Number.isNaN(Date.parse(record.time))).toBe(false);
      expect(typeof record.verdict, JSON.stringify(record)).toBe("string");
      expect(record.reason, JSON.stringify(record)).toMatch(/\w/);
    }
    expect(decisions.at(-1)).toMatchObject({
      event: "tool_call_check",
      toolName: "send_report",
      allowed: false,
      verdict: "deny_multi_field_drift",
    });
  });
});

// Each test starts several CLI processes: generous on a loaded 2-core machine.
describe("airlock audit", { timeout: 120_000 }, () => {
  it("summarises per server and tool, and exits 1 when something was refused, in both formats", async () => {
    const text = await runCli(["audit", log]);
    const json = await runCli(["audit", log, "--output", "json"]);
    expect([text.code, json.code]).toEqual([1, 1]);
    expect(text.stdout).toMatch(/audit\.jsonl: 14 records/);
    expect(text.stdout).toMatch(/server "rug": 1 session\(s\)/);
    expect(text.stdout).toMatch(
      /send_report +calls: 1 refused \(deny_multi_field_drift 1\); definitions: 1 allowed, 1 refused \(deny_multi_field_drift 1\)/,
    );
    expect(text.stdout).toMatch(/echo +calls: 2 allowed; definitions: 1 allowed/);
    const report = JSON.parse(json.stdout);
    expect(report).toMatchObject({
      exitCode: 1,
      matched: 14,
      refusals: 2,
      wouldRefuse: 0,
      read: { lines: 14, records: 14, oversized: 0, notJson: 0, notRecord: 0 },
    });
    expect(report.tools.find((t: { tool: string }) => t.tool === "echo")).toEqual({
      server: "rug",
      tool: "echo",
      calls: { allowed: 2, refused: {}, wouldRefuse: {} },
      definitions: { allowed: 1, refused: {}, wouldRefuse: {} },
    });
    expect(report.recent).toBeUndefined();
  });

  it("filters by tool, server, time and refusals", async () => {
    const [echoRun, refused, refusedText, future, nope, recent] = await Promise.all([
      runCli(["audit", log, "--tool", "echo", "--output", "json"]),
      runCli(["audit", log, "--refused", "--output", "json"]),
      runCli(["audit", log, "--refused"]),
      runCli(["audit", log, "--since", "2999-01-01T00:00:00Z", "--output", "json"]),
      runCli(["audit", log, "--server", "nope", "--output", "json"]),
      runCli(["audit", log, "--since", "1d", "--output", "json"]),
    ]);
    const echo = JSON.parse(echoRun.stdout);
    expect(echo).toMatchObject({ exitCode: 0, matched: 3, refusals: 0 });
    expect(echo.tools.map((t: { tool: string }) => t.tool)).toEqual(["echo"]);
    expect(refused.code).toBe(1);
    const listed = JSON.parse(refused.stdout).recent;
    expect(listed.map((r: { event: string; verdict: string }) => [r.event, r.verdict])).toEqual([
      ["tool_definition_check", "deny_multi_field_drift"],
      ["tool_call_check", "deny_multi_field_drift"],
    ]);
    expect(refusedText.stdout).toMatch(
      /refusals \(last 2\):\n.*rug send_report +deny_multi_field_drift: tool "send_report" changed/,
    );
    for (const run of [future, nope]) {
      expect(run.code).toBe(0);
      expect(JSON.parse(run.stdout).matched).toBe(0);
    }
    expect(JSON.parse(recent.stdout).matched).toBe(14);
  });

  it("reads stdin like a file", async () => {
    const run = await runProcess(process.execPath, cliArgs("audit", "--output", "json"), {
      stdin: readFileSync(log, "utf8"),
    });
    const fromFile = JSON.parse((await runCli(["audit", log, "--output", "json"])).stdout);
    expect(run.code).toBe(1);
    expect({ ...JSON.parse(run.stdout), log: "" }).toEqual({ ...fromFile, log: "" });
  });

  it("counts and skips hostile lines, never crashing, and refuses what is not a log file", async () => {
    const hostile = join(dir, "hostile.jsonl");
    writeFileSync(
      hostile,
      Buffer.concat([
        Buffer.from(readFileSync(log, "utf8").split("\n").slice(0, 2).join("\n")),
        Buffer.from(`\n{"event":"tool_call_check","toolName":"${"x".repeat(3_000_000)}"}\n`),
        Buffer.from([0xff, 0x00, 0xfe, 0x0a]),
        Buffer.from(`${"{".repeat(200_000)}\n`),
        Buffer.from('{"event":"tool_call_check","time":"yesterday"}\n'),
        Buffer.from(
          '{"time":"2026-01-01T00:00:00Z","event":"tool_call_check","server":"s","toolName":"__proto__","allowed":false,"verdict":"constructor"}\n',
        ),
      ]),
    );
    const run = await runCli(["audit", hostile, "--output", "json"]);
    expect(run.code, run.stderr).toBe(1);
    const report = JSON.parse(run.stdout);
    expect(report.read).toEqual({
      lines: 7,
      records: 3,
      empty: 0,
      oversized: 1,
      notJson: 2,
      notRecord: 1,
    });
    expect(report.tools.find((t: { server: string }) => t.server === "s")).toMatchObject({
      tool: "__proto__",
      calls: { refused: { constructor: 1 } },
    });
    expect(run.stderr).toContain(
      "4 line(s) skipped: 1 over 1048576 bytes, 2 not JSON, 1 not audit records",
    );
    const paths = ["/dev/zero", dir, join(dir, "missing.jsonl")];
    const [usage, ...bad] = await Promise.all([
      runCli(["audit", log, "--since", "last tuesday"]),
      ...paths.map((path) => runCli(["audit", path, "--output", "json"])),
    ]);
    expect(usage!.code).toBe(2);
    bad.forEach((run, i) => {
      expect(run.code, paths[i]).toBe(2);
      expect(JSON.parse(run.stdout).exitCode).toBe(2);
    });
  });
});
