#!/usr/bin/env node
import { main } from "./program.js";

// `airlock-scan-tools ARGS` is `airlock scan-tools ARGS`.
await main([process.argv[0]!, process.argv[1]!, "scan-tools", ...process.argv.slice(2)]);
