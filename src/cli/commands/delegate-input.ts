/**
 * What the `airlock delegate` subcommands (and the delegation flags of `airlock proxy`)
 * share to read their input: the usage error (exit 2 with its message), whole-number
 * flags, chain files, and secret files (keys, token files) that must be private to their
 * owner.
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

/** Most bytes read from a chain file: 64 links of 16 KiB, with room for whitespace. */
const MAX_CHAIN_FILE_BYTES = 2 * 1024 * 1024;

/** The links of a chain file (`{"chain": [...]}` or a JSON array), or of stdin for `-`. */
export async function readChainFile(path: string): Promise<unknown> {
  let text: string;
  try {
    if (path === "-") {
      const chunks: Buffer[] = [];
      let total = 0;
      for await (const chunk of process.stdin) {
        total += (chunk as Buffer).length;
        if (total > MAX_CHAIN_FILE_BYTES) throw new UsageError("the chain on stdin is too large");
        chunks.push(chunk as Buffer);
      }
      text = Buffer.concat(chunks).toString("utf8");
    } else {
      const info = await stat(path);
      if (info.size > MAX_CHAIN_FILE_BYTES) throw new UsageError(`chain file ${path} is too large`);
      text = await readFile(path, "utf8");
    }
  } catch (err) {
    if (err instanceof UsageError) throw err;
    throw new UsageError(`cannot read chain ${path}: ${(err as Error).message}`);
  }
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch {
    throw new UsageError(`chain ${path} is not JSON`);
  }
  if (Array.isArray(data)) return data;
  if (typeof data === "object" && data !== null && "chain" in data) {
    return (data as { chain: unknown }).chain;
  }
  throw new UsageError(`chain ${path}: expected {"chain": [...]} or a JSON array of links`);
}

/** Most bytes read from a token file. */
const MAX_TOKEN_FILE_BYTES = 64 * 1024;

/** The bearer tokens of a token file: one per non-empty line; the file private like a key. */
export async function readTokenFile(path: string): Promise<string[]> {
  const tokens = (await readPrivateFile(path, "token file", MAX_TOKEN_FILE_BYTES))
    .split(/\r?\n/)
    .map((line) => line.trim())
    .filter((line) => line !== "");
  if (tokens.length === 0) throw new UsageError(`token file ${path} holds no token`);
  return tokens;
}
