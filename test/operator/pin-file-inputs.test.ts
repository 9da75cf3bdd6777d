/**
 * What `airlock pin` and `airlock check` (the shipped bundle, as real processes) do with
 * a pin file, listing or config that is not a plain, bounded, unambiguous file, as the
 * hardening campaign gave them: `/dev/zero` (read without bound before: 1.5 GB in three
 * seconds), a FIFO nobody writes (a hang), a pin file with a duplicated key (the next
 * `pin` dropped the shadowed sections), a pin file that is not UTF-8.
 */
import type { ChildProcess } from "node:child_process";
import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { type ProcessRun, startProcess } from "../helpers/process.js";
import { root } from "./helpers.js";

const BIN = join(root, "dist/bundle/bin.js");
let dir: string;
const children: ChildProcess[] = [];

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "airlock-pin-inputs-"));
});
afterEach(() => {
  for (const child of children.splice(0)) child.kill("SIGKILL");
  rmSync(dir, { recursive: true, force: true });
});

/** `airlock ...args` to its end; a run still going after 20 s is killed (and fails). */
async function airlock(...args: string[]): Promise<ProcessRun> {
  const run = startProcess(process.execPath, [BIN, ...args], { cwd: dir });
  children.push(run.child);
  const timer = setTimeout(() => run.child.kill("SIGKILL"), 20_000);
  try {
    return await run.done;
  } finally {
    clearTimeout(timer);
  }
}

function listing(name: string, ...tools: string[]): string {
  const path = join(dir, name);
  writeFileSync(
    path,
    JSON.stringify({ tools: tools.map((t) => ({ name: t, description: `The ${t} tool.` })) }),
  );
  return path;
}

function fifo(name: string): string {
  const path = join(dir, name);
  execFileSync("mkfifo", [path]);
  return path;
}

describe("special files are refused at once (item 10)", () => {
  it("check --pins /dev/zero and a FIFO: exit 2, named as what they are", async () => {
    const tools = listing("tools.json", "add");
    for (const [pins, kind] of [
      ["/dev/zero", "a character device"],
      [fifo("fifo.pins.json"), "a FIFO"],
    ] as const) {
      const run = await airlock("check", "--pins", pins, "--server", "a", "--from", tools);
      expect(run.code).toBe(2);
      expect(run.stderr).toContain(`pin file ${pins}: ${kind}, not a regular file`);
    }
  }, 60_000);

  it("pin --pins FIFO, pin --from /dev/zero and pin --config FIFO: exit 2, nothing written", async () => {
    const tools = listing("tools.json", "add");
    const pins = join(dir, "p.pins.json");
    const pinFifo = await airlock("pin", "--yes", "--pins", fifo("f.pins.json"), "--from", tools);
    expect(pinFifo.code).toBe(2);
    expect(pinFifo.stderr).toContain("a FIFO, not a regular file");
    const zero = await airlock(
      "pin",
      "--yes",
      "--pins",
      pins,
      "--server",
      "z",
      "--from",
      "/dev/zero",
    );
    expect(zero.code).toBe(2);
    expect(zero.stdout).toContain("cannot read /dev/zero: a character device, not a regular file");
    const config = await airlock("pin", "--yes", "--pins", pins, "--config", fifo("mcp.json"));
    expect(config.code).toBe(2);
    expect(config.stdout + config.stderr).toContain("a FIFO, not a regular file");
    expect(() => readFileSync(pins)).toThrow();
  }, 60_000);
});

describe("a pin file with a duplicated key (item 9)", () => {
  it('pin refuses it (exit 2) and leaves it as it is: the shadowed "servers" copy is not dropped', async () => {
    const a = listing("a.json", "a_0");
    const pins = join(dir, "dup.pins.json");
    expect((await airlock("pin", "--yes", "--pins", pins, "--server", "a", "--from", a)).code).toBe(
      0,
    );
    const valid = JSON.parse(readFileSync(pins, "utf8"));
    // A careless merge: the first copy holds section a, the second (which JSON.parse keeps) d.
    const text = `{\n  "servers": ${JSON.stringify(valid.servers)},\n  "servers": {"d": {"tools": {}}},\n  "version": 1\n}\n`;
    writeFileSync(pins, text);
    const run = await airlock("pin", "--yes", "--pins", pins, "--server", "c", "--from", a);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain(
      'key "servers" appears twice in the top level (second at line 3, column 3)',
    );
    expect(readFileSync(pins, "utf8")).toBe(text);
    const check = await airlock("check", "--pins", pins, "--server", "d", "--from", a);
    expect(check.code).toBe(2);
    expect(check.stderr).toContain('key "servers" appears twice');
  }, 60_000);
});

describe("a pin file that is not UTF-8 (item 15)", () => {
  it("pin and check refuse it with the byte offset; the file is not rewritten with U+FFFD", async () => {
    const a = listing("a.json", "a_0");
    const pins = join(dir, "latin1.pins.json");
    const text = `{"servers":{"a":{"source":{"note":"caf\u00e9"},"tools":{}}},"version":1}`;
    const bytes = Buffer.from(text, "latin1");
    writeFileSync(pins, bytes);
    const offset = text.indexOf("\u00e9");
    const run = await airlock("pin", "--yes", "--pins", pins, "--server", "b", "--from", a);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain(
      `not UTF-8 (an invalid byte sequence at byte ${offset}, 1 in all)`,
    );
    expect(readFileSync(pins).equals(bytes)).toBe(true);
    expect((await airlock("check", "--pins", pins, "--server", "a", "--from", a)).code).toBe(2);
  }, 60_000);
});
