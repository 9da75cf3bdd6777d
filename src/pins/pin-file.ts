/**
 * The pin file format: its types, strict parsing, deterministic text, and the step
 * between a file and a pin guard. Reading and writing on disk (size cap, locking, atomic
 * replacement) is in pin-file-io.ts.
 */
import { pythonCanonicalJson } from "../canonical/python-json.js";
import { AirlockError, PinFileError } from "../errors.js";
import { findDuplicateKey } from "../lib/json-duplicate-key.js";
import { truncateText } from "../lib/truncate.js";
import { ToolDefinitionPinGuard } from "./guard.js";
import type { PinVersion, ToolDefinition } from "./types.js";

/**
 * The file name `airlock` looks for when none is given.
 *
 * @example
 * ```ts
 * import { DEFAULT_PIN_FILE } from "agent-airlock";
 * console.log(DEFAULT_PIN_FILE); // "airlock.pins.json"
 * ```
 */
export const DEFAULT_PIN_FILE = "airlock.pins.json";

/**
 * The pin file format this release reads and writes.
 *
 * @example
 * ```ts
 * import { PIN_FILE_VERSION } from "agent-airlock";
 * console.log(PIN_FILE_VERSION); // 1
 * ```
 */
export const PIN_FILE_VERSION = 1;

/**
 * Largest pin file read (bytes): a reviewed lock file, not a data dump.
 *
 * @example
 * ```ts
 * import { MAX_PIN_FILE_BYTES } from "agent-airlock";
 * console.log(MAX_PIN_FILE_BYTES); // 67108864
 * ```
 */
export const MAX_PIN_FILE_BYTES = 64 * 1024 * 1024;

/** One approved tool. */
export interface PinFileEntry {
  digest: string;
  pinVersion: PinVersion;
  /** The approved definition's pinned fields, so drift can be shown field by field. */
  definition?: ToolDefinition;
}

/** One server's approved tools, plus optional notes on how to reach it (kept as is). */
export interface PinFileServer {
  tools: Record<string, PinFileEntry>;
  /** How to reach the server (for `airlock check`); free-form JSON, round-tripped. */
  source?: Record<string, unknown>;
}

/**
 * The reviewed lock file of approved tools (default `airlock.pins.json`): per server, per
 * tool, the digest, its version and the approved definition.
 */
export interface PinFile {
  version: typeof PIN_FILE_VERSION;
  servers: Record<string, PinFileServer>;
}

/**
 * The server name used when none is given.
 *
 * @example
 * ```ts
 * import { DEFAULT_SERVER } from "agent-airlock";
 * console.log(DEFAULT_SERVER); // "default"
 * ```
 */
export const DEFAULT_SERVER = "default";

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function invalid(message: string, cause?: unknown): never {
  throw new PinFileError(
    "PIN_FILE_INVALID",
    `pin file: ${message}`,
    cause === undefined ? undefined : { cause },
  );
}

/**
 * Parse and check the text of a pin file. Every stored definition must hash to its
 * digest, and no object may hold a key twice (`PIN_FILE_DUPLICATE_KEY`). A corrupt or
 * wrong-version file throws {@link PinFileError}; it never yields an empty guard.
 *
 * @example
 * ```ts
 * import { parsePinFile } from "agent-airlock";
 * const file = parsePinFile('{"version":1,"servers":{"default":{"tools":{}}}}');
 * Object.keys(file.servers); // ["default"]
 * ```
 */
export function parsePinFile(text: string): PinFile {
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch (err) {
    invalid(`not JSON (${(err as Error).message})`, err);
  }
  const duplicate = findDuplicateKey(text);
  if (duplicate !== null) {
    const where = duplicate.pointer === "" ? "the top level" : truncateText(duplicate.pointer, 200);
    throw new PinFileError(
      "PIN_FILE_DUPLICATE_KEY",
      `pin file: key ${truncateText(JSON.stringify(duplicate.key), 100)} appears twice in ${where} (second at line ${duplicate.line}, column ${duplicate.column}); a JSON reader keeps one copy and drops the other, so the file has no single meaning: remove one copy by hand and review what is left`,
    );
  }
  return readPinFileValue(data);
}

