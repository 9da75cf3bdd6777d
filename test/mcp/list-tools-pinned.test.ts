import fc from "fast-check";
import { afterEach, describe, expect, it } from "vitest";
import { ToolListingDriftError } from "../../src/errors.js";
import {
  listAllTools,
  listAllToolsPinned,
  listToolsPinned,
  McpClientUnsupportedError,
  McpOptionError,
  toolPageSource,
} from "../../src/mcp/index.js";
import { ToolDefinitionPinGuard } from "../../src/pins/index.js";
import { pagingTool } from "../fixtures/servers/paging-server.js";
import { approvedGuard, connectedPagingServer, rawToolsList } from "./helpers.js";

const open: { close: () => Promise<void> }[] = [];
afterEach(async () => {
  for (const s of open.splice(0)) await s.close();
});
async function serve(options: Parameters<typeof connectedPagingServer>[0]) {
  const s = await connectedPagingServer(options);
  open.push(s);
  return s;
}
const names = (listing: { tools: { name: string }[] }) => listing.tools.map((t) => t.name);

async function fault(promise: Promise<unknown>): Promise<string> {
  const err = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(ToolListingDriftError);
  return (err as ToolListingDriftError).fault;
}

describe("listToolsPinned (one page, real SDK 1.x client in memory)", () => {
  it("returns the page in its own shape, cursor kept, when every tool is admitted", async () => {
    const s = await serve({ toolCount: 5, pageSize: 2 });
    const page = await listToolsPinned(s.client, approvedGuard(5));
    expect(names(page)).toEqual(["tool_000", "tool_001"]);
    expect(page.nextCursor).toBe("page-1");
    expect(s.requestedCursors).toEqual([undefined]);
  });

  it("raise throws the refusal, filter drops the unadmitted tool", async () => {
    const s = await serve({ toolCount: 2, pageSize: 2 });
    const guard = approvedGuard(1);
    const err = await listToolsPinned(s.client, guard).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ToolListingDriftError);
    expect((err as ToolListingDriftError).fault).toBe("refused");
    expect((err as ToolListingDriftError).check?.refused.map((r) => r.name)).toEqual(["tool_001"]);
    expect(names(await listToolsPinned(s.client, guard, { onDrift: "filter" }))).toEqual([
      "tool_000",
    ]);
  });

  it("with enforce off returns the listing unchanged", async () => {
    const s = await serve({ toolCount: 2, pageSize: 2 });
    const guard = new ToolDefinitionPinGuard({ enforce: false });
    expect(names(await listToolsPinned(s.client, guard))).toEqual(["tool_000", "tool_001"]);
  });

  it("a result that is not a listing throws in every mode", async () => {
    const bad = async () => ({ items: [] });
    for (const enforce of [true, false]) {
      const guard = new ToolDefinitionPinGuard({ enforce });
      expect(await fault(listToolsPinned(bad, guard, { onDrift: "filter" }))).toBe("unreadable");
    }
  });

  it("never modifies the client's result object", async () => {
    const page = Object.freeze({
      tools: Object.freeze([Object.freeze(pagingTool(0)), Object.freeze(pagingTool(1))]),
      _meta: { server: "x" },
    });
    const out = await listToolsPinned(async () => page, approvedGuard(1), { onDrift: "filter" });
    expect(names(out)).toEqual(["tool_000"]);
    expect(out._meta).toEqual({ server: "x" });
    expect(page.tools).toHaveLength(2);
  });
});

