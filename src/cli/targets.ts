import { type Command, Option } from "commander";
import { defaultSection, readClientConfig } from "../config/client-config.js";
import { wrappedCommand } from "../config/wrap.js";
import { DEFAULT_SERVER, type PinFile } from "../pins/pin-file.js";
import type { ToolSource } from "./connect.js";
import { parseOutputFormat, parseReportFormat, positiveInteger } from "./output.js";

/**
 * The options every command that lists a server shares: where the tools come from
 * (`-- COMMAND ARGS`, `--url` with `--header`, `--from`), `--output`, and the listing
 * limits (`markdown`: `--output` also takes `markdown`). Command-specific options (`--pins`, `--server`, `--config`, ...) stay with the
 * command, since their help differs.
 */
export function addServerSourceOptions(
  command: Command,
  options: { markdown?: boolean } = {},
): Command {
  const output = options.markdown
    ? new Option(
        "--output <format>",
        "text, json or markdown (a report to paste in a pull request)",
      )
        .default("text")
        .argParser(parseReportFormat)
    : new Option("--output <format>", "text or json").default("text").argParser(parseOutputFormat);
  return command
    .option("--url <url>", "a Streamable HTTP server")
    .option("--sse", "--url is a legacy HTTP+SSE server (its event-stream URL)")
    .option("--header <header...>", 'HTTP header for --url, "Name: value"')
    .option("--from <file>", "a saved tools/list answer instead of a live server")
    .addOption(output)
    .option("--max-pages <n>", "page cap per listing", positiveInteger, 100)
    .option(
      "--timeout <ms>",
      "per-request timeout when talking to a server",
      positiveInteger,
      30_000,
    )
    .argument("[command...]", "server command line after --");
}

/** One server a command works on: its pin-file section and where its tools come from. */
export interface Target {
  section: string;
  /** Null when there is no way to reach it (`problem` says why). */
  source: ToolSource | null;
  problem?: string;
}

/** The target options `pin` and `check` share. */
export interface TargetOptions {
  server?: string;
  url?: string;
  sse?: boolean;
  header?: string[];
  from?: string;
  config?: string;
}

/**
 * Work out the servers a command means: `-- COMMAND ARGS` (stdio), `--url` (Streamable
 * HTTP), `--from FILE` (a saved listing), `--config PATH` (every server of a client
 * config; wrapped entries are unwrapped to their real command), or, with none of these,
 * every section of the pin file that records its `source`.
 *
 * @example
 * ```ts
 * import { resolveTargets } from "./targets.js";
 * const [target] = resolveTargets({ server: "fs" }, ["node", "server.js"], null);
 * console.log(target?.source); // { kind: "stdio", command: "node", args: ["server.js"] }
 * ```
 */
