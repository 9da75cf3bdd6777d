import type { Command } from "commander";
import { readBoundedFileSync } from "../../lib/bounded-read.js";
import { colorEnabled } from "../output.js";

/** Options of `airlock scan-tools`, as commander parses them. */
interface ScanToolsFlags {
  policy?: string;
  policyFile?: string;
  output: string;
  suppressions?: string;
  hidePassed?: boolean;
}

const OUTPUTS = ["text", "json", "sarif", "markdown"];

/**
 * Registers `airlock scan-tools [PATH]` (also installed as `airlock-scan-tools`). The scan
 * library is imported only when the command runs, so `airlock --help` and the other
 * commands stay fast, and this command never loads the MCP SDK.
 */
export function registerScanTools(program: Command): void {
  program
    .command("scan-tools")
    .description(
      "Check each tool's declared contract against a least-privilege policy, offline. PATH: a tool file, a tools/list or initialize answer, an MCP client config with inlined tools, a pin file, a directory of these, or - for stdin.",
    )
    .argument("[path]", "file, directory, or - for standard input", ".")
    .option(
      "--policy <name>",
      "permissive | read-only | strict | deny-by-default (default: permissive)",
    )
    .option(
      "--policy-file <file>",
      "a JSON policy file (see docs/scan-tools.md); excludes --policy",
    )
    .option(
      "--output <format>",
      "text | json | sarif | markdown (a report to paste in a pull request)",
      "text",
    )
    .option("--suppressions <file>", "reviewed per-finding exceptions (JSON)")
    .option("--hide-passed", "text and markdown output: list only tools with findings")
    .addHelpText(
      "after",
      "\nExit codes (identical for every --output):\n  0  every tool passes\n  1  warnings only\n  2  a failure, or unusable input (missing path, invalid file, bad policy)\n\nDocs: docs/scan-tools.md (rules, policies, inputs), docs/ci.md (GitHub Actions).",
    )
    .action(async (path: string, flags: ScanToolsFlags) => {
      process.exitCode = await runScanTools(path, flags);
    });
}

async function runScanTools(path: string, flags: ScanToolsFlags): Promise<number> {
  const fail = (message: string) => {
    process.stderr.write(`airlock scan-tools: ${message}\n`);
    return 2;
  };
  if (!OUTPUTS.includes(flags.output)) {
    return fail(
      `--output must be one of ${OUTPUTS.join(", ")} (got ${JSON.stringify(flags.output)})`,
    );
  }
  if (flags.policy !== undefined && flags.policyFile !== undefined) {
    return fail("give --policy or --policy-file, not both (a policy file can extend a preset)");
  }
  const scan = await import("../../scan/index.js");
  let policy: import("../../scan/index.js").SecurityPolicy;
  let suppressions: import("../../scan/index.js").Suppression[] = [];
  try {
    policy =
      flags.policyFile !== undefined
        ? await scan.loadPolicyFile(flags.policyFile)
        : scan.resolvePolicy(flags.policy ?? "permissive");
    if (flags.suppressions !== undefined)
      suppressions = await scan.loadSuppressions(flags.suppressions);
  } catch (err) {
    return fail((err as Error).message);
  }

  let set: import("../../scan/index.js").ToolSet;
  try {
    // Progress for large directories, on stderr and only for a person watching.
    const progress = process.stderr.isTTY
      ? (file: string, index: number, total: number) => {
          if (total >= 50 && index % 25 === 0) {
            process.stderr.write(`airlock scan-tools: reading ${index + 1}/${total}: ${file}\n`);
          }
        }
      : undefined;
    // A one-shot process: blocking reads are faster and nothing else waits on the loop.
    set = await scan.loadToolDefs(path, { onFile: progress, blocking: true });
  } catch (err) {
    if (!(err instanceof scan.ScanInputError)) throw err;
    // Unusable input still yields a report in the chosen format, with exit code 2.
    set = {
      tools: [],
      instructions: [],
      sources: [],
      problems: [
        {
          severity: "error",
          code:
            err.code === "SCAN_INPUT_MISSING"
              ? "INPUT_MISSING"
              : err.code === "SCAN_INPUT_UNREADABLE"
                ? "INPUT_UNREADABLE"
                : "INPUT_INVALID",
          source: err.source,
          message: err.message,
        },
      ],
    };
    if (flags.output !== "text") process.stderr.write(`airlock scan-tools: ${err.message}\n`);
  }

  const report = scan.scanTools(set, policy, { policyName: policy.name, suppressions });
  if (flags.output !== "text" && process.stderr.isTTY) {
    process.stderr.write(
      `airlock scan-tools: ${report.toolCount} tools from ${set.sources.length} file(s), policy ${policy.name}: exit ${report.exitCode}\n`,
    );
  }
  if (flags.output === "json") {
    process.stdout.write(scan.formatJson(report));
  } else if (flags.output === "sarif") {
    const [{ VERSION }, { MAX_INPUT_BYTES }] = await Promise.all([
      import("../version.js"),
      import("../../scan/load.js"),
    ]);
    const texts = new Map<string, string | undefined>();
    const sourceText = (source: string) => {
      if (!texts.has(source)) {
        // Only for line numbers; read with the loader's bounds (the file may have changed).
        const read = readBoundedFileSync(source, MAX_INPUT_BYTES);
        texts.set(source, read.ok ? read.bytes.toString("utf8") : undefined);
      }
      return texts.get(source);
    };
    process.stdout.write(scan.formatSarif(report, { version: VERSION, sourceText }));
  } else if (flags.output === "markdown") {
    process.stdout.write(scan.formatMarkdown(report, { showPassed: flags.hidePassed !== true }));
  } else {
    process.stdout.write(
      scan.formatText(report, {
        showPassed: flags.hidePassed !== true,
        color: colorEnabled(process.stdout),
      }),
    );
  }
  return report.exitCode;
}
