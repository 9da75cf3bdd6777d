import type { Command } from "commander";

/** Registers `airlock demo` (filled in by the foundation work). */
export function registerDemo(program: Command): void {
  program
    .command("demo")
    .description("Check the bundled example listings against the bundled pin file")
    .action(() => {
      process.stdout.write("demo: pending\n");
    });
}