export function resolveTargets(
  options: TargetOptions,
  command: readonly string[],
  pinFile: PinFile | null,
): Target[] {
  const given = [
    command.length > 0,
    options.url !== undefined,
    options.from !== undefined,
    options.config !== undefined,
  ];
  if (given.filter(Boolean).length > 1) {
    throw new Error("give only one of: -- COMMAND ARGS, --url, --from, --config");
  }
  const single = (source: ToolSource): Target[] => [
    { section: options.server ?? onlySection(pinFile) ?? DEFAULT_SERVER, source },
  ];
  if (command.length > 0) {
    return single({ kind: "stdio", command: command[0]!, args: command.slice(1) });
  }
  if (options.sse === true && options.url === undefined) throw new Error("--sse needs --url");
  if (options.url !== undefined) {
    const headers = parseHeaders(options.header ?? []);
    const kind = options.sse === true ? "sse" : "http";
    return single({ kind, url: options.url, ...(headers ? { headers } : {}) });
  }
  if (options.from !== undefined) return single({ kind: "file", path: options.from });
  if (options.config !== undefined) {
    const config = readClientConfig(options.config);
    const targets: Target[] = [];
    for (const server of config.servers) {
      const wrapped = wrappedCommand(server.entry);
      const section = wrapped?.section ?? defaultSection(server);
      if (
        options.server !== undefined &&
        section !== options.server &&
        server.name !== options.server
      )
        continue;
      const launch = server.launch;
      if (wrapped) {
        const env = launch?.transport === "stdio" ? launch.env : undefined;
        const cwd = launch?.transport === "stdio" ? launch.cwd : undefined;
        targets.push({
          section,
          source: {
            kind: "stdio",
            command: wrapped.command,
            args: wrapped.args,
            ...(env ? { env } : {}),
            ...(cwd ? { cwd } : {}),
          },
        });
      } else if (launch?.transport === "stdio") {
        targets.push({
          section,
          source: {
            kind: "stdio",
            command: launch.command,
            args: launch.args,
            ...(launch.env ? { env: launch.env } : {}),
            ...(launch.cwd ? { cwd: launch.cwd } : {}),
          },
        });
      } else if (launch?.transport === "http" || launch?.transport === "sse") {
        targets.push({
          section,
          source: {
            kind: launch.transport,
            url: launch.url,
            ...(launch.headers ? { headers: launch.headers } : {}),
          },
        });
      } else {
        targets.push({
          section,
          source: null,
          problem: "the config entry has no command or url airlock understands",
        });
      }
    }
    if (options.server !== undefined && targets.length === 0) {
      throw new Error(`${options.config} has no server ${JSON.stringify(options.server)}`);
    }
    return targets;
  }
  if (!pinFile) return [];
  const sections = Object.keys(pinFile.servers).filter(
    (name) => options.server === undefined || name === options.server,
  );
  return sections.map((section) => {
    const source = sourceFromRecord(pinFile.servers[section]?.source);
    return source
      ? { section, source }
      : {
          section,
          source: null,
          problem:
            "the pin file does not record how to reach this server: give -- COMMAND ARGS, --url, --from or --config",
        };
  });
}

function onlySection(pinFile: PinFile | null): string | undefined {
  const names = pinFile ? Object.keys(pinFile.servers) : [];
  return names.length === 1 ? names[0] : undefined;
}

/** `--header "Name: value"` options as a header map. */
export function parseHeaders(values: readonly string[]): Record<string, string> | undefined {
  if (values.length === 0) return undefined;
  const headers: Record<string, string> = {};
  for (const value of values) {
    const colon = value.indexOf(":");
    if (colon <= 0)
      throw new Error(`--header must look like "Name: value", got ${JSON.stringify(value)}`);
    headers[value.slice(0, colon).trim()] = value.slice(colon + 1).trim();
  }
  return headers;
}

/**
 * What a pin file records about how to reach a server (`source` of a section). Only
 * the command line or the URL: environment values and headers may hold secrets and
 * are never written to the pin file.
 */
export function sourceRecord(source: ToolSource): Record<string, unknown> | undefined {
  if (source.kind === "stdio") {
    return {
      transport: "stdio",
      command: source.command,
      args: [...source.args],
      ...(source.cwd ? { cwd: source.cwd } : {}),
    };
  }
  if (source.kind === "http" || source.kind === "sse") {
    return { transport: source.kind, url: source.url };
  }
  return undefined;
}

/** The inverse of {@link sourceRecord}; null for anything else. */
export function sourceFromRecord(record: unknown): ToolSource | null {
  if (typeof record !== "object" || record === null) return null;
  const r = record as Record<string, unknown>;
  if (
    r.transport === "stdio" &&
    typeof r.command === "string" &&
    Array.isArray(r.args) &&
    r.args.every((a) => typeof a === "string")
  ) {
    return {
      kind: "stdio",
      command: r.command,
      args: [...(r.args as string[])],
      ...(typeof r.cwd === "string" ? { cwd: r.cwd } : {}),
    };
  }
  if ((r.transport === "http" || r.transport === "sse") && typeof r.url === "string") {
    return { kind: r.transport, url: r.url };
  }
  return null;
}

/** A short description of a source for messages. */
export function describeSource(source: ToolSource): string {
  if (source.kind === "stdio") return [source.command, ...source.args].join(" ");
  if (source.kind === "http" || source.kind === "sse") return source.url;
  return source.path;
}
