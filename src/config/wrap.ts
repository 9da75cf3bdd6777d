import { copyFileSync, existsSync } from "node:fs";
import { resolveWriteTarget, writeFileAtomic } from "../lib/atomic-write.js";
import { type ClientConfig, ClientConfigError, defaultSection, isRecord } from "./client-config.js";

/** How the rewritten config launches airlock. */
export interface AirlockLaunch {
  /** Executable, e.g. an absolute `node` path, or `airlock`. */
  command: string;
  /** Arguments before `proxy`, e.g. the absolute path of airlock's `bin.js`. */
  args: string[];
}

/** Options of {@link wrapConfig}. */
export interface WrapOptions {
  airlock: AirlockLaunch;
  /** Pin file every wrapped server uses (absolute paths are safest: clients start servers anywhere). */
  pinsPath: string;
  /** Audit log file for every wrapped server (optional). */
  auditLogPath?: string;
  /**
   * More `airlock proxy` options for every wrapped server, written before the `--` that
   * starts the real command (`--observe`, `--agent DID`, ...). Default none.
   */
  proxyArgs?: readonly string[];
  /** Pin-file section of a server (default: {@link defaultSection}). */
  sectionOf?: (serverName: string, mapPath: string[]) => string;
}

/** What happened to one server entry. */
export interface WrapChange {
  name: string;
  mapPath: string[];
  action: "wrapped" | "unwrapped" | "already_wrapped" | "not_wrapped" | "skipped";
  /** Pin-file section (wrapped entries). */
  section?: string;
  /** Why an entry was skipped. */
  detail?: string;
}

/** A rewritten document and what changed. */
export interface WrapResult {
  document: Record<string, unknown>;
  changes: WrapChange[];
}

/** The argument that starts the real server's command line in a wrapped entry. */
const SEPARATOR = "--";

/**
 * Route every stdio server of a client config through `airlock proxy`: the entry's
 * `command` becomes airlock and its `args` become
 * `proxy --pins FILE --server NAME -- <original command> <original args>`. Every other
 * field (`env`, `cwd`, `type`, unknown ones) is kept as is, so {@link unwrapConfig}
 * restores the entry exactly. Remote (`url`) servers are skipped and reported: put
 * `airlock proxy --url` in front of them by hand. Already wrapped entries are left alone.
 * Returns a new document; the input is not modified.
 *
 * @example
 * ```ts
 * import { parseClientConfig } from "./client-config.js";
 * import { wrapConfig } from "./wrap.js";
 * const config = parseClientConfig('{"mcpServers":{"fs":{"command":"npx","args":["fs-server"]}}}', "mcp.json");
 * const { document } = wrapConfig(config, { airlock: { command: "airlock", args: [] }, pinsPath: "/home/me/airlock.pins.json" });
 * console.log(JSON.stringify(document));
 * // {"mcpServers":{"fs":{"command":"airlock","args":["proxy","--pins","/home/me/airlock.pins.json","--server","fs","--","npx","fs-server"]}}}
 * ```
 */
export function wrapConfig(config: ClientConfig, options: WrapOptions): WrapResult {
  const document = structuredClone(config.document);
  const changes: WrapChange[] = [];
  for (const server of config.servers) {
    const map = mapAt(document, server.mapPath);
    const entry = map?.[server.name];
    if (!map || !isRecord(entry)) continue;
    const base = { name: server.name, mapPath: server.mapPath };
    if (wrappedCommand(entry) !== null) {
      changes.push({ ...base, action: "already_wrapped" });
      continue;
    }
    if (server.launch?.transport !== "stdio") {
      changes.push({
        ...base,
        action: "skipped",
        detail:
          server.launch === null
            ? "not a server entry airlock understands (no command or url)"
            : `remote ${server.launch.transport} server: run \`airlock proxy --url ${server.launch.url}${server.launch.transport === "sse" ? " --sse" : ""}\` in front of it by hand`,
      });
      continue;
    }
    const section = options.sectionOf?.(server.name, server.mapPath) ?? defaultSection(server);
    const proxyArgs = ["proxy", "--pins", options.pinsPath, "--server", section];
    if (options.auditLogPath) proxyArgs.push("--audit-log", options.auditLogPath);
    if (options.proxyArgs) proxyArgs.push(...options.proxyArgs);
    const wrapped: Record<string, unknown> = { ...entry };
    wrapped.command = options.airlock.command;
    wrapped.args = [
      ...options.airlock.args,
      ...proxyArgs,
      SEPARATOR,
      server.launch.command,
      ...server.launch.args,
    ];
    // Keep the key order of the original entry: command and args stay where they were.
    map[server.name] = reorder(wrapped, entry, Object.hasOwn(entry, "args"));
    changes.push({ ...base, action: "wrapped", section });
  }
  return { document, changes };
}

