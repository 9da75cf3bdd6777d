/**
 * src/lib/bounded-read.ts, the one reader of input files, in both its modes: regular
 * files only (decided on the open descriptor, without blocking on a FIFO), never more
 * than the limit, including a file whose size says 0 (a /proc file) or is wrong.
 */
import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import {
  type BoundedRead,
  readBoundedFile,
  readBoundedFileSync,
} from "../../src/lib/bounded-read.js";

const dir = mkdtempSync(join(tmpdir(), "airlock-bounded-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Both modes, which must agree. */
async function read(path: string, max: number): Promise<BoundedRead> {
  const sync = readBoundedFileSync(path, max);
  const viaPool = await readBoundedFile(path, max);
  const shape = (r: BoundedRead) =>
    r.ok ? { ok: true, bytes: r.bytes.toString("hex") } : { ...r, cause: r.cause?.code };
  expect(shape(viaPool)).toEqual(shape(sync));
  return sync;
}

describe("readBoundedFile", () => {
  it("reads a regular file up to and including the limit, and refuses one byte more", async () => {
    const path = join(dir, "ten.txt");
    writeFileSync(path, "0123456789");
    expect(await read(path, 10)).toEqual({ ok: true, bytes: Buffer.from("0123456789") });
    expect(await read(path, 9)).toMatchObject({
      ok: false,
      fault: "too_large",
      reason: "10 bytes, over the 9-byte limit",
    });
    writeFileSync(join(dir, "empty.txt"), "");
    expect(await read(join(dir, "empty.txt"), 0)).toEqual({ ok: true, bytes: Buffer.alloc(0) });
  });

  it("reads a file that reports size 0 to its end, and stops one byte past the limit", async () => {
    const whole = await read("/proc/self/cmdline", 1 << 20);
    expect(whole.ok && whole.bytes.length).toBeGreaterThan(0);
    expect(await read("/proc/self/cmdline", 3)).toMatchObject({
      ok: false,
      fault: "too_large",
      reason: "over the 3-byte limit (it grew while read)",
    });
  });

  it("refuses a FIFO without waiting for a writer, a device and a directory", async () => {
    execFileSync("mkfifo", [join(dir, "pipe")]);
    mkdirSync(join(dir, "folder"));
    expect(await read(join(dir, "pipe"), 10)).toMatchObject({
      ok: false,
      fault: "not_regular",
      kind: "a FIFO",
    });
    expect(await read("/dev/zero", 10)).toMatchObject({
      ok: false,
      fault: "not_regular",
      kind: "a character device",
    });
    expect(await read(join(dir, "folder"), 10)).toMatchObject({
      ok: false,
      fault: "not_regular",
      kind: "a directory",
    });
  });

  it("tells a missing path from one it may not read", async () => {
    expect(await read(join(dir, "missing"), 10)).toMatchObject({
      ok: false,
      fault: "missing",
      reason: "no such file or directory",
    });
    const loop = join(dir, "loop");
    execFileSync("ln", ["-s", loop, loop]);
    expect(await read(loop, 10)).toMatchObject({
      ok: false,
      fault: "unreadable",
      reason: "cannot be read (ELOOP)",
    });
  });
});
