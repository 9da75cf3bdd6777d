/**
 * What the `airlock delegate` subcommands share to read their input: the usage error
 * (exit 2 with its message), whole-number flags, and secret files (keys, token files)
 * that must be private to their owner.
 */
import { readFile, stat } from "node:fs/promises";

/** A usage or input problem: exit 2 with a message. */
export class UsageError extends Error {}

/** A whole-number flag from 0 to `max`. */
export function parseCount(text: string, flag: string, max: number): number {
  if (!/^\d{1,6}$/.test(text)) throw new UsageError(`${flag} must be a whole number`);
  const n = Number(text);
  if (n > max) throw new UsageError(`${flag} must be at most ${max}`);
  return n;
}

/**
 * The text of a secret file (`what` names it in messages): refused unless only its owner
 * can read it, and when it is larger than `maxBytes`.
 */
export async function readPrivateFile(
  path: string,
  what: string,
  maxBytes: number,
): Promise<string> {
  let info: Awaited<ReturnType<typeof stat>>;
  try {
    info = await stat(path);
  } catch (err) {
    throw new UsageError(`cannot read ${what} ${path}: ${(err as Error).message}`);
  }
  if (process.platform !== "win32" && (info.mode & 0o077) !== 0) {
    throw new UsageError(
      `${what} ${path} is readable by others (mode ${(info.mode & 0o777).toString(8)}); run chmod 600 ${path}`,
    );
  }
  if (info.size > maxBytes) throw new UsageError(`${what} ${path} is too large`);
  return readFile(path, "utf8");
}
