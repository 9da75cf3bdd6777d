import type { Command } from "commander";

/** Registers `airlock wrap-config`. Not built yet: prints a clear message and exits 2. */
export function registerWrapConfig(program: Command): void {
  program
    .command("wrap-config")
    .description(
      "Route every server of an MCP client config through airlock proxy (issue 7) [not yet available]",
    )
    .allowUnknownOption(true)
    .allowExcessArguments(true)
    .action(() => {
      process.stderr.write("airlock wrap-config: not available in this release yet\n");
      process.exitCode = 2;
    });
}
