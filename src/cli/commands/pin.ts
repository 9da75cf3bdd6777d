import type { Command } from "commander";

/** Registers `airlock pin`. Not built yet: prints a clear message and exits 2. */
export function registerPin(program: Command): void {
  program
    .command("pin")
    .description(
      "Review and approve a server's tools into a pin file (issue 7) [not yet available]",
    )
    .allowUnknownOption(true)
    .allowExcessArguments(true)
    .action(() => {
      process.stderr.write("airlock pin: not available in this release yet\n");
      process.exitCode = 2;
    });
}
