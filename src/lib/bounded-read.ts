/**
 * The one way agent-airlock reads an input file it did not write: only a regular file,
 * and never more than a byte limit. A pin file, a scanned file, a client config or a
 * saved listing given as `/dev/zero` or a FIFO must be refused at once, not read until
 * memory runs out or waited on forever.
 *
 * The file is opened non-blocking (a FIFO with no writer opens at once instead of
 * waiting) and the type and size are checked on the open descriptor, so a path swapped
 * between a `stat` and the read cannot slip through; the read itself stops one byte past
 * the limit, so a file that grows meanwhile (or a `/proc` file that reports size 0) is
 * still bounded. The steps are written once, as a generator of file operations, and run
 * either with blocking calls or through Node's thread pool (the callback forms of
 * node:fs: node:fs/promises would load stream internals into every CLI start).
 *
 * Private (src/lib): callers map a {@link BoundedReadFault} to their own error codes.
 */
import {
  close,
  closeSync,
  constants,
  fstat,
  fstatSync,
  open,
  openSync,
  read,
  readSync,
  type Stats,
} from "node:fs";

/** Why a file could not be read. */
export type BoundedReadFault =
  /** The path does not exist (or a directory on the way is not one). */
  | "missing"
  /** A directory, FIFO, socket or device: never read as an input. */
  | "not_regular"
  /** Larger than the limit. */
  | "too_large"
  /** Anything else the system refused (permissions, a link loop, I/O). */
  | "unreadable";

/** What {@link readBoundedFile} gives: the bytes, or why not (never throws for a bad file). */
export type BoundedRead =
  | { ok: true; bytes: Buffer }
  | {
      ok: false;
      fault: BoundedReadFault;
      /** One phrase naming the fault, e.g. `a FIFO, not a regular file`. */
      reason: string;
      /** For `not_regular`: which kind of file it is. */
      kind?: string;
      /** The system error, when there is one. */
      cause?: NodeJS.ErrnoException;
    };

type Step =
  | { op: "open"; path: string }
  | { op: "fstat"; fd: number }
  | { op: "read"; fd: number; buffer: Buffer; offset: number }
  | { op: "close"; fd: number };

/** Bytes asked of the system per read once the reported size is exhausted. */
const CHUNK = 64 * 1024;
// O_NONBLOCK makes opening a FIFO return at once; it changes nothing for a regular file.
const OPEN_FLAGS = constants.O_RDONLY | (constants.O_NONBLOCK ?? 0);

function kindOf(info: Stats): string {
  if (info.isDirectory()) return "a directory";
  if (info.isFIFO()) return "a FIFO";
  if (info.isSocket()) return "a socket";
  if (info.isCharacterDevice()) return "a character device";
  if (info.isBlockDevice()) return "a block device";
  return "a special file";
}

function failure(err: unknown): BoundedRead {
  const cause = err as NodeJS.ErrnoException;
  const code = cause?.code ?? "error";
  if (code === "ENOENT" || code === "ENOTDIR") {
    return { ok: false, fault: "missing", reason: "no such file or directory", cause };
  }
  if (code === "EISDIR") {
    return {
      ok: false,
      fault: "not_regular",
      reason: "a directory, not a regular file",
      kind: "a directory",
      cause,
    };
  }
  return { ok: false, fault: "unreadable", reason: `cannot be read (${code})`, cause };
}

// Every result the runner sends back is the value of the step just yielded.
function* steps(path: string, maxBytes: number): Generator<Step, BoundedRead, unknown> {
  let fd: number;
  try {
    fd = (yield { op: "open", path }) as number;
  } catch (err) {
    return failure(err);
  }
  try {
    const info = (yield { op: "fstat", fd }) as Stats;
    if (!info.isFile()) {
      const kind = kindOf(info);
      return { ok: false, fault: "not_regular", reason: `${kind}, not a regular file`, kind };
    }
    if (info.size > maxBytes) {
      return {
        ok: false,
        fault: "too_large",
        reason: `${info.size} bytes, over the ${maxBytes}-byte limit`,
      };
    }
    let buffer = Buffer.allocUnsafe(Math.min(info.size, maxBytes) + 1);
    let length = 0;
    for (;;) {
      if (length === buffer.length) {
        if (length > maxBytes) break;
        const grown = Buffer.allocUnsafe(Math.min(length + CHUNK, maxBytes + 1));
        buffer.copy(grown, 0, 0, length);
        buffer = grown;
      }
      const got = (yield { op: "read", fd, buffer, offset: length }) as number;
      if (got === 0) break;
      length += got;
    }
    if (length > maxBytes) {
      return {
        ok: false,
        fault: "too_large",
        reason: `over the ${maxBytes}-byte limit (it grew while read)`,
      };
    }
    return { ok: true, bytes: buffer.subarray(0, length) };
  } catch (err) {
    return failure(err);
  } finally {
    try {
      yield { op: "close", fd };
    } catch {
      // A failed close loses nothing that was read.
    }
  }
}

function runSync(step: Step): unknown {
  switch (step.op) {
    case "open":
      return openSync(step.path, OPEN_FLAGS);
    case "fstat":
      return fstatSync(step.fd);
    case "read":
      return readSync(step.fd, step.buffer, step.offset, step.buffer.length - step.offset, null);
    case "close":
      return closeSync(step.fd);
  }
}

function runAsync(step: Step): Promise<unknown> {
  return new Promise((resolve, reject) => {
    const done = (err: NodeJS.ErrnoException | null, value?: unknown) =>
      err ? reject(err) : resolve(value);
    switch (step.op) {
      case "open":
        return open(step.path, OPEN_FLAGS, done);
      case "fstat":
        return fstat(step.fd, done);
      case "read":
        return read(
          step.fd,
          step.buffer,
          step.offset,
          step.buffer.length - step.offset,
          null,
          done,
        );
      case "close":
        return close(step.fd, (err) => done(err));
    }
  });
}

/**
 * Read a regular file of at most `maxBytes` bytes, with blocking calls.
 *
 * @example
 * ```ts
 * import { readBoundedFileSync } from "../lib/bounded-read.js";
 * console.log(readBoundedFileSync("/dev/zero", 1024)); // { ok: false, fault: "not_regular", ... }
 * ```
 */
export function readBoundedFileSync(path: string, maxBytes: number): BoundedRead {
  const walk = steps(path, maxBytes);
  let next = walk.next();
  while (!next.done) {
    try {
      next = walk.next(runSync(next.value));
    } catch (err) {
      next = walk.throw(err);
    }
  }
  return next.value;
}

/**
 * Read a regular file of at most `maxBytes` bytes through Node's thread pool.
 *
 * @example
 * ```ts
 * import { readBoundedFile } from "../lib/bounded-read.js";
 * const read = await readBoundedFile("package.json", 1 << 20);
 * console.log(read.ok); // true
 * ```
 */
export async function readBoundedFile(path: string, maxBytes: number): Promise<BoundedRead> {
  const walk = steps(path, maxBytes);
  let next = walk.next();
  while (!next.done) {
    let value: unknown;
    let error: unknown;
    let failed = false;
    try {
      value = await runAsync(next.value);
    } catch (err) {
      error = err;
      failed = true;
    }
    next = failed ? walk.throw(error) : walk.next(value);
  }
  return next.value;
}
