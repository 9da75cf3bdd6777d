#!/usr/bin/env node
// Bundles the two CLI entry points (`airlock`, `airlock-scan-tools`) from the tsc output in
// dist/cli into dist/bundle, so a CLI run loads a few files instead of ~60 ES modules.
// Run by `npm run build` after tsc. See docs/decisions.md ("The CLI ships as a bundle").
//
// Layout contract: every output file sits directly in dist/bundle, two levels below the
// package root like dist/cli/*.js, so `../../package.json` (src/cli/version.ts) and the
// other paths in src/cli/location.ts resolve the same from both.
import { spawnSync } from "node:child_process";
import {
  chmodSync,
  existsSync,
  mkdtempSync,
  readFileSync,
  renameSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
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

/** esbuild plugin: every command module but scan-tools resolves to a stub that throws. */
const onlyScanToolsCommand = {
  name: "only-scan-tools-command",
  setup(builder) {
    builder.onResolve({ filter: /^\.\/commands\/[\w-]+\.js$/ }, (args) =>
      args.path === "./commands/scan-tools.js"
        ? undefined
        : { path: args.path, namespace: "not-in-scan-tools-script" },
    );
    builder.onLoad({ filter: /.*/, namespace: "not-in-scan-tools-script" }, () => ({
      contents:
        "throw new Error('airlock: this command is not part of the scan-tools script (run dist/bundle/bin.js)');",
      loader: "js",
    }));
  },
};

/** What both builds share. */
const common = {
  absWorkingDir: root,
  bundle: true,
  platform: "node",
  target: "node20",
  external,
  // Linked maps are not read at run time (free) and make stack traces readable with
  // `node --enable-source-maps`.
  sourcemap: "linked",
  sourcesContent: true,
  legalComments: "linked",
  metafile: true,
  logLevel: "warning",
};

/** A bundled peer or SDK would ship a second copy next to the user's: fail the build. */
function refuseInlinedExternals(result) {
  const bundled = Object.keys(result.metafile.inputs).filter((input) =>
    external.some((name) => !name.endsWith("/*") && input.includes(`node_modules/${name}/`)),
  );
  if (bundled.length > 0) {
    throw new Error(`bundle-cli: external packages were bundled: ${bundled.join(", ")}`);
  }
}

// Built beside dist/bundle, then swapped in: a CLI started meanwhile never sees half a
// bundle. Same depth, so the relative paths in the source maps stay right.
const staging = mkdtempSync(join(root, "dist", ".bundle-"));
try {
  const result = await build({
    ...common,
    entryPoints: ["dist/cli/bin.js", "dist/cli/scan-tools-bin.js"],
    outdir: staging,
    // Splitting keeps each `await import(...)` a separate chunk, loaded only when used.
    splitting: true,
    format: "esm",
    // Flat names: chunks must stay directly in dist/bundle (the layout contract above).
    entryNames: "[name]",
    chunkNames: "chunk-[hash]",
    // commander is CommonJS; esbuild's ESM output needs a `require` to load it.
    banner: {
      js: "import { createRequire as __airlockCreateRequire } from 'node:module'; const require = __airlockCreateRequire(import.meta.url);",
    },
  });

  // esbuild's metafile says which chunk holds which module: test/cli/bundle.test.ts reads it
  // instead of rebuilding (a rebuild during the suite would swap dist/bundle under the
  // tests that run it), and it helps to see what each chunk holds
  // (https://esbuild.github.io/analyze/). Outside dist/bundle, and not packed.
  writeFileSync(join(root, "dist", "bundle-meta.json"), JSON.stringify(result.metafile));

  refuseInlinedExternals(result);

  // The scan-tools command once more, as one CommonJS script, and the code cache of a
  // first run of it on the bundled example data (see src/cli/code-cache.ts: Node 20 keeps
  // a code cache for scripts only, and compiling is much of a fresh process's scan).
  const script = join(staging, "scan-tools.cjs");
  const scriptResult = await build({
    ...common,
    entryPoints: ["dist/cli/scan-tools-script.js"],
    outfile: script,
    format: "cjs",
    // `import.meta.url` has no CommonJS twin: give the script its own file URL.
    define: { "import.meta.url": "__airlockFileUrl" },
    // Only the scan-tools command: the script never runs another, and the others import
    // the MCP SDK at run time, which a script run through node:vm cannot (no dynamic
    // import there on Node 20).
    plugins: [onlyScanToolsCommand],
    banner: { js: "const __airlockFileUrl = require('node:url').pathToFileURL(__filename).href;" },
  });
  refuseInlinedExternals(scriptResult);
  if (/\bimport\(/.test(readFileSync(script, "utf8"))) {
    throw new Error(
      "bundle-cli: the scan-tools script has a dynamic import(), which node:vm cannot run",
    );
  }
  // mkdtemp makes the directory private (0700), and whether esbuild marks a file with a
  // hashbang executable depends on its version and the umask: say both outright, so any user
  // of a shared install can run the bins.
  chmodSync(staging, 0o755);
  for (const bin of Object.values(pkg.bin)) {
    const name = /^(?:\.\/)?dist\/bundle\/([\w-]+\.js)$/.exec(bin)?.[1];
    if (name === undefined) throw new Error(`bundle-cli: bin ${bin} is not in dist/bundle`);
    chmodSync(join(staging, name), 0o755);
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

// npx runs a project's own bin through a link in its cache (~/.npm/_npx), made once per
// project path and not remade when package.json's bin moves: a cache made when the bins
// were dist/cli/*.js still runs those. They are the same CLI (test/cli/bundle.test.ts), so
// they stay executable too.
for (const entry of ["bin.js", "scan-tools-bin.js"]) {
  chmodSync(join(root, "dist", "cli", entry), 0o755);
}

// Trained where it will run, so the names V8 keeps in the cache are the real paths.
const cache = join(outdir, "scan-tools.cache");
const train = spawnSync(
  process.execPath,
  [
    "--input-type=module",
    "-e",
    `import { writeScanToolsCache } from ${JSON.stringify(pathToFileURL(join(root, "dist", "cli", "code-cache.js")).href)};
await writeScanToolsCache(${JSON.stringify(join(outdir, "scan-tools.cjs"))}, ${JSON.stringify(cache)}, ["node", "airlock", "scan-tools", ${JSON.stringify(join(root, "examples", "data", "scan"))}, "--output", "json"]);`,
  ],
  { cwd: root, stdio: ["ignore", "ignore", "inherit"] },
);
if (!existsSync(cache)) {
  throw new Error(`bundle-cli: the scan-tools code cache was not written (exit ${train.status})`);
}
