/**
 * A subpath built on an optional peer names the package to install instead of Node's raw
 * ERR_MODULE_NOT_FOUND (issue 13, item 9). Run in a real Node process (vitest resolves
 * imports itself, with other errors): a name that is not installed, a subpath an
 * installed package does not export, and one it does.
 */
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { runProcess } from "../helpers/process.js";

const root = fileURLToPath(new URL("../..", import.meta.url));

/** What `importPeer(request)` gives in a plain Node process (through tsx). */
async function importInNode(specifier: string, peer: string): Promise<Record<string, unknown>> {
  const module = JSON.stringify(join(root, "src/lib/peer-import.ts"));
  const request = JSON.stringify({ specifier, peer, subpath: "agent-airlock/example" });
  const script = `const { importPeer } = await import(${module});
try { const m = await importPeer(${request}); console.log(JSON.stringify({ loaded: Object.keys(m).length > 0 })); }
catch (e) { console.log(JSON.stringify({ name: e.name, code: e.code, peer: e.peer, subpath: e.subpath, message: e.message, cause: e.cause?.code })); }`;
  const run = await runProcess(
    process.execPath,
    ["--import", import.meta.resolve("tsx"), "--input-type=module", "-e", script],
    { cwd: root },
  );
  expect(run.stderr).toBe("");
  return JSON.parse(run.stdout) as Record<string, unknown>;
}

describe("importPeer, in a real Node process", () => {
  it("a peer that is not installed: PEER_DEPENDENCY_MISSING naming it and the subpath", async () => {
    const error = await importInNode("airlock-no-such-peer/tools", "airlock-no-such-peer");
    expect(error).toMatchObject({
      name: "PeerDependencyError",
      code: "PEER_DEPENDENCY_MISSING",
      peer: "airlock-no-such-peer",
      subpath: "agent-airlock/example",
      cause: "ERR_MODULE_NOT_FOUND",
    });
    expect(error.message).toContain("npm install airlock-no-such-peer");
  });

  it("an installed peer without the subpath asked for: PEER_DEPENDENCY_INCOMPATIBLE", async () => {
    const error = await importInNode("zod/no-such-subpath", "zod");
    expect(error).toMatchObject({
      name: "PeerDependencyError",
      code: "PEER_DEPENDENCY_INCOMPATIBLE",
      cause: "ERR_PACKAGE_PATH_NOT_EXPORTED",
    });
    expect(error.message).toContain("zod/no-such-subpath");
  });

  it("an installed peer loads", async () => {
    expect(await importInNode("zod", "zod")).toEqual({ loaded: true });
  });
});
