/**
 * Pin files on disk (src/pins/pin-file-io.ts): the bounded, strict reader, and writes
 * under the pin file's lock (merge, atomic replacement through symbolic links, the mode
 * kept, debris of killed writers removed). Lock holders are real processes: one that
 * holds the lock until killed (test/fixtures/pins/hold-lock.ts), one killed with -9.
 */
import { type ChildProcess, spawn } from "node:child_process";
import {
  chmodSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  symlinkSync,
  truncateSync,
  utimesSync,
  writeFileSync,
} from "node:fs";
import { hostname, tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import {
  DEFAULT_PIN_FILE_LOCK_TIMEOUT_MS,
  MAX_PIN_FILE_BYTES,
  type PinFile,
  PinFileError,
  pinFileFromGuard,
  readPinFile,
  serializePinFile,
  ToolDefinitionPinGuard,
  updatePinFile,
  writePinFile,
} from "../../src/index.js";

const root = join(import.meta.dirname, "../..");
let dir: string;
const children: ChildProcess[] = [];

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "airlock-pin-io-"));
});
afterEach(() => {
  for (const child of children.splice(0)) child.kill("SIGKILL");
  rmSync(dir, { recursive: true, force: true });
});

function fileWith(server: string, ...names: string[]): PinFile {
  const guard = new ToolDefinitionPinGuard();
  for (const name of names) guard.approve({ name, description: `The ${name} tool.` });
  return pinFileFromGuard(guard, { server });
}

/** `file` with `server`'s section from `from` added (what `airlock pin` does under the lock). */
const withSection = (file: PinFile | null, from: PinFile): PinFile => ({
  version: 1,
  servers: { ...(file?.servers ?? {}), ...from.servers },
});

