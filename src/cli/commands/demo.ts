import { readFileSync } from "node:fs";
import { join, relative } from "node:path";
import type { Command } from "commander";
import pc from "picocolors";
import { guardFromPinFile, parsePinFile } from "../../pins/pin-file.js";
import type { ListingCheck } from "../../pins/types.js";
import { PACKAGE_ROOT } from "../location.js";

// examples/data ships with the package.
const dataDir = join(PACKAGE_ROOT, "examples", "data");

function renderCheck(check: ListingCheck): string {
  const lines: string[] = [];
  for (const name of check.admitted)
    lines.push(`   ${pc.green("✔")} ${name.padEnd(18)} ${pc.dim("allow_pinned")}`);
  for (const tool of check.refused) {
    const verdict = tool.decision?.verdict ?? tool.reason;
    lines.push(
      `   ${pc.red("✘")} ${String(tool.name ?? `#${tool.index}`).padEnd(18)} ${pc.red(verdict)}`,
    );
    lines.push(`       ${pc.dim(tool.detail)}`);
  }
  lines.push(
    `   → admitted: ${check.admitted.join(", ") || "none"}; refused: ${check.refused.length}`,
  );
  return lines.join("\n");
}

/** Registers `airlock demo`: the pin guard on the bundled example data. */
export function registerDemo(program: Command): void {
  program
    .command("demo")
    .description(
      "Check the bundled example listings against the bundled pin file (a first look at the pins)",
    )
    .option("-o, --output <format>", "text or json", "text")
    .action((options: { output: string }) => {
      if (options.output !== "text" && options.output !== "json") {
        process.stderr.write(`airlock demo: --output must be text or json\n`);
        process.exitCode = 2;
        return;
      }
      const pinPath = join(dataDir, "airlock.pins.json");
      const guard = guardFromPinFile(parsePinFile(readFileSync(pinPath, "utf8")), {
        server: "weather",
      });
      const read = (file: string) =>
        JSON.parse(readFileSync(join(dataDir, file), "utf8")) as unknown;
      const clean = guard.checkListing(read("weather.tools.json"));
      const rugPull = guard.checkListing(read("weather.rug-pull.tools.json"));
      if (options.output === "json") {
        process.stdout.write(`${JSON.stringify({ pinFile: pinPath, clean, rugPull }, null, 2)}\n`);
        return;
      }
      const shown = relative(process.cwd(), dataDir) || ".";
      process.stdout.write(
        [
          pc.bold("airlock demo: tool-definition pins on bundled example data"),
          "",
          `1. An operator reviewed the "weather" server and approved its ${guard.pinnedNames().length} tools:`,
          `   ${join(shown, "airlock.pins.json")}`,
          "",
          `2. The server lists exactly what was approved (${join(shown, "weather.tools.json")}):`,
          renderCheck(clean),
          "",
          `3. Later, the same server lists something else (${join(shown, "weather.rug-pull.tools.json")}):`,
          renderCheck(rugPull),
          "",
          'A client that calls admitToolsList(guard, result, { onDrift: "filter" }) on every listing exposes only',
          'the admitted tools; with the default "raise" it refuses the listing. Nothing unseen is ever learned.',
          "Next: docs/pins.md (library), docs/cli.md (airlock pin / check / proxy).",
          "",
        ].join("\n"),
      );
    });
}
