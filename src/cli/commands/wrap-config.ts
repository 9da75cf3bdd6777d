import { existsSync, realpathSync } from "node:fs";
import { join, resolve } from "node:path";
import { type Command, Option } from "commander";
import {
  type ClientConfig,
  clientConfigLocations,
  readClientConfig,
} from "../../config/client-config.js";
import {
  type AirlockLaunch,
  unwrapConfig,
  type WrapResult,
  wrapConfig,
  writeConfigWithBackup,
} from "../../config/wrap.js";
import { DEFAULT_PIN_FILE } from "../../pins/pin-file.js";
import { CLI_DIRECTORY } from "../location.js";
import {
  type OutputFormat,
  paletteFor,
  parseOutputFormat,
  printable,
  writeJson,
} from "../output.js";
import { type DelegationFlags, delegationUsageProblem } from "./proxy-delegation.js";
import { addProxyPassThrough, PROXY_PASS_THROUGH, proxyPassThroughArgs } from "./proxy-options.js";

/** Exit codes of `airlock wrap-config`. */
export const WRAP_EXIT = {
  /** The config was rewritten (or needed no change, or `--dry-run`). */
  done: 0,
  /** Nothing written: no config found, several found without --config, unreadable config, write failure. */
  error: 2,
} as const;

interface WrapCliOptions extends DelegationFlags {
  config?: string;
  pins: string;
  auditLog?: string;
  unwrap?: boolean;
  dryRun?: boolean;
  airlockCommand?: string;
  output: OutputFormat;
}

/**
 * Registers `airlock wrap-config`: rewrite an MCP client config so every stdio server
 * runs behind `airlock proxy` with its own pin-file section; `--unwrap` restores it.
 *
 * @example
 * ```ts
 * import { Command } from "commander";
 * import { registerWrapConfig } from "./wrap-config.js";
 * const program = new Command("airlock");
 * registerWrapConfig(program);
 * await program.parseAsync(["node", "airlock", "wrap-config", "--config", ".mcp.json", "--dry-run"]);
 * ```
 */
export function registerWrapConfig(program: Command): void {
  const command = program
    .command("wrap-config")
    // Usage errors must reach main() (exit 2), not exit the process with commander's 1.
    .exitOverride()
    .description(
      "Route every server of an MCP client config through airlock proxy (--unwrap restores)",
    )
    .option(
      "--config <path>",
      "the config file (default: the one config found for this project or user)",
    )
    .option("--pins <file>", "pin file the wrapped servers use (made absolute)", DEFAULT_PIN_FILE)
    .option("--audit-log <file>", "audit log file for every wrapped server (made absolute)")
    .option("--unwrap", "restore the original server entries")
    .option("--dry-run", "show the result without writing")
    .option(
      "--airlock-command <command>",
      "how the client should start airlock (default: this node and this airlock, by absolute path)",
    )
    .addOption(
      new Option("--output <format>", "text or json").default("text").argParser(parseOutputFormat),
    );
  addProxyPassThrough(command, { defaults: false })
    .addHelpText(
      "after",
      `
Configs found without --config: .mcp.json, .cursor/mcp.json, .vscode/mcp.json in this
directory, then Claude Desktop's claude_desktop_config.json, ~/.claude.json and
~/.cursor/mcp.json. Each stdio server's command becomes
  airlock proxy --pins FILE --server NAME -- <original command and args>
and every other field (env, cwd, unknown ones) is kept. The proxy options given here
(--observe, --agent, --root, --chain, --registry, --didis-url, --didis-token-file,
--capabilities, --verify-timeout, --allow-cache, --max-message-bytes, --max-pages,
--list-timeout, --relist-before-each-call) are written into every wrapped entry, file
paths made absolute; entries already wrapped are left as they are (--unwrap first to
change their options). Remote (url) servers are left as
they are and reported. A backup (<file>.airlock-backup) is written before the file is
replaced. Pin each server first: airlock pin --config <file>.

Exit codes: 0 written (or nothing to change, or --dry-run); 2 nothing written.`,
    )
    .action(async (options: WrapCliOptions) => {
      process.exitCode = await runWrap(options);
    });
}

