/**
 * `airlock pin` against other writers of the same pin file, as the hardening campaign
 * drove it: real `airlock pin --yes` OS processes (the shipped bundle) on one file, real
 * stdio MCP servers (test/fixtures/operator/rug-pull-server.mjs, held at their listing by
 * `--list-gate` so both runs have read the file before either writes), a real `kill -9`
 * in the middle of a write, and the next run cleaning up after it.
 */
import type { ChildProcess } from "node:child_process";
import {
  chmodSync,
  existsSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import {
  parsePinFile,
  pinFileFromGuard,
  ToolDefinitionPinGuard,
  writePinFile,
} from "../../src/index.js";
import { type StartedProcess, startProcess } from "../helpers/process.js";
import { root, rugServer } from "./helpers.js";

const BIN = join(root, "dist/bundle/bin.js");

let dir: string;
const children: ChildProcess[] = [];

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "airlock-pin-race-"));
});
afterEach(() => {
  for (const child of children.splice(0)) child.kill("SIGKILL");
  rmSync(dir, { recursive: true, force: true });
});

/** Start `airlock ...args` (the bundle) in the test folder; killed after the test. */
function start(args: string[]): StartedProcess {
  const started = startProcess(process.execPath, [BIN, ...args], { cwd: dir });
  children.push(started.child);
  return started;
}

const airlock = (...args: string[]) => start(args).done;

/** Poll (every `every` ms) until `ready()` holds; gives up after `ms`. */
async function until(ready: () => boolean, ms = 60_000, every = 10): Promise<void> {
  const deadline = Date.now() + ms;
  while (!ready()) {
    if (Date.now() > deadline) throw new Error("timed out waiting for the processes");
    await new Promise((resolve) => setTimeout(resolve, every));
  }
}

const waiting = (gate: string) =>
  readdirSync(dir).filter((n) => n.startsWith(`${gate}.`) && n.endsWith(".waiting")).length;

const sections = (path: string) => Object.keys(parsePinFile(readFileSync(path, "utf8")).servers);

/** A saved listing of `names` (one-line read-only tools). */
function listing(file: string, ...names: string[]): string {
  const tools = names.map((name) => ({
    name,
    description: `Read record ${name}.`,
    inputSchema: { type: "object", properties: {}, additionalProperties: false },
    annotations: { readOnlyHint: true },
  }));
  writeFileSync(join(dir, file), JSON.stringify({ tools }));
  return file;
}

const debris = () => readdirSync(dir).filter((n) => n.endsWith(".tmp") || n.endsWith(".lock"));

describe("two `airlock pin --yes` on one pin file", () => {
  it("both sections land, every round, and both runs say so (M2: 67 of 80 rounds lost one)", async () => {
    const pins = join(dir, "race.pins.json");
    for (let round = 0; round < 4; round++) {
      const gate = `gate-${round}`;
      expect(
        (
          await airlock(
            "pin",
            "--yes",
            "--pins",
            pins,
            "--server",
            "a",
            "--from",
            listing("a.json", "a_0"),
          )
        ).code,
      ).toBe(0);
      const b = start([
        "pin",
        "--yes",
        "--pins",
        pins,
        "--server",
        "b",
        "--",
        process.execPath,
        ...rugServer("--list-gate", join(dir, gate)),
      ]);
      const c = start([
        "pin",
        "--yes",
        "--pins",
        pins,
        "--server",
        "c",
        "--",
        process.execPath,
        ...rugServer("--list-gate", join(dir, gate)),
      ]);
      // Both have read the pin file and are listing: neither has written yet.
      await until(() => waiting(gate) === 2);
      writeFileSync(join(dir, gate), "");
      const [rb, rc] = await Promise.all([b.done, c.done]);
      expect([rb.code, rc.code], `${rb.stderr}\n${rc.stderr}`).toEqual([0, 0]);
      expect(rb.stdout).toContain("written to");
      expect(rc.stdout).toContain("written to");
      expect(sections(pins).sort()).toEqual(["a", "b", "c"]);
      expect(debris()).toEqual([]);
      rmSync(pins);
    }
  }, 240_000);

  // The other run's change must survive: an approval, or a --prune the first run would undo.
  it.each([
    {
      change: "approves a tool into it",
      first: [],
      meanwhile: ["extra"],
      prune: false,
      after: ["extra"],
    },
    { change: "prunes it", first: ["extra"], meanwhile: [], prune: true, after: [] },
  ])(
    "a run whose section another run $change meanwhile refuses with PIN_FILE_CONFLICT and writes nothing",
    async ({ first, meanwhile, prune, after }) => {
      const pins = join(dir, "conflict.pins.json");
      const initial = await airlock(
        "pin",
        "--yes",
        "--pins",
        pins,
        "--server",
        "s",
        "--from",
        listing("first.json", ...first),
      );
      expect(initial.code).toBe(0);
      const gate = join(dir, "gate");
      const slow = start([
        "pin",
        "--yes",
        "--output",
        "json",
        "--pins",
        pins,
        "--server",
        "s",
        "--",
        process.execPath,
        ...rugServer("--list-gate", gate),
      ]);
      await until(() => waiting("gate") === 1);
      // Another operator changes the same section while the first run reviews it.
      const other = await airlock(
        "pin",
        "--yes",
        ...(prune ? ["--prune"] : []),
        "--pins",
        pins,
        "--server",
        "s",
        "--from",
        listing("meanwhile.json", ...meanwhile),
      );
      expect(other.code).toBe(0);
      const changed = readFileSync(pins, "utf8");
      writeFileSync(gate, "");
      const run = await slow.done;
      expect(run.code).toBe(2);
      const report = JSON.parse(run.stdout) as {
        servers: { code?: string; error?: string; written: boolean }[];
      };
      expect(report.servers[0]).toMatchObject({ code: "PIN_FILE_CONFLICT", written: false });
      expect(report.servers[0]!.error).toContain('section "s" changed on disk');
      // The other operator's change is still there, byte for byte.
      expect(readFileSync(pins, "utf8")).toBe(changed);
      expect(Object.keys(parsePinFile(changed).servers.s!.tools)).toEqual(after);
    },
    120_000,
  );

  it("two runs that approve the same new section both succeed: the second finds its change on disk", async () => {
    const pins = join(dir, "same.pins.json");
    const gate = join(dir, "gate");
    const server = [process.execPath, ...rugServer("--list-gate", gate)];
    const one = start(["pin", "--yes", "--pins", pins, "--server", "s", "--", ...server]);
    const two = start(["pin", "--yes", "--pins", pins, "--server", "s", "--", ...server]);
    await until(() => waiting("gate") === 2);
    writeFileSync(gate, "");
    const runs = await Promise.all([one.done, two.done]);
    expect(runs.map((r) => r.code)).toEqual([0, 0]);
    // One wrote the section; the other found exactly its own change there.
    expect(runs.filter((r) => r.stdout.includes("written to")).length).toBe(1);
    expect(Object.keys(parsePinFile(readFileSync(pins, "utf8")).servers.s!.tools)).toContain(
      "echo",
    );
  }, 120_000);
});

