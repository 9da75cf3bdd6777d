import type { Command } from "commander";

/** Registers `airlock proxy`. Not built yet: prints a clear message and exits 2. */
export function registerProxy(program: Command): void {
  program
    .command("proxy")
    .description("Run an MCP server behind the pins (issue 7) [not yet available]")
    .allowUnknownOption(true)
    .allowExcessArguments(true)
    .action(() => {
      process.stderr.write("airlock proxy: not available in this release yet\n");
      process.exitCode = 2;
    });
}
