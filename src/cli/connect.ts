import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import { AirlockError } from "../errors.js";
import { readBoundedFile } from "../lib/bounded-read.js";
import { strictUtf8Text } from "../lib/utf8.js";
import { toolPageSource } from "../mcp/tool-page-source.js";
import { collectToolPages } from "../mcp/tool-pages.js";
import { VERSION } from "./version.js";

/** Where a command gets a server's tools from. */
export type ToolSource =
  | { kind: "stdio"; command: string; args: string[]; env?: Record<string, string>; cwd?: string }
  | { kind: "http"; url: string; headers?: Record<string, string> }
  /** A legacy HTTP+SSE server (protocol 2024-11-05): an event stream plus a POST endpoint. */
  | { kind: "sse"; url: string; headers?: Record<string, string> }
  | { kind: "file"; path: string };

/** Codes of {@link ToolSourceError}. */
export type ToolSourceErrorCode =
  /** The server could not be started or reached, or did not complete `initialize`. */
  | "SOURCE_CONNECT"
  /** The server failed `tools/list` (an error answer, a timeout, a pagination fault). */
  | "SOURCE_LISTING"
  /** A saved listing file could not be read or is not a listing. */
  | "SOURCE_FILE";

/**
 * A server's tools could not be obtained. The CLI reports it and exits 2.
 *
 * @example
 * ```ts
 * import { ToolSourceError, listToolsFrom } from "./connect.js";
 * try { await listToolsFrom({ kind: "file", path: "missing.json" }); }
 * catch (err) { if (err instanceof ToolSourceError) console.log(err.code); } // "SOURCE_FILE"
 * ```
 */
export class ToolSourceError extends AirlockError {
  declare readonly code: ToolSourceErrorCode;
  constructor(code: ToolSourceErrorCode, message: string, options?: { cause?: unknown }) {
    super(code, message, options);
  }
}

/** What {@link listToolsFrom} returns. */
export interface ListedTools {
  /** Every tool of every page, exactly as the server sent it (no SDK parsing). */
  tools: unknown[];
  pages: number;
  /** `serverInfo` of the `initialize` answer, when connected. */
  serverInfo?: { name?: string; version?: string };
}

/** The SDK would parse (and strip) tool fields: take the result as sent. */
// A result schema that accepts the answer as sent (the SDK's own parsing would strip
// unknown fields): pins are made from exactly what the runtime checks see.
const AsSent = Object.freeze({
  safeParse: (data: unknown) => ({ success: true, data }),
  safeParseAsync: async (data: unknown) => ({ success: true, data }),
});

/**
 * List every tool of a server: over stdio (the server is started and stopped), over
 * Streamable HTTP, or from a saved `tools/list` answer in any shape (`{tools}`, an array,
 * a JSON-RPC response, a captured `{server, tools: {tools}}`). Pages are followed with
 * agent-airlock's pager, so cursor loops, endless pages and broken pages are refused.
 *
 * @example
 * ```ts
 * import { listToolsFrom } from "./connect.js";
 * const { tools } = await listToolsFrom({ kind: "stdio", command: "node", args: ["server.js"] });
 * console.log(tools.length);
 * ```
 */
