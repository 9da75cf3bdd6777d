import { readFileSync } from "node:fs";
import { join } from "node:path";
import { ToolListChangedNotificationSchema } from "@modelcontextprotocol/sdk/types.js";
import { beforeAll, describe, expect, it } from "vitest";
import { clientThroughProxy, resultText, rugServer, runCli, tempDir } from "./helpers.js";

let pins: string;
const allTools = ["echo", "add", "send_report", "slow", "crash", "garbage", "flood", "huge"];

beforeAll(async () => {
  pins = join(tempDir(), "airlock.pins.json");
  const pinned = await runCli([
    "pin",
    "--pins",
    pins,
    "--server",
    "rug",
    "--yes",
    "--",
    process.execPath,
    ...rugServer(),
  ]);
  expect(pinned.code).toBe(0);
});

describe("airlock proxy enforces the pins in front of a real server", () => {
  it("serves pinned tools, refuses the tool that rug-pulls after list_changed, keeps serving the rest", async () => {
    const dir = tempDir();
    const audit = join(dir, "audit.jsonl");
    const { client } = await clientThroughProxy(
      ["--pins", pins, "--server", "rug", "--audit-log", audit],
      rugServer("--rug-after", "1"),
    );
    let changed = 0;
    const listChanged = new Promise<void>((resolve) => {
      client.setNotificationHandler(ToolListChangedNotificationSchema, () => {
        changed++;
        resolve();
      });
    });
    try {
      expect((await client.listTools()).tools.map((t) => t.name)).toEqual(allTools);
      // The first call is served; after it the server changes send_report and says so.
      expect(
        resultText(await client.callTool({ name: "send_report", arguments: { recipient: "bob" } })),
      ).toBe("sent to bob");
      await listChanged;
      expect(changed).toBe(1);
      const refused = await client.callTool({
        name: "send_report",
        arguments: { recipient: "bob" },
      });
      expect(refused.isError).toBe(true);
      expect(resultText(refused)).toMatch(/^AIRLOCK_BLOCK: tool "send_report" is not admitted/);
      // The rest still works, and the client's next listing no longer shows the tool.
      expect(resultText(await client.callTool({ name: "add", arguments: { a: 2, b: 3 } }))).toBe(
        "5",
      );
      expect((await client.listTools()).tools.map((t) => t.name)).toEqual(
        allTools.filter((n) => n !== "send_report"),
      );
    } finally {
      await client.close();
    }
    const records = readFileSync(audit, "utf8")
      .trim()
      .split("\n")
      .map((line) => JSON.parse(line));
    expect(records[0]).toMatchObject({ event: "proxy_start", server: "rug" });
    const calls = records.filter((r) => r.event === "tool_call_check");
    expect(calls.map((r) => [r.toolName, r.allowed])).toEqual([
      ["send_report", true],
      ["send_report", false],
      ["add", true],
    ]);
    const drift = records.find(
      (r) => r.event === "tool_definition_check" && r.toolName === "send_report" && !r.allowed,
    );
    expect(drift).toMatchObject({
      verdict: "deny_multi_field_drift",
      changedFields: ["description", "annotations"].sort(),
    });
    expect(records.at(-1)).toMatchObject({ event: "proxy_stop", reason: "client_closed" });
  });

  it("catches a silent rug pull at the client's next listing and blocks the call", async () => {
    const { client } = await clientThroughProxy(
      ["--pins", pins],
      rugServer("--rug-after", "1", "--silent"),
    );
    try {
      expect(resultText(await client.callTool({ name: "echo", arguments: { text: "one" } }))).toBe(
        "one",
      );
      const names = (await client.listTools()).tools.map((t) => t.name);
      expect(names).not.toContain("send_report");
      expect(names).toContain("echo");
      const refused = await client.callTool({ name: "send_report", arguments: { recipient: "x" } });
      expect(resultText(refused)).toMatch(/^AIRLOCK_BLOCK:/);
    } finally {
      await client.close();
    }
  });

  it("with --relist-before-each-call, blocks a silent rug pull at the very next call", async () => {
    const { client } = await clientThroughProxy(
      ["--pins", pins, "--relist-before-each-call"],
      rugServer("--rug-after", "1", "--silent"),
    );
    try {
      expect(
        resultText(await client.callTool({ name: "send_report", arguments: { recipient: "a" } })),
      ).toBe("sent to a");
      // No list_changed, no listing by the client: the proxy's own listing catches it.
      const refused = await client.callTool({ name: "send_report", arguments: { recipient: "a" } });
      expect(resultText(refused)).toMatch(/^AIRLOCK_BLOCK:/);
      expect(resultText(await client.callTool({ name: "echo", arguments: { text: "fine" } }))).toBe(
        "fine",
      );
    } finally {
      await client.close();
    }
  });

  it("filters every page of a paginated listing and keeps the cursor", async () => {
    const { client } = await clientThroughProxy(
      ["--pins", pins],
      rugServer("--page-size", "3", "--rug-after", "0"),
    );
    try {
      const seen: string[] = [];
      let cursor: string | undefined;
      let pages = 0;
      do {
        const page = await client.listTools(cursor === undefined ? {} : { cursor });
        pages++;
        seen.push(...page.tools.map((t) => t.name));
        cursor = page.nextCursor;
      } while (cursor !== undefined);
      expect(pages).toBe(3);
      // send_report (on page 1) drifted from the start: every other tool arrives.
      expect(seen).toEqual(allTools.filter((n) => n !== "send_report"));
      expect(resultText(await client.callTool({ name: "huge", arguments: { bytes: 3 } }))).toBe(
        "xxx",
      );
      expect(
        resultText(await client.callTool({ name: "send_report", arguments: { recipient: "x" } })),
      ).toMatch(/^AIRLOCK_BLOCK:/);
    } finally {
      await client.close();
    }
  });

  it("refuses every copy of a duplicated tool, and calls to it", async () => {
    const { client } = await clientThroughProxy(["--pins", pins], rugServer("--duplicate"));
    try {
      const names = (await client.listTools()).tools.map((t) => t.name);
      expect(names).not.toContain("echo");
      expect(names).toHaveLength(allTools.length - 1);
      expect(resultText(await client.callTool({ name: "echo", arguments: { text: "x" } }))).toMatch(
        /^AIRLOCK_BLOCK:/,
      );
      expect(resultText(await client.callTool({ name: "never_listed", arguments: {} }))).toMatch(
        /^AIRLOCK_BLOCK:/,
      );
    } finally {
      await client.close();
    }
  });

  it("closes a name listed again on a later page, even though an earlier page showed it", async () => {
    const { client } = await clientThroughProxy(
      ["--pins", pins],
      rugServer("--duplicate", "--page-size", "3"),
    );
    try {
      const seen: string[] = [];
      let cursor: string | undefined;
      do {
        const page = await client.listTools(cursor === undefined ? {} : { cursor });
        seen.push(...page.tools.map((t) => t.name));
        cursor = page.nextCursor;
      } while (cursor !== undefined);
      // Page 1 showed echo before its second copy appeared on page 3: shown once, never twice...
      expect(seen.filter((n) => n === "echo")).toHaveLength(1);
      // ...and closed to calls, like every copy of a duplicate.
      expect(resultText(await client.callTool({ name: "echo", arguments: { text: "x" } }))).toMatch(
        /^AIRLOCK_BLOCK:/,
      );
      expect(resultText(await client.callTool({ name: "add", arguments: { a: 1, b: 1 } }))).toBe(
        "2",
      );
    } finally {
      await client.close();
    }
  });

  it("drops a 1,500-deep tool and an unpinned __proto__ tool from a hostile listing, and keeps serving", async () => {
    const { client } = await clientThroughProxy(["--pins", pins], rugServer("--hostile"));
    try {
      expect((await client.listTools()).tools.map((t) => t.name)).toEqual(allTools);
      expect(resultText(await client.callTool({ name: "deep", arguments: {} }))).toMatch(
        /^AIRLOCK_BLOCK:/,
      );
      expect(resultText(await client.callTool({ name: "__proto__", arguments: {} }))).toMatch(
        /^AIRLOCK_BLOCK:/,
      );
      expect(resultText(await client.callTool({ name: "echo", arguments: { text: "ok" } }))).toBe(
        "ok",
      );
    } finally {
      await client.close();
    }
  });

  it("passes progress through, and a cancelled call leaves the proxy serving", async () => {
    const { client } = await clientThroughProxy(["--pins", pins], rugServer());
    try {
      const progress: number[] = [];
      const result = await client.callTool({ name: "slow", arguments: { ms: 50 } }, undefined, {
        onprogress: (p) => progress.push(p.progress),
      });
      expect(resultText(result)).toBe("slept");
      expect(progress).toEqual([1]);
      const controller = new AbortController();
      const cancelled = client.callTool({ name: "slow", arguments: { ms: 60_000 } }, undefined, {
        signal: controller.signal,
      });
      setTimeout(() => controller.abort("changed my mind"), 100);
      await expect(cancelled).rejects.toThrow();
      expect(
        resultText(await client.callTool({ name: "echo", arguments: { text: "after" } })),
      ).toBe("after");
    } finally {
      await client.close();
    }
  });
});
