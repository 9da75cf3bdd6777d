import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { COMMAND_NAMES } from "../../src/cli/program.js";
import { runProcess } from "../helpers/process.js";

// `--help` works on every command and subcommand of the shipped CLI, exits 0 and names
// the options the docs promise.
const root = fileURLToPath(new URL("../..", import.meta.url));
const help = (args: string[]) =>
  runProcess(process.execPath, ["dist/bundle/bin.js", ...args, "--help"], { cwd: root });

const promised: Record<string, string[]> = {
  pin: ["--url", "--sse", "--header", "--from", "--config"],
  check: ["--url", "--sse", "--from", "--config"],
  proxy: [
    "--pins",
    "--url",
    "--sse",
    "--audit-log",
    "--relist-before-each-call",
    "--observe",
    "--agent",
    "--root",
    "--chain",
    "--registry",
    "--didis-url",
    "--didis-token-file",
    "--capabilities",
  ],
  "wrap-config": ["--observe", "--agent", "--root", "--chain", "--capabilities", "--max-pages"],
  audit: ["--server", "--tool", "--refused", "--since", "--output", "--max-line-bytes"],
  "scan-tools": ["--policy", "--policy-file", "--suppressions", "--output"],
  "delegate serve": [
    "--registry",
    "--host",
    "--token-file",
    "--insecure-no-auth",
    "--shutdown-timeout",
    "postgres://",
  ],
};

describe("airlock --help", () => {
  const commands = [
    ...COMMAND_NAMES,
    ...["keygen", "issue", "verify", "revoke", "serve"].map((sub) => `delegate ${sub}`),
  ];

  it.each(commands)("airlock %s --help exits 0 with its usage", async (command) => {
    const run = await help(command.split(" "));
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toMatch(/^Usage: airlock /);
    for (const option of promised[command] ?? []) expect(run.stdout).toContain(option);
  });
});
