import { homedir } from "node:os";
import { join } from "node:path";
import { AirlockError } from "../errors.js";
import { readBoundedFileSync } from "../lib/bounded-read.js";
import { parseJsonc } from "../lib/jsonc.js";
import { strictUtf8Text } from "../lib/utf8.js";

/** The MCP clients whose configuration files airlock reads. */
export type ClientKind = "claude-desktop" | "claude-code" | "cursor" | "vscode" | "unknown";

/** Codes of {@link ClientConfigError}. */
export type ClientConfigErrorCode =
  /** The file could not be read. */
  | "CLIENT_CONFIG_UNREADABLE"
  /** The file is not JSON (or JSON with comments), or has no server map. */
  | "CLIENT_CONFIG_INVALID";

/**
 * An MCP client configuration could not be read or used.
 *
 * @example
 * ```ts
 * import { ClientConfigError, parseClientConfig } from "./client-config.js";
 * try { parseClientConfig("not json", "mcp.json"); }
 * catch (err) { if (err instanceof ClientConfigError) console.log(err.code); } // "CLIENT_CONFIG_INVALID"
 * ```
 */
export class ClientConfigError extends AirlockError {
  declare readonly code: ClientConfigErrorCode;
  constructor(code: ClientConfigErrorCode, message: string, options?: { cause?: unknown }) {
    super(code, message, options);
  }
}

/** One server entry of a client config, as the client would launch it. */
export type ServerLaunch =
  | {
      transport: "stdio";
      command: string;
      args: string[];
      env?: Record<string, string>;
      cwd?: string;
    }
  | { transport: "http" | "sse"; url: string; headers?: Record<string, string> };

/** A server found in a client config. */
export interface ConfiguredServer {
  /** Its key in the server map, which is also its pin-file section by default. */
  name: string;
  /** Path of keys from the document root to its server map, e.g. `["mcpServers"]`. */
  mapPath: string[];
  /** How the client launches it; null when the entry is not a shape airlock understands. */
  launch: ServerLaunch | null;
  /** The entry as written in the file. */
  entry: Record<string, unknown>;
}

/** A parsed client config. */
export interface ClientConfig {
  path: string;
  kind: ClientKind;
  /** The whole document (never modified by airlock; rewriting makes a copy). */
  document: Record<string, unknown>;
  /** True when the file had comments or trailing commas (rewriting it drops them). */
  hadComments: boolean;
  servers: ConfiguredServer[];
}

/** A place a client config may be. */
export interface ConfigLocation {
  kind: ClientKind;
  path: string;
  /** Project files (in `cwd`) or user files (in the home directory). */
  scope: "project" | "user";
}

/**
 * Where the supported clients keep their MCP configs, for this platform: Claude Desktop
 * (`claude_desktop_config.json`), Claude Code (`.mcp.json` in the project,
 * `~/.claude.json`), Cursor (`.cursor/mcp.json`, `~/.cursor/mcp.json`) and VS Code
 * (`.vscode/mcp.json`). Existence is not checked.
 *
 * @example
 * ```ts
 * import { clientConfigLocations } from "./client-config.js";
 * for (const place of clientConfigLocations()) console.log(place.kind, place.path);
 * ```
 */
export function clientConfigLocations(
  options: { cwd?: string; home?: string; platform?: NodeJS.Platform; appData?: string } = {},
): ConfigLocation[] {
  const cwd = options.cwd ?? process.cwd();
  const home = options.home ?? homedir();
  const platform = options.platform ?? process.platform;
  const desktop =
    platform === "darwin"
      ? join(home, "Library", "Application Support", "Claude", "claude_desktop_config.json")
      : platform === "win32"
        ? join(
            options.appData ?? process.env.APPDATA ?? join(home, "AppData", "Roaming"),
            "Claude",
            "claude_desktop_config.json",
          )
        : join(home, ".config", "Claude", "claude_desktop_config.json");
  return [
    { kind: "claude-code", path: join(cwd, ".mcp.json"), scope: "project" },
    { kind: "cursor", path: join(cwd, ".cursor", "mcp.json"), scope: "project" },
    { kind: "vscode", path: join(cwd, ".vscode", "mcp.json"), scope: "project" },
    { kind: "claude-desktop", path: desktop, scope: "user" },
    { kind: "claude-code", path: join(home, ".claude.json"), scope: "user" },
    { kind: "cursor", path: join(home, ".cursor", "mcp.json"), scope: "user" },
  ];
}

/** Guess which client a config file belongs to from its path. */
export function clientKindOf(path: string): ClientKind {
  const p = path.replaceAll("\\", "/");
  if (p.endsWith("claude_desktop_config.json")) return "claude-desktop";
  if (p.endsWith("/.claude.json") || p.endsWith(".mcp.json") || p === ".mcp.json")
    return "claude-code";
  if (p.includes("/.cursor/")) return "cursor";
  if (p.includes("/.vscode/")) return "vscode";
  return "unknown";
}

/**
 * Read and parse a client config file.
 *
 * @example
 * ```ts
 * import { readClientConfig } from "./client-config.js";
 * const config = readClientConfig(".mcp.json");
 * console.log(config.servers.map((s) => s.name));
 * ```
 */
