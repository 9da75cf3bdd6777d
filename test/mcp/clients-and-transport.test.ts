import { createMCPClient } from "@ai-sdk/mcp";
import { Client as Client2 } from "@modelcontextprotocol/client";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import { afterEach, describe, expect, it } from "vitest";
import { ToolListingDriftError } from "../../src/errors.js";
import {
  keepToolsPinned,
  listAllTools,
  listAllToolsPinned,
  McpClientUnsupportedError,
  PinnedClientTransport,
  rawToolsList,
  type TransportRefusal,
  toolPageSource,
} from "../../src/mcp/index.js";
import { ToolDefinitionPinGuard } from "../../src/pins/index.js";
import { createPagingServer, pagingTool } from "../fixtures/servers/paging-server.js";
import { approvedGuard, connectedPagingServer } from "./helpers.js";

const closers: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  for (const close of closers.splice(0)) await close();
});
const names = (listing: { tools: readonly { name: string }[] }) => listing.tools.map((t) => t.name);

async function pagingPair(options: Parameters<typeof createPagingServer>[0]) {
  const paging = createPagingServer(options);
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await paging.server.connect(serverSide);
  closers.push(() => paging.server.close());
  return { paging, clientSide };
}

describe("each client is paged by its own call", () => {
  it("@modelcontextprotocol/client 2.x: paged one request at a time, faults still caught", async () => {
    const { paging, clientSide } = await pagingPair({ toolCount: 5, pageSize: 2 });
    const client = new Client2({ name: "c2", version: "1.0.0" });
    await client.connect(clientSide as never);
    closers.push(() => client.close());
    expect(toolPageSource(client).kind).toBe("sdk-2");
    const listing = await listAllToolsPinned(client, approvedGuard(4), { onDrift: "filter" });
    expect(names(listing)).toEqual(["tool_000", "tool_001", "tool_002", "tool_003"]);
    expect(paging.requestedCursors).toEqual([undefined, "page-1", "page-2"]);

    const loop = await pagingPair({ toolCount: 10, pageSize: 2, misbehave: "cursor-loop" });
    const looping = new Client2({ name: "c2", version: "1.0.0" });
    await looping.connect(loop.clientSide as never);
    closers.push(() => looping.close());
    const err = await listAllToolsPinned(looping, approvedGuard(10)).catch((e) => e);
    expect((err as ToolListingDriftError).fault).toBe("cursor_repeated");
  });

  it("@ai-sdk/mcp client: listTools({ params: { cursor } })", async () => {
    const { paging, clientSide } = await pagingPair({ toolCount: 5, pageSize: 2 });
    const client = await createMCPClient({ transport: clientSide as never });
    closers.push(() => client.close());
    expect(toolPageSource(client).kind).toBe("ai-sdk");
    const err = await listAllToolsPinned(client, approvedGuard(4)).catch((e) => e);
    expect(err).toBeInstanceOf(ToolListingDriftError);
    expect((err as ToolListingDriftError).check?.refused.map((r) => r.name)).toEqual(["tool_004"]);
    expect(paging.requestedCursors).toEqual([undefined, "page-1", "page-2"]);
    // The filtered listing can be handed back to the AI SDK to build its tools.
    const listing = await listAllToolsPinned(client, approvedGuard(4), { onDrift: "filter" });
    expect(Object.keys(client.toolsFromDefinitions(listing as never)).sort()).toEqual(
      names(listing),
    );
  });
});

