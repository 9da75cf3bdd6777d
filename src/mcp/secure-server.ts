import type { ServerOptions } from "@modelcontextprotocol/sdk/server/index.js";
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import type { Implementation } from "@modelcontextprotocol/sdk/types.js";
import type { ListingCheck, ToolDefinition } from "../pins/types.js";
import { McpOptionError } from "./errors.js";
import { PinnedServerTransport, type ServerGuardOptions } from "./pinned-server-transport.js";
import { type ConnectableServer, checkServerTools, toolDefinitions } from "./server-tools.js";

/** A server with the pins in front of it. */
export interface SecuredServer<S extends ConnectableServer> {
  /** The server itself (register tools on it as usual; they are judged at every listing and call). */
  readonly server: S;
  /**
   * Connect the server to `transport` through a {@link PinnedServerTransport}. Returns what
   * the server's own `connect` returns (a session for FastMCP).
   */
  connect(transport: Transport): ReturnType<S["connect"]>;
  /**
   * Serve over this process's stdin and stdout through the pins: the guarded twin of
   * FastMCP's `server.start({ transportType: "stdio" })`, which creates its transport
   * inside FastMCP where the pins cannot see it. Any other `transportType` is refused
   * (`McpOptionError`): connect an HTTP transport with {@link SecuredServer.connect}. The
   * transport closes when stdin ends, as FastMCP's does.
   */
  start(options?: { transportType?: "stdio" }): ReturnType<S["connect"]>;
  /** Wrap a transport without connecting (to connect the server yourself). */
  wrapTransport(transport: Transport): PinnedServerTransport;
  /** The start-up check alone (see `checkServerTools`); call it before connecting. */
  check(): Promise<ListingCheck>;
  /** The server's tools (see `toolDefinitions`); call it before connecting. */
  toolDefinitions(): Promise<ToolDefinition[]>;
}

/** Options of {@link secureServer}. */
export type SecureServerOptions = ServerGuardOptions;

/**
 * Put the pins in front of an existing server: an SDK 1.x `McpServer`, the low-level
 * `Server`, or a FastMCP server (anything with a public `connect(transport)`). The server
 * object is not modified; connect it through the returned handle. A FastMCP server
 * started with its own `server.start()` creates its transport inside FastMCP and is not
 * guarded: use `secured.start({ transportType: "stdio" })` or `secured.connect(transport)`.
 *
 * @example
 * ```ts
 * import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
 * import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
 * import { guardFromPinFile, readPinFile } from "agent-airlock";
 * import { secureServer } from "agent-airlock/mcp";
 * const server = new McpServer({ name: "notes", version: "1.0.0" });
 * // ... server.registerTool(...)
 * const pinGuard = guardFromPinFile(await readPinFile("airlock.pins.json"), { server: "notes" });
 * await secureServer(server, { pinGuard }).connect(new StdioServerTransport());
 * ```
 */
export function secureServer<S extends ConnectableServer>(
  server: S,
  options: SecureServerOptions,
): SecuredServer<S> {
  const settings = { ...options };
  const wrapTransport = (transport: Transport) => new PinnedServerTransport(transport, settings);
  const probeOptions = {
    ...(settings.maxPages === undefined ? {} : { maxPages: settings.maxPages }),
    ...(settings.timeoutMs === undefined ? {} : { timeoutMs: settings.timeoutMs }),
  };
  const connect = (transport: Transport) =>
    server.connect(wrapTransport(transport)) as ReturnType<S["connect"]>;
  return {
    server,
    connect,
    start: (startOptions) => startStdio(connect, startOptions) as ReturnType<S["connect"]>,
    wrapTransport,
    check: () => checkServerTools(server, settings.pinGuard, probeOptions),
    toolDefinitions: () => toolDefinitions(server, probeOptions),
  };
}