/**
 * The checks of {@link parsePinFile} on a parsed JSON value (no duplicate-key check: a
 * value has none). Internal: for text this module serialised itself.
 *
 * @example
 * ```ts
 * import { readPinFileValue } from "./pin-file.js";
 * console.log(readPinFileValue({ version: 1, servers: {} }).servers); // {}
 * ```
 */
export function readPinFileValue(data: unknown): PinFile {
  if (!isRecord(data)) invalid("the top level must be an object");
  if (!Object.hasOwn(data, "version")) invalid('missing "version"');
  if (data.version !== PIN_FILE_VERSION) {
    throw new PinFileError(
      "PIN_FILE_VERSION",
      `pin file: version ${JSON.stringify(data.version)} is not supported (this release reads version ${PIN_FILE_VERSION}); upgrade agent-airlock or re-create the file with \`airlock pin\``,
    );
  }
  for (const key of Object.keys(data)) {
    if (key !== "version" && key !== "servers" && key !== "$schema")
      invalid(`unknown top-level field ${JSON.stringify(key)}`);
  }
  if (!isRecord(data.servers)) invalid('"servers" must be an object');
  const servers: [string, PinFileServer][] = [];
  for (const [serverName, server] of Object.entries(data.servers)) {
    const where = `server ${JSON.stringify(serverName)}`;
    if (serverName === "") invalid("a server name is empty");
    if (!isRecord(server) || !isRecord(server.tools))
      invalid(`${where}: "tools" must be an object`);
    for (const key of Object.keys(server)) {
      if (key !== "tools" && key !== "source")
        invalid(`${where}: unknown field ${JSON.stringify(key)}`);
    }
    if (server.source !== undefined) {
      if (!isRecord(server.source)) invalid(`${where}: "source" must be an object`);
      try {
        pythonCanonicalJson(server.source); // bounded depth and size, JSON values only
      } catch (err) {
        invalid(`${where}: "source" ${(err as Error).message}`, err);
      }
    }
    const tools: [string, PinFileEntry][] = [];
    for (const [toolName, entry] of Object.entries(server.tools)) {
      tools.push([
        toolName,
        checkEntry(entry, `${where}, tool ${JSON.stringify(toolName)}`, toolName),
      ]);
    }
    const parsed: PinFileServer = { tools: Object.fromEntries(tools) };
    if (server.source !== undefined) parsed.source = server.source as Record<string, unknown>;
    servers.push([serverName, parsed]);
  }
  return { version: PIN_FILE_VERSION, servers: Object.fromEntries(servers) };
}

function checkEntry(entry: unknown, where: string, toolName: string): PinFileEntry {
  if (!isRecord(entry)) invalid(`${where}: must be an object`);
  for (const key of Object.keys(entry)) {
    if (key !== "digest" && key !== "pinVersion" && key !== "definition")
      invalid(`${where}: unknown field ${JSON.stringify(key)}`);
  }
  const { digest, pinVersion, definition } = entry;
  if (pinVersion !== 1 && pinVersion !== 2) invalid(`${where}: "pinVersion" must be 1 or 2`);
  // Loading the entry into a throwaway guard runs every pin check, including that the
  // stored definition hashes to the stored digest.
  try {
    new ToolDefinitionPinGuard().pin(toolName, digest as string, {
      pinVersion: pinVersion as PinVersion,
      definition,
    });
  } catch (err) {
    if (err instanceof AirlockError) invalid(`${where}: ${err.message}`, err);
    throw err;
  }
  const checked: PinFileEntry = { digest: digest as string, pinVersion: pinVersion as PinVersion };
  if (definition !== undefined) checked.definition = definition as ToolDefinition;
  return checked;
}

// Sorted keys at every depth; Object.fromEntries keeps a "__proto__" key a plain key.
function sortedDeep(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortedDeep);
  if (isRecord(value)) {
    return Object.fromEntries(
      Object.keys(value)
        .sort()
        .map((key) => [key, sortedDeep(value[key])]),
    );
  }
  return value;
}

/**
 * The text of a pin file: sorted keys, two-space indent, final newline, so a pull
 * request shows exactly what was approved.
 *
 * @example
 * ```ts
 * import { serializePinFile } from "agent-airlock";
 * serializePinFile({ version: 1, servers: {} }); // '{\n  "servers": {},\n  "version": 1\n}\n'
 * ```
 */
