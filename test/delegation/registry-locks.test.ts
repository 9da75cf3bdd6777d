/**
 * How the file and SQLite registries wait for a writer in another process: the file
 * registry's lock file (held, released, left by a process that ended, too old, lost) and
 * SQLite's write lock (a registration takes it before counting). Each holder here is a
 * real child process, or a lock file naming one.
 */
import { type ChildProcess, spawn } from "node:child_process";
import {
  mkdtempSync,
  readFileSync,
  readlinkSync,
  rmSync,
  utimesSync,
  writeFileSync,
} from "node:fs";
import { hostname, tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import { generateDelegationKey } from "../../src/guard/did/keys.js";
import { openFileRegistry } from "../../src/guard/registry/file.js";
import { withFileLock } from "../../src/guard/registry/file-lock.js";
import { openSqliteRegistry } from "../../src/guard/registry/sqlite.js";
import { endedPid, idleProcess } from "../helpers/process.js";
import { oneLinkChains } from "./helpers.js";

const dir = mkdtempSync(join(tmpdir(), "airlock-registry-locks-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
let serial = 0;
const fresh = (extension: string) => join(dir, `r-${serial++}${extension}`);

const children: ChildProcess[] = [];
afterEach(() => {
  for (const child of children.splice(0)) child.kill("SIGKILL");
});

const PID_NAMESPACE = readlinkSync("/proc/self/ns/pid");

/** Write the lock file of `registryPath` as the process `pid` of this host would. */
function holdLock(registryPath: string, pid: number, pidns = PID_NAMESPACE): string {
  const lock = `${registryPath}.lock`;
  const holder = { pid, host: hostname(), pidns, nonce: "theirs", at: Date.now() };
  writeFileSync(lock, JSON.stringify(holder));
  return lock;
}

describe("file registry: the lock file", () => {
  it("a change waits while another running process holds the lock, and goes ahead once it is released", async () => {
    const path = fresh(".json");
    const registry = await openFileRegistry(path);
    const [c] = await oneLinkChains(generateDelegationKey(), 1);
    const lock = holdLock(path, idleProcess(children).pid!);
    let released = false;
    const timer = setTimeout(() => {
      released = true;
      rmSync(lock);
    }, 400);
    const record = await registry.register(c!.chain);
    clearTimeout(timer);
    expect(released).toBe(true);
    expect((await registry.chainsFor(c!.agent))[0]!.id).toBe(record.id);
    await registry.close();
  });

  it("a lock held past lockTimeoutMs is REGISTRY_BUSY naming the holder, and nothing is written", async () => {
    const path = fresh(".json");
    const registry = await openFileRegistry(path, { lockTimeoutMs: 200 });
    const before = readFileSync(path, "utf8");
    const holder = idleProcess(children).pid!;
    holdLock(path, holder);
    await expect(registry.revoke("j1")).rejects.toMatchObject({
      code: "REGISTRY_BUSY",
      message: expect.stringContaining(`process ${holder}`),
    });
    expect(readFileSync(path, "utf8")).toBe(before);
    await registry.close();
  });

  it("a lock left by a process that has ended is taken over at once", async () => {
    const path = fresh(".json");
    const registry = await openFileRegistry(path, { lockTimeoutMs: 0 });
    holdLock(path, await endedPid());
    await registry.revoke("j1");
    expect(JSON.parse(readFileSync(path, "utf8")).revoked).toEqual(["j1"]);
    await registry.close();
  });

  it("a lock naming this process's pid that this process does not hold (a restarted container) is taken over at once", async () => {
    const path = fresh(".json");
    const registry = await openFileRegistry(path, { lockTimeoutMs: 0 });
    holdLock(path, process.pid);
    await registry.revoke("j1");
    expect(JSON.parse(readFileSync(path, "utf8")).revoked).toEqual(["j1"]);
    await registry.close();
  });

  it("a lock from another PID namespace is judged by its age alone: its pid means nothing here", async () => {
    const path = fresh(".json");
    const registry = await openFileRegistry(path, { lockTimeoutMs: 100 });
    holdLock(path, await endedPid(), "pid:[1]");
    await expect(registry.revoke("j1")).rejects.toMatchObject({ code: "REGISTRY_BUSY" });
    await registry.close();
  });

  it("a lock older than staleLockMs is taken over even while its holder runs", async () => {
    const path = fresh(".json");
    const registry = await openFileRegistry(path, { lockTimeoutMs: 0, staleLockMs: 60_000 });
    const lock = holdLock(path, idleProcess(children).pid!);
    const old = new Date(Date.now() - 120_000);
    utimesSync(lock, old, old);
    await registry.revoke("j1");
    expect(JSON.parse(readFileSync(path, "utf8")).revoked).toEqual(["j1"]);
    await registry.close();
  });

  it("a holder whose lock was taken over writes nothing and leaves the new holder's lock", async () => {
    const lock = `${fresh(".json")}.lock`;
    const settings = { timeoutMs: 0, staleMs: 60_000 };
    let wrote = false;
    await expect(
      withFileLock(lock, settings, async (stillHeld) => {
        writeFileSync(lock, JSON.stringify({ pid: 1, host: "elsewhere", nonce: "new" }));
        await stillHeld();
        wrote = true;
      }),
    ).rejects.toMatchObject({ code: "REGISTRY_BUSY" });
    expect(wrote).toBe(false);
    expect(JSON.parse(readFileSync(lock, "utf8")).nonce).toBe("new");
  });

  it("reads take no lock: a registry whose lock file cannot be made still opens and answers, and only changes fail", async () => {
    const { mkdirSync } = await import("node:fs");
    const path = fresh(".json");
    const writer = await openFileRegistry(path);
    await writer.revoke("j1");
    await writer.close();
    mkdirSync(`${path}.lock`); // a directory where the lock file would go
    const reader = await openFileRegistry(path, { lockTimeoutMs: 0 });
    expect(await reader.isRevoked("j1")).toBe(true);
    await expect(reader.revoke("j2")).rejects.toMatchObject({ code: "REGISTRY_IO" });
    expect(await reader.isRevoked("j2")).toBe(false);
    await reader.close();
  });

  it("refuses lock options out of range with REGISTRY_MISCONFIGURED", async () => {
    for (const options of [
      { lockTimeoutMs: -1 },
      { lockTimeoutMs: 1.5 },
      { lockTimeoutMs: "10" as unknown as number },
      { staleLockMs: 10 },
    ]) {
      await expect(openFileRegistry(fresh(".json"), options)).rejects.toMatchObject({
        code: "REGISTRY_MISCONFIGURED",
      });
    }
  });
});

/**
 * A child process that opens the database, takes SQLite's write lock (BEGIN IMMEDIATE),
 * inserts `row`, says "locked", and commits after `holdMs`.
 */
async function holdSqliteWrite(path: string, row: Record<string, unknown>, holdMs: number) {
  const script = `
    const Database = require("better-sqlite3");
    const db = new Database(process.argv[1]);
    const row = JSON.parse(process.argv[2]);
    db.exec("BEGIN IMMEDIATE");
    db.prepare("INSERT INTO airlock_chains (id, agent, root, chain, registered_at, not_after) VALUES (@id, @agent, @root, @chain, @registered_at, @not_after)").run(row);
    process.stdout.write("locked\\n");
    setTimeout(() => { db.exec("COMMIT"); db.close(); }, Number(process.argv[3]));
  `;
  const child = spawn(process.execPath, ["-e", script, path, JSON.stringify(row), String(holdMs)], {
    stdio: ["ignore", "pipe", "inherit"],
  });
  children.push(child);
  await new Promise<void>((resolve, reject) => {
    child.stdout!.on("data", () => resolve());
    child.once("exit", (code) => reject(new Error(`the lock holder exited ${code}`)));
  });
  // Wrapped: an async function returning the exit promise itself would be awaited through.
  return { committed: new Promise<void>((resolve) => child.once("exit", () => resolve())) };
}

function rowOf(record: {
  id: string;
  agent: string;
  root: string;
  chain: string[];
  notAfter: number;
}) {
  return {
    id: record.id,
    agent: record.agent,
    root: record.root,
    chain: JSON.stringify(record.chain),
    registered_at: Math.floor(Date.now() / 1000),
    not_after: record.notAfter,
  };
}

describe("SQLite registry: another process's write transaction", () => {
  it("a registration waits for it (BEGIN IMMEDIATE and the busy timeout), then is stored beside its row", async () => {
    const path = fresh(".db");
    const registry = await openSqliteRegistry(path);
    const root = generateDelegationKey();
    const [theirs, ours] = await oneLinkChains(root, 2);
    const { describeChain } = await import("../../src/guard/registry/registry.js");
    const holder = await holdSqliteWrite(path, rowOf(describeChain(theirs!.chain, 0)), 1500);
    await registry.register(ours!.chain);
    await holder.committed;
    expect((await registry.list()).map((r) => r.agent).sort()).toEqual(
      [theirs!.agent, ours!.agent].sort(),
    );
    await registry.close();
  });

  it("the per-agent limit counts the other process's row once it commits (REGISTRY_FULL, not a busy error)", async () => {
    const path = fresh(".db");
    const registry = await openSqliteRegistry(path, { maxChainsPerAgent: 2 });
    const root = generateDelegationKey();
    const [first, second, third] = await oneLinkChains(root, 3, generateDelegationKey().did);
    await registry.register(first!.chain);
    const { describeChain } = await import("../../src/guard/registry/registry.js");
    const holder = await holdSqliteWrite(path, rowOf(describeChain(second!.chain, 0)), 1500);
    await expect(registry.register(third!.chain)).rejects.toMatchObject({ code: "REGISTRY_FULL" });
    await holder.committed;
    expect(await registry.chainsFor(first!.agent)).toHaveLength(2);
    await registry.close();
  });

  it("refuses a busy timeout out of range with REGISTRY_MISCONFIGURED", async () => {
    for (const busyTimeoutMs of [-1, 60_001, 0.5]) {
      await expect(openSqliteRegistry(fresh(".db"), { busyTimeoutMs })).rejects.toMatchObject({
        code: "REGISTRY_MISCONFIGURED",
      });
    }
  });
});