async function refusal(promise: Promise<unknown>): Promise<PinFileError> {
  const err = await promise.then(
    () => null,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(PinFileError);
  return err as PinFileError;
}

/** A process holding the pin file's lock (until killed), started and ready. */
async function lockHolder(pins: string): Promise<ChildProcess> {
  const child = spawn(
    process.execPath,
    ["--import", "tsx", join(root, "test/fixtures/pins/hold-lock.ts"), pins],
    { cwd: root, stdio: ["ignore", "pipe", "inherit"] },
  );
  children.push(child);
  await new Promise<void>((resolve, reject) => {
    child.stdout!.on("data", (d) => {
      if (String(d).includes("held")) resolve();
    });
    child.on("exit", (code) => reject(new Error(`lock holder exited ${code}`)));
  });
  return child;
}

describe("readPinFile", () => {
  it("refuses a file over the size cap before reading it", async () => {
    const path = join(dir, "big.pins.json");
    writeFileSync(path, "");
    truncateSync(path, MAX_PIN_FILE_BYTES + 1);
    const err = await refusal(readPinFile(path));
    expect(err.code).toBe("PIN_FILE_UNREADABLE");
    expect(err.message).toContain(`over the ${MAX_PIN_FILE_BYTES}-byte limit`);
  });

  it("refuses bytes that are not UTF-8 (item 15: a reviewed lock file must mean one thing)", async () => {
    const path = join(dir, "latin1.pins.json");
    const text = serializePinFile(fileWith("a", "add"));
    const head = text.indexOf('"tools"');
    // In `source`, which is free-form: before, the U+FFFD was accepted and written back.
    writeFileSync(
      path,
      Buffer.concat([
        Buffer.from(`${text.slice(0, head)}"source": {"note": "caf`),
        Buffer.from([0xe9]),
        Buffer.from(`"},\n      ${text.slice(head)}`),
      ]),
    );
    const offset = Buffer.byteLength(`${text.slice(0, head)}"source": {"note": "caf`);
    const err = await refusal(readPinFile(path));
    expect(err.code).toBe("PIN_FILE_INVALID");
    expect(err.message).toContain(
      `not UTF-8 (an invalid byte sequence at byte ${offset}, 1 in all)`,
    );
  });
});

describe("writePinFile and updatePinFile", () => {
  it("concurrent updates in one process all land (each re-reads under the lock)", async () => {
    const path = join(dir, "p.pins.json");
    const names = Array.from({ length: 12 }, (_, i) => `s${i}`);
    await Promise.all(
      names.map((name) =>
        updatePinFile(path, (current) => withSection(current, fileWith(name, "t"))),
      ),
    );
    expect(Object.keys((await readPinFile(path)).servers).sort()).toEqual([...names].sort());
    expect(readdirSync(dir)).toEqual(["p.pins.json"]);
  });

  it("waits for a live holder of the lock, then refuses with PIN_FILE_LOCKED and writes nothing", async () => {
    const path = join(dir, "p.pins.json");
    await writePinFile(path, fileWith("a", "add"));
    const before = readFileSync(path, "utf8");
    const holder = await lockHolder(path);
    const err = await refusal(writePinFile(path, fileWith("b", "mul"), { lockTimeoutMs: 300 }));
    expect(err.code).toBe("PIN_FILE_LOCKED");
    expect(err.message).toContain(`held by process ${holder.pid}`);
    expect(readFileSync(path, "utf8")).toBe(before);
  });

  it("breaks the lock of a writer killed with -9 at once, and writes", async () => {
    const path = join(dir, "p.pins.json");
    await writePinFile(path, fileWith("a", "add"));
    const holder = await lockHolder(path);
    holder.kill("SIGKILL");
    await new Promise((resolve) => holder.once("exit", resolve));
    expect(readdirSync(dir)).toContain("p.pins.json.lock");
    // A short timeout: a lock that was not seen to be stale would refuse.
    await updatePinFile(path, (current) => withSection(current, fileWith("b", "mul")), {
      lockTimeoutMs: 2_000,
    });
    expect(Object.keys((await readPinFile(path)).servers)).toEqual(["a", "b"]);
    expect(readdirSync(dir)).toEqual(["p.pins.json"]);
  });

  it("never breaks a lock taken on another host, and names that host", async () => {
    const path = join(dir, "p.pins.json");
    const lock = {
      pid: 1,
      host: `not-${hostname()}`,
      boot: "",
      nonce: "x",
      created: "2026-01-01T00:00:00.000Z",
    };
    writeFileSync(`${path}.lock`, JSON.stringify(lock));
    const err = await refusal(writePinFile(path, fileWith("a", "add"), { lockTimeoutMs: 200 }));
    expect(err.code).toBe("PIN_FILE_LOCKED");
    expect(err.message).toContain(`on host "not-${hostname()}"`);
    expect(readdirSync(dir)).toEqual(["p.pins.json.lock"]);
  });

  it("an empty lock file is a writer between creating and filling it: waited for while young, removed when old", async () => {
    const path = join(dir, "p.pins.json");
    writeFileSync(`${path}.lock`, "");
    expect(
      (await refusal(writePinFile(path, fileWith("a", "add"), { lockTimeoutMs: 200 }))).code,
    ).toBe("PIN_FILE_LOCKED");
    const old = new Date(Date.now() - 60_000);
    utimesSync(`${path}.lock`, old, old);
    await writePinFile(path, fileWith("a", "add"), { lockTimeoutMs: 2_000 });
    expect(readdirSync(dir)).toEqual(["p.pins.json"]);
  });

  it("removes temporary files of dead writers, keeps those of live processes and files not its own", async () => {
    const path = join(dir, "p.pins.json");
    const dead = spawn(process.execPath, ["-e", ""]);
    await new Promise((resolve) => dead.once("exit", resolve));
    const live = spawn(process.execPath, ["-e", "setInterval(() => {}, 60000)"]);
    children.push(live);
    const stale = `p.pins.json.airlock-${dead.pid}-0123456789ab.tmp`;
    const kept = [
      `p.pins.json.airlock-${live.pid}-0123456789ab.tmp`,
      `other.pins.json.airlock-${dead.pid}-0123456789ab.tmp`,
      "p.pins.json.0123456789ab.tmp", // an older release's name: no process to ask
    ];
    for (const name of [stale, ...kept]) writeFileSync(join(dir, name), "{");
    await writePinFile(path, fileWith("a", "add"));
    expect(readdirSync(dir).sort()).toEqual(["p.pins.json", ...kept].sort());
  });

  it("an update that throws writes nothing and releases the lock", async () => {
    const path = join(dir, "p.pins.json");
    await writePinFile(path, fileWith("a", "add"));
    const before = readFileSync(path, "utf8");
    const conflict = new PinFileError("PIN_FILE_CONFLICT", "moved");
    await expect(
      updatePinFile(path, () => {
        throw conflict;
      }),
    ).rejects.toBe(conflict);
    expect(readFileSync(path, "utf8")).toBe(before);
    await writePinFile(path, fileWith("b", "mul"), { lockTimeoutMs: 200 });
  });

  it("an update that changes nothing leaves the file as it was", async () => {
    const path = join(dir, "p.pins.json");
    await writePinFile(path, fileWith("a", "add"));
    const before = statSync(path);
    const result = await updatePinFile(path, (current) => current!);
    expect(result.written).toBe(false);
    expect(statSync(path).ino).toBe(before.ino);
  });

  it("keeps the mode of an existing file; a new one is 0644 less the umask", async () => {
    const path = join(dir, "p.pins.json");
    await writePinFile(path, fileWith("a", "add"));
    expect(statSync(path).mode & 0o777).toBe(0o644 & ~process.umask());
    chmodSync(path, 0o640);
    await writePinFile(path, fileWith("b", "mul"));
    expect(statSync(path).mode & 0o777).toBe(0o640);
  });

  it("writes through a chain of relative symbolic links to the real file", async () => {
    mkdirSync(join(dir, "shared"));
    const real = join(dir, "shared", "real.pins.json");
    await writePinFile(real, fileWith("a", "add"));
    chmodSync(real, 0o600);
    symlinkSync("shared/real.pins.json", join(dir, "one.pins.json"));
    symlinkSync("one.pins.json", join(dir, "two.pins.json"));
    await updatePinFile(join(dir, "two.pins.json"), (current) =>
      withSection(current, fileWith("b", "mul")),
    );
    expect(lstatSync(join(dir, "two.pins.json")).isSymbolicLink()).toBe(true);
    expect(lstatSync(join(dir, "one.pins.json")).isSymbolicLink()).toBe(true);
    expect(Object.keys((await readPinFile(real)).servers)).toEqual(["a", "b"]);
    expect(statSync(real).mode & 0o777).toBe(0o600);
  });

  it("refuses to write over something that is not a regular file", async () => {
    mkdirSync(join(dir, "folder.pins.json"));
    const err = await refusal(writePinFile(join(dir, "folder.pins.json"), fileWith("a", "add")));
    expect(err.code).toBe("PIN_FILE_UNREADABLE");
    expect(err.message).toContain("not a regular file");
  });

  it("refuses a bad lock timeout with PIN_FILE_MISCONFIGURED", async () => {
    expect(DEFAULT_PIN_FILE_LOCK_TIMEOUT_MS).toBe(30_000);
    for (const lockTimeoutMs of [0, -1, 1.5, Number.NaN, 600_001, "100" as unknown as number]) {
      const err = await refusal(
        writePinFile(join(dir, "p.pins.json"), fileWith("a"), { lockTimeoutMs }),
      );
      expect(err.code).toBe("PIN_FILE_MISCONFIGURED");
    }
    expect(readdirSync(dir)).toEqual([]);
  });
});
