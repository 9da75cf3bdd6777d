import { Command } from "commander";
import { registerCheck } from "./commands/check.js";
import { registerDelegate } from "./commands/delegate.js";
import { registerDemo } from "./commands/demo.js";
import { registerPin } from "./commands/pin.js";
import { registerProxy } from "./commands/proxy.js";
import { registerScanTools } from "./commands/scan-tools.js";
import { registerWrapConfig } from "./commands/wrap-config.js";
import { VERSION } from "./version.js";

/**
 * Build the `airlock` command. Each subcommand lives in `commands/<name>.ts` and
 * registers itself; exit codes are set on `process.exitCode` by the command.
 */
export function createProgram(): Command {
  const program = new Command("airlock")
    .description(
      "Protect AI agents from the tools they are handed: pin tool definitions, check tool contracts, guard tool calls.",
    )
    .version(VERSION)
    .showHelpAfterError()
    .configureHelp({ sortSubcommands: true })
    // Before the subcommands are added, so each inherits it: usage errors exit 2, not 1.
    .exitOverride();
  registerDemo(program);
  registerScanTools(program);
  registerPin(program);
  registerCheck(program);
  registerProxy(program);
  registerWrapConfig(program);
  registerDelegate(program);
  return program;
}

/** Run the CLI with `argv` (defaults to `process.argv`). */
export async function main(argv: string[] = process.argv): Promise<void> {
  const program = createProgram();
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
