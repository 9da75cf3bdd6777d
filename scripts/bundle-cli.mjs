#!/usr/bin/env node
// Bundles the two CLI entry points (`airlock`, `airlock-scan-tools`) from the tsc output in
// dist/cli into dist/bundle, so a CLI run loads a few files instead of ~60 ES modules.
// Run by `npm run build` after tsc. See docs/decisions.md ("The CLI ships as a bundle").
//
// Layout contract: every output file sits directly in dist/bundle, two levels below the
// package root like dist/cli/*.js, so `../../package.json` (src/cli/version.ts) and the
// other paths in src/cli/location.ts resolve the same from both.
import { mkdtempSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { build } from "esbuild";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const outdir = join(root, "dist", "bundle");
const pkg = JSON.parse(readFileSync(join(root, "package.json"), "utf8"));

// Kept out of the bundle and resolved from node_modules at run time, as from dist/cli:
// every peer (optional integrations and the native better-sqlite3: the user picks the
// version), and the heavy runtime dependencies, which only lazily loaded commands import.
const HEAVY_DEPENDENCIES = ["@modelcontextprotocol/sdk", "ajv", "ajv-formats"];
const external = [...Object.keys(pkg.peerDependencies ?? {}), ...HEAVY_DEPENDENCIES].flatMap(
  (name) => [name, `${name}/*`],
);

// Built beside dist/bundle, then swapped in: a CLI started meanwhile never sees half a
// bundle. Same depth, so the relative paths in the source maps stay right.
const staging = mkdtempSync(join(root, "dist", ".bundle-"));
try {
  const result = await build({
    absWorkingDir: root,
    entryPoints: ["dist/cli/bin.js", "dist/cli/scan-tools-bin.js"],
    outdir: staging,
    bundle: true,
    // Splitting keeps each `await import(...)` a separate chunk, loaded only when used.
    splitting: true,
    format: "esm",
    platform: "node",
    target: "node20",
    external,
    // Flat names: chunks must stay directly in dist/bundle (the layout contract above).
    entryNames: "[name]",
    chunkNames: "chunk-[hash]",
    // commander is CommonJS; esbuild's ESM output needs a `require` to load it.
    banner: {
      js: "import { createRequire as __airlockCreateRequire } from 'node:module'; const require = __airlockCreateRequire(import.meta.url);",
    },
    // Linked maps are not read at run time (free) and make stack traces readable with
    // `node --enable-source-maps`.
    sourcemap: "linked",
    sourcesContent: true,
    legalComments: "linked",
    metafile: true,
    logLevel: "warning",
  });

  // `node scripts/bundle-cli.mjs --metafile FILE` keeps esbuild's metafile, to see what
  // each chunk holds (https://esbuild.github.io/analyze/).
  const metafileArg = process.argv.indexOf("--metafile");
  if (metafileArg !== -1) {
    writeFileSync(
      process.argv[metafileArg + 1] ?? "bundle-meta.json",
      JSON.stringify(result.metafile),
    );
  }

  // A bundled peer or SDK would ship a second copy next to the user's: fail the build.
  const bundled = Object.keys(result.metafile.inputs).filter((input) =>
    external.some((name) => !name.endsWith("/*") && input.includes(`node_modules/${name}/`)),
  );
  if (bundled.length > 0) {
    throw new Error(`bundle-cli: external packages were bundled: ${bundled.join(", ")}`);
  }

  const previous = `${staging}-previous`;
  try {
    renameSync(outdir, previous);
  } catch (err) {
    if (err.code !== "ENOENT") throw err;
  }
  renameSync(staging, outdir);
  rmSync(previous, { recursive: true, force: true });
} finally {
  rmSync(staging, { recursive: true, force: true });
}
