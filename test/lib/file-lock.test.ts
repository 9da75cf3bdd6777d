/**
 * The one cross-process lock (src/lib/file-lock.ts, src/lib/lock-holder.ts) as both of
 * its callers use it: a pin-file write (`writePinFile`, PIN_FILE_LOCKED) and a change to
 * a JSON-file registry (`revoke`, REGISTRY_BUSY). Every row of file-lock.cases.json is
 * run through both, so the two judge a lock file alike, including the checks only one
 * of the two used to make (the PID namespace and a pid of our own for pin files, the
 * boot id and "never from another host" for the registry). The pids in the rows are
 * real processes: one that runs, one that has ended, this one.
 */
import type { ChildProcess } from "node:child_process";
import {
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  realpathSync,
  rmSync,
  symlinkSync,
  utimesSync,
  writeFileSync,
} from "node:fs";
import { hostname, tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { openFileRegistry } from "../../src/guard/registry/file.js";
import {
  type PinFile,
  pinFileFromGuard,
  readPinFile,
  ToolDefinitionPinGuard,
  writePinFile,
} from "../../src/index.js";
import { endedPid, idleProcess } from "../helpers/process.js";

interface LockCase {
  name: string;
  lock?: Record<string, string | number>;
  text?: string;
  ageMs?: number;
  pins: "taken" | "waits";
  registry: "taken" | "waits";
  new?: string;
}

const { cases } = JSON.parse(
  readFileSync(join(import.meta.dirname, "file-lock.cases.json"), "utf8"),
) as { cases: LockCase[] };

const dir = realpathSync(mkdtempSync(join(tmpdir(), "airlock-file-lock-")));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
let serial = 0;
const fresh = (name: string) => {
  const sub = join(dir, String(serial++));
  mkdirSync(sub);
  return join(sub, name);
};

const children: ChildProcess[] = [];
afterEach(() => {
  for (const child of children.splice(0)) child.kill("SIGKILL");
});

let values: Record<string, string | number>;
beforeAll(async () => {
  values = {
    $dead: await endedPid(),
    $self: process.pid,
    $host: hostname(),
    $otherHost: `not-${hostname()}`,
    $boot: readFileSync("/proc/sys/kernel/random/boot_id", "utf8").trim(),
    $otherBoot: "00000000-0000-4000-8000-000000000000",
    // The link text names the namespace (what the lock records), not a path.
    $pidns: readlinkSync("/proc/self/ns/pid"),
    $otherPidns: "pid:[1]",
  };
});

/** Write the lock file of row `row` at `lockPath`, backdated by its age. */
function plant(lockPath: string, row: LockCase): string {
  let text = row.text ?? "";
  if (row.lock !== undefined) {
    const record: Record<string, unknown> = { nonce: "theirs", created: "2026-01-01T00:00:00Z" };
    for (const [key, raw] of Object.entries(row.lock)) {
      if (raw === "omit") continue;
      if (raw === "$live") record[key] = idleProcess(children).pid!;
      else record[key] = typeof raw === "string" && raw in values ? values[raw] : raw;
    }
    text = JSON.stringify(record);
  }
  writeFileSync(lockPath, text);
  if (row.ageMs !== undefined) {
    const then = new Date(Date.now() - row.ageMs);
    utimesSync(lockPath, then, then);
  }
  return text;
}

function pinFile(): PinFile {
  const guard = new ToolDefinitionPinGuard();
  guard.approve({ name: "add", description: "Add two numbers." });
  return pinFileFromGuard(guard, { server: "calc" });
}

describe.each(cases)("a lock file: $name", (row) => {
  it(`pin-file write: ${row.pins}`, async () => {
    const path = fresh("p.pins.json");
    const text = plant(`${path}.lock`, row);
    const write = writePinFile(path, pinFile(), {
      lockTimeoutMs: row.pins === "taken" ? 1_000 : 150,
    });
    if (row.pins === "taken") {
      await write;
      expect(Object.keys((await readPinFile(path)).servers)).toEqual(["calc"]);
      expect(readdirSync(join(path, ".."))).toEqual(["p.pins.json"]);
    } else {
      await expect(write).rejects.toMatchObject({ code: "PIN_FILE_LOCKED" });
      expect(readFileSync(`${path}.lock`, "utf8")).toBe(text);
      expect(readdirSync(join(path, ".."))).toEqual(["p.pins.json.lock"]);
    }
  });

  it(`registry change: ${row.registry}`, async () => {
    const path = fresh("r.json");
    const registry = await openFileRegistry(path, {
      lockTimeoutMs: row.registry === "taken" ? 0 : 150,
    });
    const text = plant(`${path}.lock`, row);
    try {
      if (row.registry === "taken") {
        await registry.revoke("j1");
        expect(JSON.parse(readFileSync(path, "utf8")).revoked).toEqual(["j1"]);
        expect(readdirSync(join(path, ".."))).toEqual(["r.json"]);
      } else {
        await expect(registry.revoke("j1")).rejects.toMatchObject({ code: "REGISTRY_BUSY" });
        expect(JSON.parse(readFileSync(path, "utf8")).revoked).toEqual([]);
        expect(readFileSync(`${path}.lock`, "utf8")).toBe(text);
      }
    } finally {
      await registry.close();
    }
  });
});

describe("breaking a stale lock is serialised by <lock>.break", () => {
  /** A dead holder's lock, and a `.break` file naming `breaker` (a breaker at work). */
  async function staleLockUnderBreak(lockPath: string, breaker: number): Promise<void> {
    const record = (pid: number) =>
      JSON.stringify({
        pid,
        host: hostname(),
        boot: values.$boot,
        pidns: values.$pidns,
        nonce: `n${pid}`,
        created: new Date().toISOString(),
      });
    writeFileSync(lockPath, record(await endedPid()));
    writeFileSync(`${lockPath}.break`, record(breaker));
  }

  it("while a live breaker holds it, neither caller removes the stale lock itself; once its breaker is gone, both do at once", async () => {
    const pins = fresh("p.pins.json");
    const reg = fresh("r.json");
    const registry = await openFileRegistry(reg, { lockTimeoutMs: 150 });
    try {
      const breaker = idleProcess(children);
      await staleLockUnderBreak(`${pins}.lock`, breaker.pid!);
      await staleLockUnderBreak(`${reg}.lock`, breaker.pid!);
      await expect(writePinFile(pins, pinFile(), { lockTimeoutMs: 150 })).rejects.toMatchObject({
        code: "PIN_FILE_LOCKED",
        message: expect.stringContaining("could not be removed"),
      });
      await expect(registry.revoke("j1")).rejects.toMatchObject({
        code: "REGISTRY_BUSY",
        message: expect.stringContaining("could not be removed"),
      });
      expect(readdirSync(join(reg, ".."))).toContain("r.json.lock");
      breaker.kill("SIGKILL");
      await new Promise((resolve) => breaker.once("exit", resolve));
      await writePinFile(pins, pinFile(), { lockTimeoutMs: 1_000 });
      await registry.revoke("j1");
      expect(readdirSync(join(pins, ".."))).toEqual(["p.pins.json"]);
      expect(readdirSync(join(reg, ".."))).toEqual(["r.json"]);
    } finally {
      await registry.close();
    }
  });
});

describe("a lock path that is no lock file", () => {
  it("a symbolic link there is refused at once by both callers (PIN_FILE_UNREADABLE, REGISTRY_IO), and its target is left alone", async () => {
    const pins = fresh("p.pins.json");
    const reg = fresh("r.json");
    const registry = await openFileRegistry(reg, { lockTimeoutMs: 10_000 });
    const victim = join(dir, `victim-${serial++}`);
    writeFileSync(victim, "{}");
    symlinkSync(victim, `${pins}.lock`);
    symlinkSync(victim, `${reg}.lock`);
    try {
      await expect(writePinFile(pins, pinFile(), { lockTimeoutMs: 10_000 })).rejects.toMatchObject({
        code: "PIN_FILE_UNREADABLE",
      });
      await expect(registry.revoke("j1")).rejects.toMatchObject({ code: "REGISTRY_IO" });
      expect(readFileSync(victim, "utf8")).toBe("{}");
    } finally {
      await registry.close();
    }
  });
});