describe("keepToolsPinned", () => {
  it("re-lists on list_changed and the exposed set shrinks to what the pins admit", async () => {
    const s = await connectedPagingServer({ toolCount: 5, pageSize: 2 });
    closers.push(s.close);
    const updates: string[][] = [];
    let notify: () => void = () => {};
    const changed = new Promise<void>((resolve) => {
      notify = resolve;
    });
    const pinned = await keepToolsPinned(s.client, approvedGuard(5), {
      onUpdate: (tools) => {
        updates.push(tools.map((t) => t.name));
        if (updates.length === 2) notify();
      },
    });
    expect(pinned.tools).toHaveLength(5);
    await s.rugPull(3); // changes tool_003 and sends notifications/tools/list_changed
    await changed;
    expect(pinned.has("tool_003")).toBe(false);
    expect(names(pinned)).toEqual(["tool_000", "tool_001", "tool_002", "tool_004"]);
    expect(s.requestedCursors.filter((c) => c === undefined)).toHaveLength(2);
    pinned.stop();
  });

  it("subscribes a 2.x client by method name and shrinks on a rug pull", async () => {
    const { paging, clientSide } = await pagingPair({ toolCount: 4, pageSize: 3 });
    const client = new Client2({ name: "c2", version: "1.0.0" });
    await client.connect(clientSide as never);
    closers.push(() => client.close());
    let updates = 0;
    let relisted: () => void = () => {};
    const done = new Promise<void>((resolve) => {
      relisted = resolve;
    });
    const pinned = await keepToolsPinned(client, approvedGuard(4), {
      onUpdate: () => {
        updates += 1;
        if (updates === 2) relisted();
      },
    });
    expect(pinned.tools).toHaveLength(4);
    await paging.rugPull(1);
    await done;
    expect(names(pinned)).toEqual(["tool_000", "tool_002", "tool_003"]);
    pinned.stop();
  });

  it("a refused re-listing under raise exposes nothing and reports the error", async () => {
    const s = await connectedPagingServer({ toolCount: 3, pageSize: 3 });
    closers.push(s.close);
    let reported: unknown;
    const failed = new Promise<void>((resolve) => {
      void keepToolsPinned(s.client, approvedGuard(3), {
        onDrift: "raise",
        onError: (err) => {
          reported = err;
          resolve();
        },
      }).then(async (pinned) => {
        expect(pinned.tools).toHaveLength(3);
        await s.rugPull(0);
        await failed;
        expect(pinned.tools).toEqual([]);
      });
    });
    await failed;
    expect(reported).toBeInstanceOf(ToolListingDriftError);
  });

  it("a server cannot grow the set past the pins by announcing a new tool", async () => {
    const s = await connectedPagingServer({ toolCount: 2, pageSize: 2 });
    closers.push(s.close);
    const pinned = await keepToolsPinned(s.client, approvedGuard(2));
    s.tools = [...s.tools, pagingTool(7)];
    expect(names({ tools: await pinned.refresh() })).toEqual(["tool_000", "tool_001"]);
    pinned.stop();
  });

  it("refuses a client it cannot subscribe to, unless given subscribe", async () => {
    const guard = new ToolDefinitionPinGuard();
    const request = async () => ({ tools: [] });
    await expect(keepToolsPinned(request, guard)).rejects.toBeInstanceOf(McpClientUnsupportedError);
    let fire = () => {};
    const pinned = await keepToolsPinned(request, guard, {
      subscribe: (onChanged) => {
        fire = onChanged;
        return () => {};
      },
    });
    fire();
    expect(await pinned.refresh()).toEqual([]);
  });
});