/**
 * Undo {@link wrapConfig}: every entry whose args run `airlock proxy ... -- COMMAND ARGS`
 * gets `COMMAND` and `ARGS` back (an entry that had no `args` gets an empty array);
 * everything else is untouched.
 *
 * @example
 * ```ts
 * import { parseClientConfig } from "./client-config.js";
 * import { unwrapConfig } from "./wrap.js";
 * const config = parseClientConfig('{"mcpServers":{"fs":{"command":"airlock","args":["proxy","--pins","p.json","--server","fs","--","npx","fs-server"]}}}', "mcp.json");
 * console.log(JSON.stringify(unwrapConfig(config).document)); // {"mcpServers":{"fs":{"command":"npx","args":["fs-server"]}}}
 * ```
 */
export function unwrapConfig(config: ClientConfig): WrapResult {
  const document = structuredClone(config.document);
  const changes: WrapChange[] = [];
  for (const server of config.servers) {
    const map = mapAt(document, server.mapPath);
    const entry = map?.[server.name];
    if (!map || !isRecord(entry)) continue;
    const original = wrappedCommand(entry);
    if (original === null) {
      changes.push({ name: server.name, mapPath: server.mapPath, action: "not_wrapped" });
      continue;
    }
    map[server.name] = { ...entry, command: original.command, args: original.args };
    changes.push({ name: server.name, mapPath: server.mapPath, action: "unwrapped" });
  }
  return { document, changes };
}

/**
 * The real server of a wrapped entry (`... proxy [options] -- COMMAND ARGS`), or null
 * when the entry is not wrapped by airlock.
 */
export function wrappedCommand(
  entry: Record<string, unknown>,
): { command: string; args: string[]; section: string | null } | null {
  const args = entry.args;
  if (!Array.isArray(args) || !args.every((a) => typeof a === "string")) return null;
  const list = args as string[];
  const proxyAt = list.indexOf("proxy");
  if (proxyAt === -1) return null;
  const separatorAt = list.indexOf(SEPARATOR, proxyAt + 1);
  if (separatorAt === -1 || separatorAt + 1 >= list.length) return null;
  const options = list.slice(proxyAt + 1, separatorAt);
  if (!options.includes("--pins")) return null;
  const serverAt = options.indexOf("--server");
  return {
    command: list[separatorAt + 1]!,
    args: list.slice(separatorAt + 2),
    section: serverAt === -1 ? null : (options[serverAt + 1] ?? null),
  };
}

function mapAt(document: Record<string, unknown>, path: string[]): Record<string, unknown> | null {
  let node: unknown = document;
  for (const key of path) {
    if (!isRecord(node)) return null;
    node = node[key];
  }
  return isRecord(node) ? node : null;
}

function reorder(
  wrapped: Record<string, unknown>,
  original: Record<string, unknown>,
  hadArgs: boolean,
): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(original)) {
    out[key] = wrapped[key];
    if (key === "command" && !hadArgs) out.args = wrapped.args;
  }
  for (const key of Object.keys(wrapped)) if (!Object.hasOwn(out, key)) out[key] = wrapped[key];
  return out;
}

/**
 * Write a rewritten config safely: the old file is copied to a backup first
 * (`<file>.airlock-backup`, or `<file>.airlock-backup-<n>` when that exists), then the
 * new text replaces it with the shared atomic write (src/lib/atomic-write.ts): through a
 * symbolic link to its target (a config kept in a dotfiles folder stays linked), keeping
 * its mode, flushed before it is renamed over the old one. Returns the backup path. No
 * lock is taken: the client that owns the file would not honour one.
 *
 * @throws {ClientConfigError} `CLIENT_CONFIG_UNREADABLE` for a link to a missing file or
 * a path that is not a regular file (nothing is written); the system's error when the
 * backup or the write fails.
 * @example
 * ```ts
 * import { writeConfigWithBackup } from "./wrap.js";
 * const backup = await writeConfigWithBackup(".mcp.json", { mcpServers: {} });
 * console.log(backup); // ".mcp.json.airlock-backup"
 * ```
 */
export async function writeConfigWithBackup(
  path: string,
  document: Record<string, unknown>,
): Promise<string> {
  const target = await resolveWriteTarget(path);
  if (!target.ok) {
    throw new ClientConfigError("CLIENT_CONFIG_UNREADABLE", `${path}: ${target.reason}`, {
      cause: target.cause,
    });
  }
  let backup = `${path}.airlock-backup`;
  for (let n = 1; existsSync(backup); n++) backup = `${path}.airlock-backup-${n}`;
  copyFileSync(target.path, backup);
  await writeFileAtomic(target.path, `${JSON.stringify(document, null, 2)}\n`);
  return backup;
}