async function runWrap(options: WrapCliOptions): Promise<number> {
  const json = options.output === "json";
  const fail = (message: string) => {
    if (json) writeJson({ exitCode: WRAP_EXIT.error, error: message });
    else process.stderr.write(`airlock wrap-config: ${printable(message)}\n`);
    return WRAP_EXIT.error;
  };
  let path = options.config;
  if (path === undefined) {
    const found = clientConfigLocations().filter((place) => existsSync(place.path));
    if (found.length === 0) return fail("no MCP client config found: give --config PATH");
    if (found.length > 1) {
      return fail(
        `several MCP client configs found, name one with --config:\n${found.map((f) => `  ${f.path} (${f.kind})`).join("\n")}`,
      );
    }
    path = found[0]!.path;
  }
  const problem = passThroughProblem(options);
  if (problem !== null) return fail(problem);
  let config: ClientConfig;
  try {
    config = readClientConfig(path);
  } catch (err) {
    return fail((err as Error).message);
  }
  let result: WrapResult;
  try {
    result = options.unwrap
      ? unwrapConfig(config)
      : wrapConfig(config, {
          airlock: airlockLaunch(options.airlockCommand),
          pinsPath: resolve(options.pins),
          ...(options.auditLog ? { auditLogPath: resolve(options.auditLog) } : {}),
          proxyArgs: proxyPassThroughArgs(
            options as unknown as Record<string, unknown>,
            process.cwd(),
          ),
        });
  } catch (err) {
    return fail((err as Error).message);
  }
  const changed = result.changes.some((c) => c.action === "wrapped" || c.action === "unwrapped");
  let backup: string | null = null;
  if (changed && !options.dryRun) {
    try {
      backup = await writeConfigWithBackup(path, result.document);
    } catch (err) {
      return fail(`could not write ${path}: ${(err as Error).message}`);
    }
  }
  if (json) {
    writeJson({
      exitCode: WRAP_EXIT.done,
      config: path,
      kind: config.kind,
      written: backup !== null,
      backup,
      changes: result.changes,
      ...(options.dryRun ? { document: result.document } : {}),
    });
    return WRAP_EXIT.done;
  }
  const c = paletteFor(process.stdout);
  const lines = [`${c.bold(printable(path))} (${config.kind})`];
  for (const change of result.changes) {
    const where =
      change.mapPath.length > 1 ? c.dim(` [${printable(change.mapPath.join("."))}]`) : "";
    const label =
      change.action === "wrapped" || change.action === "unwrapped"
        ? c.green(change.action)
        : change.action === "skipped"
          ? c.yellow(change.action)
          : c.dim(change.action.replace("_", " "));
    const detail = change.detail
      ? `: ${printable(change.detail)}`
      : change.section
        ? c.dim(` (pins section ${printable(JSON.stringify(change.section))})`)
        : "";
    lines.push(`  ${label} ${printable(change.name)}${where}${detail}`);
  }
  if (config.hadComments && changed)
    lines.push(
      c.yellow(
        "  note: the file had comments; the rewritten file has none (the backup keeps them)",
      ),
    );
  if (options.dryRun)
    lines.push(c.dim("  dry run: nothing written"), JSON.stringify(result.document, null, 2));
  else if (backup) lines.push(c.green(`  written; backup at ${printable(backup)}`));
  else lines.push(c.dim("  nothing to change"));
  if (!options.unwrap && changed) {
    lines.push(
      c.dim(
        `  restart the client; review tools first with: airlock pin --config ${printable(path)} --pins ${printable(resolve(options.pins))}`,
      ),
    );
  }
  process.stdout.write(`${lines.join("\n")}\n`);
  return WRAP_EXIT.done;
}

/**
 * What is wrong with the proxy options to pass through, or null: a delegation setting
 * that the proxy would refuse to start with (every wrapped server would be lost), a
 * file that does not exist, or proxy options given with --unwrap.
 */
function passThroughProblem(options: WrapCliOptions): string | null {
  const given = PROXY_PASS_THROUGH.filter(
    (spec) => (options as unknown as Record<string, unknown>)[spec.key] !== undefined,
  );
  if (options.unwrap && given.length > 0) {
    return `--unwrap takes no proxy options (got ${given.map((spec) => spec.flags.split(" ")[0]).join(", ")})`;
  }
  const usage = delegationUsageProblem(options);
  if (usage !== null) return usage;
  const files = [
    ...(options.chain ?? []),
    ...[options.capabilities, options.didisTokenFile].filter((f) => f !== undefined),
  ];
  const missing = files.find((file) => !existsSync(file));
  return missing === undefined ? null : `${missing} does not exist (a proxy option names it)`;
}

/**
 * How a client should start airlock. By default the absolute path of this Node.js and
 * of the `bin.js` this airlock runs from (the bundle's, for the installed `airlock`):
 * clients such as Claude Desktop do not start servers with the shell's PATH. Under tsx (development) the `.ts` entry needs `--import tsx`.
 */
function airlockLaunch(command: string | undefined): AirlockLaunch {
  if (command !== undefined) return { command, args: [] };
  const js = join(CLI_DIRECTORY, "bin.js");
  if (existsSync(js)) return { command: process.execPath, args: [realpathSync(js)] };
  // Development: the TypeScript entry, with the tsx loader by absolute URL (the client
  // starts the server in a directory of its choosing).
  const ts = realpathSync(js.replace(/\.js$/, ".ts"));
  return { command: process.execPath, args: ["--import", import.meta.resolve("tsx"), ts] };
}
