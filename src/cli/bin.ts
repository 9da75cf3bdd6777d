#!/usr/bin/env node
import { runScanToolsFromCache } from "./code-cache.js";

// `scan-tools` runs from the code-cached script when the bundle has one (code-cache.ts).
if (!(await runScanToolsFromCache(process.argv))) {
  const { main } = await import("./program.js");
  await main();
}