describe("PinnedClientTransport (raw pages, full fidelity)", () => {
  const drifted = { annotations: { readOnlyHint: true, "x-scope": "everything" } };

  it("catches drift in a field the SDK 1.x client strips before listToolsPinned sees it", async () => {
    const guard = new ToolDefinitionPinGuard();
    for (let i = 0; i < 2; i++) {
      guard.approve({ ...pagingTool(i), annotations: { readOnlyHint: true, "x-scope": "one" } });
    }
    // Through the plain client the unknown annotation key is stripped: no drift visible,
    // and the stripped definition does not even match the approved one.
    const plain = await connectedPagingServer({ toolCount: 2, extraToolFields: drifted });
    closers.push(plain.close);
    const seen = await plain.client.listTools();
    expect(seen.tools[0]?.annotations).toEqual({ readOnlyHint: true });

    const refusals: TransportRefusal[] = [];
    const wrapped = await connectedPagingServer(
      { toolCount: 2, extraToolFields: drifted },
      (t) => new PinnedClientTransport(t, guard, { onRefusal: (r) => refusals.push(r) }),
    );
    closers.push(wrapped.close);
    await expect(wrapped.client.listTools()).rejects.toThrow(
      /tools\/list refused: not admitted by the pins: "tool_000", "tool_001"/,
    );
    expect(refusals[0]?.check?.refused[0]?.decision?.verdict).toBe("deny_annotations_drift");
  });

  it("filters refused tools per page and refuses a call of a tool not admitted, without sending it", async () => {
    let transport: PinnedClientTransport | undefined;
    const s = await connectedPagingServer(
      { toolCount: 5, pageSize: 2, misbehave: "rug-pull-page-3", hiddenTool: "secret_tool" },
      (t) => {
        transport = new PinnedClientTransport(t, approvedGuard(5), { onDrift: "filter" });
        return transport;
      },
    );
    closers.push(s.close);
    const tools: string[] = [];
    let cursor: string | undefined;
    do {
      const page = await s.client.listTools(cursor === undefined ? undefined : { cursor });
      tools.push(...page.tools.map((t) => t.name));
      cursor = page.nextCursor;
    } while (cursor);
    expect(tools).toEqual(["tool_000", "tool_001", "tool_002", "tool_003"]);
    expect(transport?.admitted).toEqual(tools);

    const ok = await s.client.callTool({ name: "tool_001", arguments: {} });
    expect(ok.isError).toBeFalsy();
    for (const name of ["secret_tool", "tool_004"]) {
      const blocked = await s.client.callTool({ name, arguments: {} });
      expect(blocked.isError).toBe(true);
      expect((blocked.content as { text: string }[])[0]?.text).toMatch(/^AIRLOCK_BLOCK: /);
    }
    expect(s.calledTools).toEqual(["tool_001"]);
  });

  it("a tool on two pages is refused on its second page and is no longer callable", async () => {
    const s = await connectedPagingServer(
      { toolCount: 4, pageSize: 2, misbehave: "duplicate-across-pages" },
      (t) => new PinnedClientTransport(t, approvedGuard(4), { onDrift: "filter" }),
    );
    closers.push(s.close);
    await s.client.listTools();
    const last = await s.client.listTools({ cursor: "page-1" });
    expect(last.tools.map((t) => t.name)).toEqual(["tool_002", "tool_003"]);
    const blocked = await s.client.callTool({ name: "tool_000", arguments: {} });
    expect(blocked.isError).toBe(true);
    expect(s.calledTools).toEqual([]);
  });

  it("pagination faults are refused even with enforce off, and leave nothing callable", async () => {
    const s = await connectedPagingServer(
      { toolCount: 10, pageSize: 2, misbehave: "cursor-loop" },
      (t) => new PinnedClientTransport(t, approvedGuard(10, { enforce: false }), { maxPages: 3 }),
    );
    closers.push(s.close);
    await s.client.listTools();
    await expect(s.client.listTools({ cursor: "page-1" })).rejects.toThrow(
      /cursor was returned twice/,
    );
    const endless = await connectedPagingServer(
      { misbehave: "endless" },
      (t) => new PinnedClientTransport(t, approvedGuard(10), { maxPages: 2 }),
    );
    closers.push(endless.close);
    await endless.client.listTools();
    await endless.client.listTools({ cursor: "page-1" });
    await expect(endless.client.listTools({ cursor: "page-2" })).rejects.toThrow(
      /more than 2 pages/,
    );
    expect(endless.requestedCursors).toEqual([undefined, "page-1"]);
    const blocked = await endless.client.callTool({ name: "tool_000", arguments: {} });
    expect(blocked.isError).toBe(true);
  });

  it("with enforce off, refused tools and calls pass and are reported", async () => {
    const refusals: TransportRefusal[] = [];
    const s = await connectedPagingServer(
      { toolCount: 2, pageSize: 2, hiddenTool: "secret_tool" },
      (t) =>
        new PinnedClientTransport(t, approvedGuard(1, { enforce: false }), {
          onRefusal: (r) => refusals.push(r),
        }),
    );
    closers.push(s.close);
    expect((await s.client.listTools()).tools).toHaveLength(2);
    const result = await s.client.callTool({ name: "secret_tool", arguments: {} });
    expect(result.isError).toBeFalsy();
    expect(refusals.map((r) => [r.kind, r.enforced])).toEqual([
      ["listing", false],
      ["call", false],
    ]);
  });
});

describe("rawToolsList", () => {
  it("reads pages as sent through the 1.x and 2.x clients, unknown annotation keys kept", async () => {
    const extraToolFields = { annotations: { readOnlyHint: true, "x-scope": "all" } };
    const s = await connectedPagingServer({ toolCount: 3, pageSize: 2, extraToolFields });
    closers.push(s.close);
    const raw = await listAllTools(rawToolsList(s.client));
    expect(raw.tools.map((t) => t.annotations)).toEqual([
      extraToolFields.annotations,
      extraToolFields.annotations,
      extraToolFields.annotations,
    ]);
    expect((await s.client.listTools()).tools[0]?.annotations).toEqual({ readOnlyHint: true });

    const { clientSide } = await pagingPair({ toolCount: 3, pageSize: 2, extraToolFields });
    const client2 = new Client2({ name: "c2", version: "1.0.0" });
    await client2.connect(clientSide as never);
    closers.push(() => client2.close());
    const raw2 = await listAllTools(rawToolsList(client2));
    expect(raw2.tools.map((t) => t.annotations)).toEqual(raw.tools.map((t) => t.annotations));
  });

  it("refuses a client it cannot read raw", () => {
    expect(() => rawToolsList(async () => ({ tools: [] }))).toThrow(McpClientUnsupportedError);
  });
});
