#!/usr/bin/env node
import { runScanToolsFromCache } from "./code-cache.js";

// `airlock-scan-tools ARGS` is `airlock scan-tools ARGS`.
const argv = [process.argv[0]!, process.argv[1]!, "scan-tools", ...process.argv.slice(2)];
if (!(await runScanToolsFromCache(argv))) {
  const { main } = await import("./program.js");
  await main(argv);
}
