import { Command } from "commander";
import { VERSION } from "./version.js";

/** Adds one subcommand (and its options, help and action) to the `airlock` program. */
type Register = (program: Command) => void;

// Each subcommand lives in `commands/<name>.ts` and registers itself. The modules are
// imported only when needed, so a run loads the code of the command it runs and not the
// others' (the pins, the MCP client, the delegation keys). Registration order as before.
const COMMANDS: Readonly<Record<string, () => Promise<Register>>> = {
  demo: async () => (await import("./commands/demo.js")).registerDemo,
  "scan-tools": async () => (await import("./commands/scan-tools.js")).registerScanTools,
  pin: async () => (await import("./commands/pin.js")).registerPin,
  check: async () => (await import("./commands/check.js")).registerCheck,
  proxy: async () => (await import("./commands/proxy.js")).registerProxy,
  "wrap-config": async () => (await import("./commands/wrap-config.js")).registerWrapConfig,
  delegate: async () => (await import("./commands/delegate.js")).registerDelegate,
  audit: async () => (await import("./commands/audit.js")).registerAudit,
};

/** The name of every `airlock` subcommand, in registration order. */
export const COMMAND_NAMES: readonly string[] = Object.keys(COMMANDS);

/**
 * The subcommands a run with these user arguments can reach. Commander dispatches on
 * the first operand and the program's own options are boolean, so when the first
 * argument names a command, only that command runs (the program's `--version` still
 * works anywhere: it is not a subcommand's). A lone `--version` needs none. Anything
 * else (no arguments, `--help`, `help`, an unknown name, an option first) gets every
 * command, so help lists them all and a typo gets commander's suggestion.
 */
function commandsFor(userArgs: readonly string[]): readonly string[] {
  const first = userArgs[0];
  if (userArgs.length === 1 && (first === "--version" || first === "-V")) return [];
  if (first !== undefined && Object.hasOwn(COMMANDS, first)) return [first];
  return COMMAND_NAMES;
}

/**
 * Build the `airlock` command with the named subcommands (default: all of them). Exit
 * codes are set on `process.exitCode` by each command.
 *
 * @example
 * ```ts
 * import { createProgram } from "./program.js";
 * const program = await createProgram();
 * console.log(program.commands.map((command) => command.name()));
 * ```
 */
export async function createProgram(names: readonly string[] = COMMAND_NAMES): Promise<Command> {
  const program = new Command("airlock")
    .description(
      "Protect AI agents from the tools they are handed: pin tool definitions, check tool contracts, guard tool calls.",
    )
    .version(VERSION)
    .showHelpAfterError()
    .configureHelp({ sortSubcommands: true })
    // Before the subcommands are added, so each inherits it: usage errors exit 2, not 1.
    .exitOverride();
  const registers = await Promise.all(
    names.map((name) => {
      const load = Object.hasOwn(COMMANDS, name) ? COMMANDS[name] : undefined;
      if (load === undefined) throw new TypeError(`airlock has no command ${name}`);
      return load();
    }),
  );
  for (const register of registers) register(program);
  return program;
}

/**
 * Run the CLI with `argv` (defaults to `process.argv`).
 *
 * @example
 * ```ts
 * import { main } from "./program.js";
 * await main([process.execPath, "airlock", "scan-tools", "tools.json", "--output", "json"]);
 * ```
 */
export async function main(argv: string[] = process.argv): Promise<void> {
  const program = await createProgram(commandsFor(argv.slice(2)));
  try {
    await program.parseAsync(argv);
  } catch (err) {
    const code = (err as { code?: string }).code;
    if (
      code === "commander.helpDisplayed" ||
      code === "commander.version" ||
      code === "commander.help"
    ) {
      process.exitCode = 0;
      return;
    }
    if (typeof code === "string" && code.startsWith("commander.")) {
      // commander already printed the usage error.
      process.exitCode = 2;
      return;
    }
    process.stderr.write(`airlock: ${(err as Error).message ?? String(err)}\n`);
    process.exitCode = 2;
  }
}
