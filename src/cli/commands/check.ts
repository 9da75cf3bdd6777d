import type { Command } from "commander";

/** Registers `airlock check`. Not built yet: prints a clear message and exits 2. */
export function registerCheck(program: Command): void {
  program
    .command("check")
    .description("Compare servers' tools with the pin file, for CI (issue 7) [not yet available]")
    .allowUnknownOption(true)
    .allowExcessArguments(true)
    .action(() => {
      process.stderr.write("airlock check: not available in this release yet\n");
      process.exitCode = 2;
    });
}