export function serializePinFile(file: PinFile): string {
  return `${JSON.stringify(sortedDeep(file), null, 2)}\n`;
}

/** Options of {@link guardFromPinFile}. */
export interface GuardFromPinFileOptions {
  /** The server section to load; may be left out when the file holds exactly one. */
  server?: string;
  /** See `PinGuardOptions.enforce`. Default true. */
  enforce?: boolean;
}

/**
 * The server section a call means: the named one, or the only one. Throws
 * `PinFileError` for a name the file lacks, or no name when it has several sections.
 *
 * @example
 * ```ts
 * import { pinFileServerName } from "agent-airlock";
 * console.log(pinFileServerName({ version: 1, servers: { weather: { tools: {} } } })); // "weather"
 * ```
 */
export function pinFileServerName(file: PinFile, server?: string): string {
  const names = Object.keys(file.servers);
  if (server !== undefined) {
    if (!Object.hasOwn(file.servers, server)) {
      throw new PinFileError(
        "PIN_FILE_UNKNOWN_SERVER",
        `pin file has no server ${JSON.stringify(server)} (it has: ${names.map((n) => JSON.stringify(n)).join(", ") || "none"})`,
      );
    }
    return server;
  }
  if (names.length !== 1) {
    throw new PinFileError(
      "PIN_FILE_UNKNOWN_SERVER",
      `pin file holds ${names.length} servers (${names.map((n) => JSON.stringify(n)).join(", ") || "none"}): name the one to load`,
    );
  }
  return names[0]!;
}

/**
 * A pin guard holding one server's pins from a pin file.
 *
 * @example
 * ```ts
 * import { guardFromPinFile, parsePinFile } from "agent-airlock";
 * const guard = guardFromPinFile(parsePinFile(text), { server: "weather" });
 * guard.check(toolFromServer).allowed;
 * ```
 */
export function guardFromPinFile(
  file: PinFile,
  options: GuardFromPinFileOptions = {},
): ToolDefinitionPinGuard {
  const serverName = pinFileServerName(file, options.server);
  const guard = new ToolDefinitionPinGuard({ enforce: options.enforce ?? true });
  for (const [toolName, entry] of Object.entries(file.servers[serverName]!.tools)) {
    guard.pin(toolName, entry.digest, {
      pinVersion: entry.pinVersion,
      definition: entry.definition,
    });
  }
  return guard;
}

/** Options of {@link pinFileFromGuard}. */
export interface PinFileFromGuardOptions {
  /** The server section to write. Default `"default"`. */
  server?: string;
  /** An existing pin file whose other sections (and this section's `source`) are kept. */
  into?: PinFile;
}

/**
 * A pin file holding `guard`'s pins as one server section. Returns a new object; `into`
 * is not modified.
 *
 * @example
 * ```ts
 * import { ToolDefinitionPinGuard, pinFileFromGuard, serializePinFile } from "agent-airlock";
 * const guard = new ToolDefinitionPinGuard();
 * guard.approve({ name: "add" });
 * serializePinFile(pinFileFromGuard(guard, { server: "calculator" }));
 * ```
 */
export function pinFileFromGuard(
  guard: ToolDefinitionPinGuard,
  options: PinFileFromGuardOptions = {},
): PinFile {
  const serverName = options.server ?? DEFAULT_SERVER;
  const base: PinFile = options.into
    ? (JSON.parse(JSON.stringify(options.into)) as PinFile)
    : { version: PIN_FILE_VERSION, servers: {} };
  const tools = Object.fromEntries(
    Object.entries(guard.pins).map(([name, [digest, pinVersion]]): [string, PinFileEntry] => {
      const entry: PinFileEntry = { digest, pinVersion };
      const definition = guard.approvedDefinition(name);
      if (definition) entry.definition = definition;
      return [name, entry];
    }),
  );
  const previous = Object.hasOwn(base.servers, serverName) ? base.servers[serverName] : undefined;
  const section: PinFileServer = { tools };
  if (previous?.source) section.source = previous.source;
  const servers = Object.fromEntries([
    ...Object.entries(base.servers).filter(([n]) => n !== serverName),
    [serverName, section],
  ]);
  return { version: PIN_FILE_VERSION, servers };
}