export async function listToolsFrom(
  source: ToolSource,
  options: { maxPages?: number; timeoutMs?: number; progress?: (line: string) => void } = {},
): Promise<ListedTools> {
  if (source.kind === "file") return readSavedListing(source.path);
  const progress = options.progress ?? (() => {});
  // Loaded here, not at start-up: commands that never connect stay fast.
  const [
    { Client },
    { StdioClientTransport },
    { StreamableHTTPClientTransport },
    { SSEClientTransport },
  ] = await Promise.all([
    import("@modelcontextprotocol/sdk/client/index.js"),
    import("@modelcontextprotocol/sdk/client/stdio.js"),
    import("@modelcontextprotocol/sdk/client/streamableHttp.js"),
    import("@modelcontextprotocol/sdk/client/sse.js"),
  ]);
  // Declared so servers list the tools they only offer to clients that can sample or
  // elicit (a client like Claude Desktop would see them). No request is answered.
  const client = new Client(
    { name: "airlock", version: VERSION },
    { capabilities: { sampling: {}, elicitation: {} } },
  );
  let stderrTail = "";
  let transport: Transport;
  if (source.kind === "stdio") {
    const stdio = new StdioClientTransport({
      command: source.command,
      args: source.args,
      env: { ...(process.env as Record<string, string>), ...source.env },
      cwd: source.cwd,
      stderr: "pipe",
    });
    stdio.stderr?.on("data", (chunk: Buffer) => {
      stderrTail = (stderrTail + chunk.toString("utf8")).slice(-2_000);
    });
    transport = stdio;
    progress(`starting ${[source.command, ...source.args].join(" ")}`);
  } else {
    const init = { requestInit: source.headers ? { headers: source.headers } : undefined };
    transport =
      source.kind === "sse"
        ? new SSEClientTransport(new URL(source.url), init)
        : new StreamableHTTPClientTransport(new URL(source.url), init);
    progress(`connecting to ${source.url}${source.kind === "sse" ? " (HTTP+SSE)" : ""}`);
  }
  const timeout = options.timeoutMs ?? 30_000;
  try {
    try {
      await client.connect(transport, { timeout });
    } catch (cause) {
      const tail = stderrTail.trim() === "" ? "" : `\nserver stderr:\n${stderrTail.trim()}`;
      throw new ToolSourceError(
        "SOURCE_CONNECT",
        `could not connect: ${(cause as Error).message}${tail}`,
        { cause },
      );
    }
    const serverInfo = client.getServerVersion();
    progress(`connected to ${serverInfo?.name ?? "the server"}; listing tools`);
    let pagesSeen = 0;
    const request = async (params: { cursor?: string }) => {
      pagesSeen++;
      if (pagesSeen > 1) progress(`page ${pagesSeen}`);
      return client.request({ method: "tools/list", params }, AsSent as never, { timeout });
    };
    try {
      const collected = await collectToolPages(toolPageSource(request), {
        maxPages: options.maxPages ?? 100,
      });
      progress(`listed ${collected.tools.length} tool(s) on ${collected.pages} page(s)`);
      return {
        tools: collected.tools,
        pages: collected.pages,
        ...(serverInfo
          ? { serverInfo: { name: serverInfo.name, version: serverInfo.version } }
          : {}),
      };
    } catch (cause) {
      throw new ToolSourceError(
        "SOURCE_LISTING",
        `tools/list failed: ${(cause as Error).message}`,
        { cause },
      );
    }
  } finally {
    await client.close().catch(() => {});
  }
}

/** Largest saved listing read, in bytes. */
const MAX_LISTING_FILE_BYTES = 64 * 1024 * 1024;

async function readSavedListing(path: string): Promise<ListedTools> {
  const read = await readBoundedFile(path, MAX_LISTING_FILE_BYTES);
  // The definitions are pinned as read: bytes decoded as U+FFFD would pin something no
  // server sends.
  const decoded = read.ok ? strictUtf8Text(read.bytes) : read;
  if (!decoded.ok) {
    throw new ToolSourceError("SOURCE_FILE", `cannot read ${path}: ${decoded.reason}`);
  }
  const text = decoded.text;
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch (cause) {
    throw new ToolSourceError("SOURCE_FILE", `${path} is not JSON: ${(cause as Error).message}`, {
      cause,
    });
  }
  const tools = savedTools(data);
  if (tools === null) {
    throw new ToolSourceError(
      "SOURCE_FILE",
      `${path} is not a saved tools/list answer (expected {"tools": [...]}, an array of tools, or a JSON-RPC response with result.tools)`,
    );
  }
  const next = data as { nextCursor?: unknown; result?: { nextCursor?: unknown } } | null;
  if (typeof next?.nextCursor === "string" && next.nextCursor !== "") {
    throw new ToolSourceError(
      "SOURCE_FILE",
      `${path} is one page of a longer listing (it has a nextCursor): save every page`,
    );
  }
  return { tools, pages: 1 };
}

function savedTools(data: unknown): unknown[] | null {
  if (Array.isArray(data)) return data;
  if (typeof data !== "object" || data === null) return null;
  const record = data as { tools?: unknown; result?: unknown };
  if (Array.isArray(record.tools)) return record.tools;
  // A captured {server, tools: {tools: [...]}} or a JSON-RPC response {result: {tools}}.
  for (const inner of [record.tools, record.result]) {
    const tools = (inner as { tools?: unknown } | null | undefined)?.tools;
    if (Array.isArray(tools)) return tools;
  }
  return null;
}
