import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import { ToolDefinitionPinGuard } from "../../src/pins/index.js";
import {
  createPagingServer,
  type PagingServer,
  type PagingServerOptions,
  pagingTool,
} from "../fixtures/servers/paging-server.js";

/** A guard that approved tools 0..count-1 as the paging server first serves them. */
export function approvedGuard(count: number, options: { enforce?: boolean } = {}) {
  const guard = new ToolDefinitionPinGuard(options);
  for (let i = 0; i < count; i++) guard.approve(pagingTool(i));
  return guard;
}

/** A paging server connected in memory to a real SDK 1.x client. */
export async function connectedPagingServer(
  options: PagingServerOptions = {},
  wrap: (transport: Transport) => Transport = (t) => t,
): Promise<PagingServer & { client: Client; close: () => Promise<void> }> {
  const paging = createPagingServer(options);
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await paging.server.connect(serverSide);
  const client = new Client({ name: "test-client", version: "1.0.0" });
  await client.connect(wrap(clientSide));
  return Object.assign(paging, { client, close: () => client.close() });
}

/** A raw tools/list request function (nothing stripped), from the library itself. */
export { rawToolsList } from "../../src/mcp/index.js";
