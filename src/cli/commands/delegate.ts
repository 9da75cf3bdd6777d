import type { Command } from "commander";

/** Registers `airlock delegate`. Not built yet: prints a clear message and exits 2. */
export function registerDelegate(program: Command): void {
  program
    .command("delegate")
    .description(
      "Delegation keys and chains: keygen, issue, verify, serve (issue 5) [not yet available]",
    )
    .allowUnknownOption(true)
    .allowExcessArguments(true)
    .action(() => {
      process.stderr.write("airlock delegate: not available in this release yet\n");
      process.exitCode = 2;
    });
}
