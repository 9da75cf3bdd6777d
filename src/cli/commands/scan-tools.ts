import type { Command } from "commander";

/** Registers `airlock scan-tools`. Not built yet: prints a clear message and exits 2. */
export function registerScanTools(program: Command): void {
  program
    .command("scan-tools")
    .description(
      "Check each tool's declared contract against a least-privilege policy (issue 4) [not yet available]",
    )
    .allowUnknownOption(true)
    .allowExcessArguments(true)
    .action(() => {
      process.stderr.write("airlock scan-tools: not available in this release yet\n");
      process.exitCode = 2;
    });
}