describe("kill -9 during a pin write", () => {
  it("leaves the old file whole, and the next run removes the dead writer's temporary file and lock (item 11)", async () => {
    const pins = join(dir, "k9.pins.json");
    // A big file (4,000 tools, ~3 MB), so the write takes long enough to be caught in the middle.
    const guard = new ToolDefinitionPinGuard();
    for (let i = 0; i < 4_000; i++) {
      guard.approve({
        name: `big_${i}`,
        description: `Read record ${i} of the store.`.repeat(8),
        inputSchema: { type: "object", properties: { id: { type: "string" } } },
      });
    }
    await writePinFile(pins, pinFileFromGuard(guard, { server: "big" }));
    const old = readFileSync(pins, "utf8");
    const from = listing("b.json", "b_0");
    let caught = false;
    for (let attempt = 0; attempt < 10 && !caught; attempt++) {
      const run = start(["pin", "--yes", "--pins", pins, "--server", "b", "--from", from]);
      let exited = false;
      void run.done.then(() => {
        exited = true;
      });
      await until(() => exited || readdirSync(dir).some((n) => n.endsWith(".tmp")), 120_000, 1);
      run.child.kill("SIGKILL");
      await run.done;
      caught = readdirSync(dir).some((n) => n.endsWith(".tmp"));
      if (!caught) writeFileSync(pins, old);
    }
    expect(caught, "the kill never landed while the temporary file existed").toBe(true);
    // The file is the old one, whole; the killed writer left its temporary file.
    expect(readFileSync(pins, "utf8")).toBe(old);
    const left = readdirSync(dir).filter((n) => n.endsWith(".tmp"));
    expect(left).toHaveLength(1);
    // The next run breaks the dead writer's lock, cleans up and writes.
    const next = await airlock(
      "pin",
      "--yes",
      "--pins",
      pins,
      "--server",
      "c",
      "--from",
      listing("c.json", "c_0"),
    );
    expect(next.code, next.stderr).toBe(0);
    expect(sections(pins).sort()).toEqual(["big", "c"]);
    expect(debris()).toEqual([]);
    // What made it recognisable as a dead writer's: its name holds the writer's pid.
    expect(left[0]).toMatch(/^k9\.pins\.json\.airlock-\d+-[0-9a-f]{12}\.tmp$/);
  }, 300_000);
});

describe("a symlinked pin file (M5)", () => {
  it("is written through: the link stays a link, its target is updated and keeps mode 0600", async () => {
    const real = join(dir, "real");
    mkdirSync(real);
    const target = join(real, "shared.pins.json");
    expect(
      (
        await airlock(
          "pin",
          "--yes",
          "--pins",
          target,
          "--server",
          "a",
          "--from",
          listing("a.json", "a_0"),
        )
      ).code,
    ).toBe(0);
    chmodSync(target, 0o600);
    const link = join(dir, "link.pins.json");
    symlinkSync(target, link);
    const run = await airlock(
      "pin",
      "--yes",
      "--pins",
      link,
      "--server",
      "b",
      "--from",
      listing("b.json", "b_0"),
    );
    expect(run.code, run.stderr).toBe(0);
    expect(lstatSync(link).isSymbolicLink()).toBe(true);
    expect(sections(target).sort()).toEqual(["a", "b"]);
    expect(statSync(target).mode & 0o777).toBe(0o600);
    expect(readdirSync(real).sort()).toEqual(["shared.pins.json"]);
  }, 60_000);

  it("a link to a missing file is refused (exit 2) and nothing is created", async () => {
    const link = join(dir, "dangling.pins.json");
    symlinkSync(join(dir, "nowhere", "x.pins.json"), link);
    const run = await airlock(
      "pin",
      "--yes",
      "--pins",
      link,
      "--server",
      "b",
      "--from",
      listing("b.json", "b_0"),
    );
    expect(run.code).toBe(2);
    expect(run.stdout + run.stderr).toContain("a symbolic link to a missing file");
    expect(existsSync(join(dir, "nowhere"))).toBe(false);
  }, 60_000);
});