describe("listAllToolsPinned (every page, judged once)", () => {
  it("follows every cursor and returns the first page's shape without a cursor", async () => {
    const s = await serve({ toolCount: 5, pageSize: 2 });
    const listing = await listAllToolsPinned(s.client, approvedGuard(5));
    expect(names(listing)).toEqual(["tool_000", "tool_001", "tool_002", "tool_003", "tool_004"]);
    expect("nextCursor" in listing).toBe(false);
    expect(s.requestedCursors).toEqual([undefined, "page-1", "page-2"]);
  });

  it("refuses a rug pull on page 3 (raise) or drops only that tool (filter)", async () => {
    const s = await serve({ toolCount: 6, pageSize: 2, misbehave: "rug-pull-page-3" });
    const guard = approvedGuard(6);
    const err = (await listAllToolsPinned(s.client, guard).catch(
      (e) => e,
    )) as ToolListingDriftError;
    expect(err.fault).toBe("refused");
    expect(err.check?.refused).toMatchObject([{ name: "tool_004", reason: "drift" }]);
    const filtered = await listAllToolsPinned(s.client, guard, { onDrift: "filter" });
    expect(names(filtered)).toEqual(["tool_000", "tool_001", "tool_002", "tool_003", "tool_005"]);
  });

  it("a tool on two pages is a duplicate: every copy is dropped", async () => {
    const s = await serve({ toolCount: 4, pageSize: 2, misbehave: "duplicate-across-pages" });
    const listing = await listAllToolsPinned(s.client, approvedGuard(4), { onDrift: "filter" });
    expect(names(listing)).toEqual(["tool_001", "tool_002", "tool_003"]);
  });

  it("missing covers the whole listing and refuses nothing", async () => {
    const s = await serve({ toolCount: 3, pageSize: 1 });
    const guard = approvedGuard(5);
    const listing = await listAllToolsPinned(s.client, guard);
    expect(names(listing)).toHaveLength(3);
    expect(guard.checkListing(listing).missing).toEqual(["tool_003", "tool_004"]);
  });

  it("an empty-string cursor ends the listing: nothing past it is requested or admitted", async () => {
    const s = await serve({ toolCount: 4, pageSize: 2, misbehave: "empty-cursor" });
    const listing = await listAllToolsPinned(s.client, approvedGuard(4));
    expect(names(listing)).toEqual(["tool_000", "tool_001"]);
    expect(s.requestedCursors).toEqual([undefined]);
  });

  for (const enforce of [true, false]) {
    describe(`pagination faults throw with enforce ${enforce ? "on" : "off"}`, () => {
      const guard = () => approvedGuard(10, { enforce });

      it("cursor_repeated on a cursor loop", async () => {
        const s = await serve({ toolCount: 10, pageSize: 2, misbehave: "cursor-loop" });
        expect(await fault(listAllToolsPinned(s.client, guard(), { onDrift: "filter" }))).toBe(
          "cursor_repeated",
        );
        expect(s.requestedCursors).toEqual([undefined, "page-1"]);
      });

      it("cursor_not_string on a numeric cursor", async () => {
        const s = await serve({ toolCount: 4, pageSize: 2, misbehave: "non-string-cursor" });
        expect(await fault(listAllToolsPinned(rawToolsList(s.client), guard()))).toBe(
          "cursor_not_string",
        );
      });

      it("page_not_listing on a page without tools", async () => {
        const s = await serve({ toolCount: 6, pageSize: 2, misbehave: "page-not-listing" });
        expect(await fault(listAllToolsPinned(rawToolsList(s.client), guard()))).toBe(
          "page_not_listing",
        );
      });

      it("too_many_pages on endless pages, never requesting the page past maxPages", async () => {
        const s = await serve({ misbehave: "endless" });
        expect(await fault(listAllToolsPinned(s.client, guard(), { maxPages: 7 }))).toBe(
          "too_many_pages",
        );
        expect(s.requestedCursors).toHaveLength(7);
      });

      it("cursor_unsupported for a client that cannot pass a cursor", async () => {
        const s = await serve({ toolCount: 4, pageSize: 2 });
        const listOnly = { listTools: () => s.client.listTools() };
        expect(toolPageSource(listOnly).kind).toBe("list-only");
        expect(await fault(listAllToolsPinned(listOnly, guard()))).toBe("cursor_unsupported");
        expect(s.requestedCursors).toEqual([undefined]);
      });
    });
  }

  it("rejects an unknown client and bad options with typed errors", async () => {
    const guard = new ToolDefinitionPinGuard();
    await expect(listAllToolsPinned({ hello: 1 }, guard)).rejects.toBeInstanceOf(
      McpClientUnsupportedError,
    );
    await expect(listToolsPinned(null as never, guard)).rejects.toBeInstanceOf(
      McpClientUnsupportedError,
    );
    await expect(
      listAllToolsPinned(async () => ({ tools: [] }), guard, { maxPages: 0 }),
    ).rejects.toBeInstanceOf(McpOptionError);
    await expect(
      listAllToolsPinned(async () => ({ tools: [] }), guard, { onDrift: "ignore" as never }),
    ).rejects.toBeInstanceOf(McpOptionError);
  });

  it("listAllTools returns everything unjudged and still refuses pagination faults", async () => {
    const s = await serve({ toolCount: 5, pageSize: 2 });
    expect(names(await listAllTools(s.client))).toHaveLength(5);
    const loop = await serve({ toolCount: 10, pageSize: 2, misbehave: "cursor-loop" });
    expect(await fault(listAllTools(loop.client))).toBe("cursor_repeated");
  });

  it("property: any page size and count yields every approved tool, once, in order", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 0, max: 30 }),
        fc.integer({ min: 1, max: 7 }),
        fc.integer({ min: 0, max: 30 }),
        async (count, pageSize, approved) => {
          const tools = Array.from({ length: count }, (_, i) => pagingTool(i));
          const request = async ({ cursor }: { cursor?: string }) => {
            const start = cursor === undefined ? 0 : Number(cursor);
            const next = start + pageSize;
            return {
              tools: tools.slice(start, next),
              ...(next < count ? { nextCursor: String(next) } : {}),
            };
          };
          const listing = await listAllToolsPinned(request, approvedGuard(approved), {
            onDrift: "filter",
          });
          expect(names(listing)).toEqual(tools.slice(0, approved).map((t) => t.name));
        },
      ),
      { numRuns: 60 },
    );
  });
});
