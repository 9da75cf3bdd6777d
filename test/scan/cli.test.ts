import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach, describe, expect, it, vi } from "vitest";
import { main } from "../../src/cli/program.js";

afterEach(() => {
  vi.restoreAllMocks();
  process.exitCode = undefined;
});

/** Run `airlock ARGS` in this process (fast), capturing stdout, stderr and the exit code. */
async function cli(args: string[]) {
  let stdout = "";
  let stderr = "";
  vi.spyOn(process.stdout, "write").mockImplementation((chunk: string | Uint8Array) => {
    stdout += String(chunk);
    return true;
  });
  vi.spyOn(process.stderr, "write").mockImplementation((chunk: string | Uint8Array) => {
    stderr += String(chunk);
    return true;
  });
  process.exitCode = undefined;
  await main([process.execPath, "airlock", ...args]);
  const code = Number(process.exitCode ?? 0);
  vi.restoreAllMocks();
  process.exitCode = undefined;
  return { code, stdout, stderr };
}

/** Run the real CLI in a child process (for stdin, the environment and the alias binary). */
function run(
  args: string[],
  options: { input?: string; bin?: string; env?: Record<string, string> } = {},
) {
  const out = spawnSync(
    process.execPath,
    ["--import", "tsx", options.bin ?? "src/cli/bin.ts", ...args],
    {
      encoding: "utf8",
      input: options.input ?? "",
      env: { ...process.env, NO_COLOR: "1", ...options.env },
      timeout: 30_000,
    },
  );
  return { code: out.status, stdout: out.stdout, stderr: out.stderr };
}

