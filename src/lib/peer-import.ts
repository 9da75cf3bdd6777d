/**
 * Loading an optional peer dependency for the subpath built on it. A static `import` of a
 * missing package fails with Node's raw `ERR_MODULE_NOT_FOUND`, which names neither the
 * subpath nor the fix; importing the peer here turns that into a
 * {@link PeerDependencyError} with a stable code naming the package to install.
 *
 * Private (src/lib).
 */
import { PeerDependencyError } from "../errors.js";

/** Who needs which package: the specifier imported, its npm package, the subpath asking. */
export interface PeerImport {
  /** What to import (`@langchain/core/tools`). */
  specifier: string;
  /** The npm package that provides it (`@langchain/core`). */
  peer: string;
  /** The agent-airlock subpath that needs it (`agent-airlock/langchain`). */
  subpath: string;
}

/**
 * Import an optional peer, or throw `PEER_DEPENDENCY_MISSING` when the package is not
 * installed and `PEER_DEPENDENCY_INCOMPATIBLE` when it is but lacks the specifier (a
 * version out of range). Any other failure (the peer itself is broken) is rethrown as is.
 *
 * @example
 * ```ts
 * import { importPeer } from "../lib/peer-import.js";
 * const tools = await importPeer<typeof import("@langchain/core/tools")>({
 *   specifier: "@langchain/core/tools", peer: "@langchain/core", subpath: "agent-airlock/langchain",
 * });
 * console.log(typeof tools.DynamicStructuredTool); // "function"
 * ```
 */
export async function importPeer<T>(request: PeerImport): Promise<T> {
  try {
    return (await import(request.specifier)) as T;
  } catch (err) {
    const code = (err as { code?: unknown }).code;
    const message = String((err as { message?: unknown }).message ?? "");
    const install = `npm install ${request.peer} (the supported versions are in agent-airlock's peerDependencies)`;
    if (code === "ERR_MODULE_NOT_FOUND" && message.includes(`'${request.peer}'`)) {
      throw new PeerDependencyError(
        "PEER_DEPENDENCY_MISSING",
        request.peer,
        request.subpath,
        `${request.subpath} needs the optional peer dependency ${request.peer}, which is not installed: ${install}`,
        { cause: err },
      );
    }
    if (code === "ERR_PACKAGE_PATH_NOT_EXPORTED" && message.includes(request.peer)) {
      throw new PeerDependencyError(
        "PEER_DEPENDENCY_INCOMPATIBLE",
        request.peer,
        request.subpath,
        `${request.subpath} needs ${request.specifier}, which the installed ${request.peer} does not provide (a version outside the supported range): ${install}`,
        { cause: err },
      );
    }
    throw err;
  }
}