/** {@link SecuredServer.start}: a stdio transport, closed when stdin ends. */
async function startStdio(
  connect: (transport: Transport) => unknown,
  options: { transportType?: unknown } | undefined,
): Promise<unknown> {
  const transportType = options?.transportType ?? "stdio";
  if (transportType !== "stdio") {
    throw new McpOptionError(
      `secured.start() serves stdio only, got transportType ${JSON.stringify(transportType)}: for HTTP, connect your transport with secured.connect(transport)`,
    );
  }
  const { StdioServerTransport } = await import("@modelcontextprotocol/sdk/server/stdio.js");
  const transport = new StdioServerTransport();
  let connected: unknown;
  let ended = false;
  // A session FastMCP's connect returns pings on a timer that outlives its transport's
  // close and would keep the process alive after stdin ends (its own stdio start does not
  // ping): close the session too.
  const closeSession = () => {
    const close = (connected as { close?: unknown } | null | undefined)?.close;
    if (typeof close === "function") Promise.resolve(close.call(connected)).catch(() => {});
  };
  const stopListening = () => {
    process.stdin.off("end", onStdinEnd);
    process.stdin.off("close", onStdinEnd);
  };
  const onStdinEnd = () => {
    ended = true;
    stopListening();
    transport.close().catch(() => {});
    closeSession();
  };
  // Listening before connecting: FastMCP's connect resolves only after the client's
  // initialize, and a client may have sent everything and closed stdin by then.
  process.stdin.on("end", onStdinEnd);
  process.stdin.on("close", onStdinEnd);
  try {
    connected = await connect(transport);
  } catch (err) {
    stopListening();
    throw err;
  }
  if (ended) closeSession();
  return connected;
}

/**
 * Registers tools whose call arguments are guarded: an argument the tool's inputSchema
 * does not declare is refused (or stripped, with `unknownArguments: "strip"`), and the
 * arguments must validate strictly against the inputSchema as served. Same signature as
 * `McpServer.registerTool`.
 */
export interface SecureToolRegistrar {
  registerTool: McpServer["registerTool"];
  /** Names registered through this registrar. */
  readonly names: ReadonlySet<string>;
}

/** What {@link createSecureMcpServer} returns. */
export interface SecureMcpServer extends SecuredServer<McpServer> {
  /** Register tools here to have their arguments guarded at call time as well. */
  readonly secure: SecureToolRegistrar;
}

/** Options of {@link createSecureMcpServer}. */
export interface CreateSecureMcpServerOptions extends SecureServerOptions {
  /** Passed to the `McpServer` constructor. */
  serverOptions?: ServerOptions;
}

/**
 * A new SDK 1.x `McpServer` with the pins in front of it, plus a `secure` registrar whose
 * tools also have their arguments guarded. Connect it with `secured.connect(transport)`.
 *
 * @example
 * ```ts
 * import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
 * import { ToolDefinitionPinGuard } from "agent-airlock";
 * import { createSecureMcpServer } from "agent-airlock/mcp";
 * import { z } from "zod";
 * const pinGuard = new ToolDefinitionPinGuard();
 * const secured = createSecureMcpServer({ name: "weather", version: "1.0.0" }, { pinGuard });
 * secured.secure.registerTool(
 *   "forecast",
 *   { description: "Forecast for a city.", inputSchema: { city: z.string() } },
 *   async ({ city }) => ({ content: [{ type: "text", text: `Sunny in ${city}` }] }),
 * );
 * for (const tool of await secured.toolDefinitions()) pinGuard.approve(tool); // at review time
 * const [, serverSide] = InMemoryTransport.createLinkedPair();
 * await secured.connect(serverSide);
 * ```
 */
export function createSecureMcpServer(
  info: Implementation,
  options: CreateSecureMcpServerOptions,
): SecureMcpServer {
  const { serverOptions, ...guardOptions } = options;
  const server = new McpServer(info, serverOptions);
  const names = new Set<string>();
  const userGuard = guardOptions.guardArguments ?? false;
  const guardArguments = (toolName: string) =>
    names.has(toolName) || (typeof userGuard === "function" ? userGuard(toolName) : userGuard);
  const secured = secureServer(server, { ...guardOptions, guardArguments });
  // biome-ignore lint/suspicious/noExplicitAny: forwards McpServer.registerTool's generic signature unchanged.
  const registerTool = ((name: string, config: any, callback: any) => {
    const registered = server.registerTool(name, config, callback);
    names.add(name);
    return registered;
  }) as McpServer["registerTool"];
  return { ...secured, secure: { registerTool, names } };
}