const dir = mkdtempSync(join(tmpdir(), "airlock-cli-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const file = (name: string, value: unknown) => {
  const path = join(dir, name);
  writeFileSync(path, typeof value === "string" ? value : JSON.stringify(value));
  return path;
};
const closed = { type: "object", properties: {}, additionalProperties: false };
const passing = file("pass.json", [{ name: "get_a", inputSchema: closed }]);
const warning = file("warn.json", [{ name: "get_a", inputSchema: { type: "object" } }]);
const failing = file("fail.json", [
  {
    name: "delete_a",
    inputSchema: { ...closed, properties: { p: { $ref: "https://x.example/s.json" } } },
  },
]);
/** Three honest tools that only together make both toxic flows. */
const trio = file("claude_desktop_config.json", {
  mcpServers: {
    web: {
      command: "web",
      tools: [
        {
          name: "fetch_url",
          inputSchema: { ...closed, properties: { url: { type: "string", format: "uri" } } },
        },
      ],
    },
    files: { command: "files", tools: [{ name: "read_file", inputSchema: closed }] },
    mail: {
      command: "mail",
      tools: [{ name: "send_email", inputSchema: closed, annotations: { destructiveHint: true } }],
    },
  },
});

describe("airlock scan-tools", () => {
  it("exit codes are the worst grade, identical for text, json and sarif", async () => {
    const seen: Record<string, number[]> = {};
    for (const [name, path] of [
      ["pass", passing],
      ["warn", warning],
      ["fail", failing],
      ["missing", join(dir, "nope.json")],
    ] as const) {
      seen[name] = [];
      for (const output of ["text", "json", "sarif"]) {
        seen[name].push((await cli(["scan-tools", path, "--output", output])).code);
      }
    }
    expect(seen).toEqual({ pass: [0, 0, 0], warn: [1, 1, 1], fail: [2, 2, 2], missing: [2, 2, 2] });
  });

  it("prints a JSON report and a SARIF log on stdout", async () => {
    const json = await cli(["scan-tools", failing, "--output", "json", "--policy", "strict"]);
    const report = JSON.parse(json.stdout);
    expect(report).toMatchObject({ schemaVersion: 1, policy: "strict", exitCode: 2 });
    const sarif = JSON.parse((await cli(["scan-tools", failing, "--output", "sarif"])).stdout);
    expect(sarif.runs[0].results[0].ruleId).toBe("SCAN009");
  });

  it("a file with bytes that are not UTF-8 is a warning with the byte offset: exit 1 in text, json and sarif", async () => {
    const path = join(dir, "not-utf8.json");
    writeFileSync(
      path,
      Buffer.concat([
        Buffer.from('[{"name":"get_a","description":"caf'),
        Buffer.from([0xe9]), // Latin-1 é, which is not UTF-8
        Buffer.from(`","inputSchema":${JSON.stringify(closed)}}]`),
      ]),
    );
    const offset = '[{"name":"get_a","description":"caf'.length;
    const text = await cli(["scan-tools", path]);
    expect(text.code).toBe(1);
    expect(text.stdout).toContain(`warning: ${path}: not UTF-8 at byte ${offset};`);
    const json = await cli(["scan-tools", path, "--output", "json"]);
    expect(json.code).toBe(1);
    expect(JSON.parse(json.stdout).problems).toEqual([
      expect.objectContaining({
        code: "INPUT_NOT_UTF8",
        severity: "warning",
        offset,
        source: path,
      }),
    ]);
    const sarif = await cli(["scan-tools", path, "--output", "sarif"]);
    expect(sarif.code).toBe(1);
    const [note] = JSON.parse(sarif.stdout).runs[0].invocations[0].toolExecutionNotifications;
    expect(note).toMatchObject({
      level: "warning",
      descriptor: { id: "INPUT_NOT_UTF8" },
      locations: [{ physicalLocation: { region: { byteOffset: offset, byteLength: 1 } } }],
    });
  });

  it("the shipped CLI as a process, on the campaign's file (bad bytes in a name and a description) and on standard input: exit 1, INPUT_NOT_UTF8 at the first bad byte", {
    timeout: 120_000,
  }, () => {
    // shared/repro/hostile/scan/scan-tests.mjs (garbage): before, exit 0 and the name read as "t\uFFFD\uFFFD".
    const bytes = Buffer.concat([
      Buffer.from('[{"name":"t'),
      Buffer.from([0xff, 0xfe]),
      Buffer.from('","description":"ok '),
      Buffer.from([0xc3, 0x28, 0xa0, 0xa1, 0xed, 0xa0, 0x80]),
      Buffer.from(`","inputSchema":${JSON.stringify(closed)}}]`),
    ]);
    const path = join(dir, "campaign-bad-utf8.json");
    writeFileSync(path, bytes);
    const offset = '[{"name":"t'.length;
    for (const [args, source] of [
      [["scan-tools", path, "--output", "json"], path],
      [["scan-tools", "-", "--output", "json"], "-"],
    ] as const) {
      const out = spawnSync(process.execPath, ["dist/bundle/bin.js", ...args], {
        input: bytes,
        env: { ...process.env, NO_COLOR: "1" },
        timeout: 60_000,
      });
      expect(out.status, source).toBe(1);
      const report = JSON.parse(out.stdout.toString("utf8"));
      expect(report.problems, source).toEqual([
        expect.objectContaining({ code: "INPUT_NOT_UTF8", severity: "warning", offset }),
      ]);
    }
  });

  it("a missing path is exit 2 with a clear message", async () => {
    const r = await cli(["scan-tools", join(dir, "nope.json")]);
    expect(r.code).toBe(2);
    expect(r.stdout).toContain("no such file or directory");
  });

  it("reads - from standard input; plain text under NO_COLOR", () => {
    const r = run(["scan-tools", "-", "--policy", "strict"], {
      input: JSON.stringify({ tools: [{ name: "delete_a" }] }),
    });
    expect(r.code).toBe(2);
    expect(r.stdout).toContain("FAIL  delete_a");
    expect(/\u001b\[/.test(r.stdout)).toBe(false);
  });

  it("reports the toxic flows of a client config across its servers, in every output", async () => {
    const text = await cli(["scan-tools", trio]);
    expect(text.code).toBe(1);
    expect(text.stdout).toContain("WARN  toxic flow: exfiltration-path");
    expect(text.stdout).toContain("public-sink (2 tools on 2 servers):");
    expect(text.stdout).toContain("WARN  toxic flow: destructive-injection-path");
    const strict = await cli(["scan-tools", trio, "--policy", "strict", "--output", "json"]);
    expect(strict.code).toBe(2);
    const flows = JSON.parse(strict.stdout).results.filter(
      (r: { kind: string }) => r.kind === "flow",
    );
    expect(flows.map((r: { name: string; grade: string }) => [r.name, r.grade])).toEqual([
      ["exfiltration-path", "fail"],
      ["destructive-injection-path", "fail"],
    ]);
    const sarif = JSON.parse((await cli(["scan-tools", trio, "--output", "sarif"])).stdout);
    const rules = sarif.runs[0].results.map((r: { ruleId: string }) => r.ruleId);
    expect(rules).toEqual(["SCAN014", "SCAN015"]);
  });

  it("takes a policy file and a suppressions file", async () => {
    const r = await cli([
      "scan-tools",
      "examples/data/scan/tools.json",
      "--policy-file",
      "examples/data/scan/policy.json",
      "--suppressions",
      "examples/data/scan/suppressions.json",
    ]);
    expect(r.code).toBe(2);
    expect(r.stdout).toContain("policy team-read-only");
    expect(r.stdout).toContain('tool denied by policy team-read-only (deny glob "run_*")');
    expect(r.stdout).toContain("(suppressed:");
  });

  it("refuses bad options with exit 2", async () => {
    expect(await cli(["scan-tools", passing, "--policy", "lenient"])).toMatchObject({ code: 2 });
    const xml = await cli(["scan-tools", passing, "--output", "xml"]);
    expect(xml.code).toBe(2);
    expect(xml.stderr).toContain("--output must be one of");
    expect(
      (await cli(["scan-tools", passing, "--policy", "strict", "--policy-file", "x.json"])).code,
    ).toBe(2);
    const bad = file("bad-policy.json", { tools: { allow: "x" } });
    expect((await cli(["scan-tools", passing, "--policy-file", bad])).stderr).toContain(
      "tools.allow must be an array",
    );
  });

  it("--help documents the exit codes; the airlock-scan-tools alias runs the same command", async () => {
    const help = run(["scan-tools", "--help"]);
    expect(help.code).toBe(0);
    expect(help.stdout).toContain("Exit codes");
    expect(help.stdout).toContain("deny-by-default");
    const alias = run([warning, "--output", "json"], { bin: "src/cli/scan-tools-bin.ts" });
    expect(alias.code).toBe(1);
    expect(JSON.parse(alias.stdout).exitCode).toBe(1);
  });
});