export function readClientConfig(path: string, kind?: ClientKind): ClientConfig {
  const read = readBoundedFileSync(path, MAX_CLIENT_CONFIG_BYTES);
  if (!read.ok) {
    throw new ClientConfigError(
      "CLIENT_CONFIG_UNREADABLE",
      `cannot read ${path}: ${read.reason}`,
      read.cause === undefined ? undefined : { cause: read.cause },
    );
  }
  // The commands and URLs a config names are run and reached: bytes read as U+FFFD
  // would name something else than the file does.
  const text = strictUtf8Text(read.bytes);
  if (!text.ok) {
    throw new ClientConfigError("CLIENT_CONFIG_INVALID", `${path} is ${text.reason}`);
  }
  return parseClientConfig(text.text, path, kind);
}

/** Largest client config read (bytes); `~/.claude.json` keeps history and can be large. */
const MAX_CLIENT_CONFIG_BYTES = 64 * 1024 * 1024;

/**
 * Parse a client config: `mcpServers` (Claude Desktop, Claude Code, Cursor), `servers`
 * (VS Code), and the per-project `projects.<dir>.mcpServers` of `~/.claude.json`. JSON
 * with comments and trailing commas (VS Code) is accepted.
 *
 * @example
 * ```ts
 * import { parseClientConfig } from "./client-config.js";
 * const config = parseClientConfig('{"mcpServers":{"fs":{"command":"npx","args":["-y","@modelcontextprotocol/server-filesystem","/tmp"]}}}', "claude_desktop_config.json");
 * console.log(config.servers[0]?.launch); // { transport: "stdio", command: "npx", args: [...] }
 * ```
 */
export function parseClientConfig(text: string, path: string, kind?: ClientKind): ClientConfig {
  let document: unknown;
  let hadComments: boolean;
  try {
    ({ value: document, hadComments } = parseJsonc(text));
  } catch (cause) {
    throw new ClientConfigError(
      "CLIENT_CONFIG_INVALID",
      `${path} is not JSON: ${(cause as Error).message}`,
      { cause },
    );
  }
  if (!isRecord(document)) {
    throw new ClientConfigError("CLIENT_CONFIG_INVALID", `${path} is not a JSON object`);
  }
  const servers: ConfiguredServer[] = [];
  for (const mapPath of serverMapPaths(document)) {
    const map = at(document, mapPath);
    if (!isRecord(map)) continue;
    for (const name of Object.keys(map)) {
      const entry = map[name];
      if (!isRecord(entry)) continue;
      servers.push({ name, mapPath, launch: launchOf(entry), entry });
    }
  }
  return { path, kind: kind ?? clientKindOf(path), document, hadComments, servers };
}

/**
 * The pin-file section a configured server uses by default: its name, or for a
 * project-scoped server of `~/.claude.json` `<project dir>#<name>` (two projects may
 * each have a server of the same name).
 *
 * @example
 * ```ts
 * import { defaultSection } from "./client-config.js";
 * console.log(defaultSection({ name: "db", mapPath: ["projects", "/work/app", "mcpServers"] })); // "/work/app#db"
 * ```
 */
export function defaultSection(server: { name: string; mapPath: string[] }): string {
  return server.mapPath[0] === "projects" && server.mapPath[1] !== undefined
    ? `${server.mapPath[1]}#${server.name}`
    : server.name;
}

/** The key paths of every server map in a config document. */
export function serverMapPaths(document: Record<string, unknown>): string[][] {
  const paths: string[][] = [];
  if (isRecord(document.mcpServers)) paths.push(["mcpServers"]);
  if (isRecord(document.servers)) paths.push(["servers"]);
  // VS Code user settings keep them under "mcp": { "servers": ... }.
  if (isRecord(document.mcp) && isRecord(document.mcp.servers)) paths.push(["mcp", "servers"]);
  if (isRecord(document.projects)) {
    for (const project of Object.keys(document.projects)) {
      const entry = document.projects[project];
      if (isRecord(entry) && isRecord(entry.mcpServers)) {
        paths.push(["projects", project, "mcpServers"]);
      }
    }
  }
  return paths;
}

function launchOf(entry: Record<string, unknown>): ServerLaunch | null {
  const type = entry.type;
  if (typeof entry.command === "string" && (type === undefined || type === "stdio")) {
    const args =
      Array.isArray(entry.args) && entry.args.every((a) => typeof a === "string")
        ? (entry.args as string[])
        : entry.args === undefined
          ? []
          : null;
    if (args === null) return null;
    const launch: ServerLaunch = { transport: "stdio", command: entry.command, args: [...args] };
    if (isStringMap(entry.env)) launch.env = { ...entry.env };
    if (typeof entry.cwd === "string") launch.cwd = entry.cwd;
    return launch;
  }
  const url = entry.url ?? entry.serverUrl;
  if (typeof url === "string") {
    const transport = type === "sse" ? "sse" : "http";
    const launch: ServerLaunch = { transport, url };
    if (isStringMap(entry.headers)) launch.headers = { ...entry.headers };
    return launch;
  }
  return null;
}

function at(document: Record<string, unknown>, path: string[]): unknown {
  let node: unknown = document;
  for (const key of path) {
    if (!isRecord(node) || !Object.hasOwn(node, key)) return undefined;
    node = node[key];
  }
  return node;
}

/** @internal */
export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function isStringMap(value: unknown): value is Record<string, string> {
  return isRecord(value) && Object.values(value).every((v) => typeof v === "string");
}
