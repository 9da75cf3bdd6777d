import { Readable } from "node:stream";
import { describe, expect, it } from "vitest";
import { type ReadAuditRecord, readAuditLog } from "../../src/proxy/audit-reader.js";
import { AuditSummary, MAX_AUDIT_GROUPS } from "../../src/proxy/audit-summary.js";

// Reading an audit log back: bounded whatever the file holds, never a throw for its content.

const line = (record: Record<string, unknown>) =>
  `${JSON.stringify({ time: "2026-05-01T10:00:00.000Z", server: "fs", ...record })}\n`;

async function readAll(chunks: (string | Buffer)[], maxLineBytes?: number) {
  const records: ReadAuditRecord[] = [];
  const stats = await readAuditLog(
    Readable.from(chunks),
    (r) => records.push(r),
    maxLineBytes === undefined ? {} : { maxLineBytes },
  );
  return { records, stats };
}

describe("readAuditLog", () => {
  it("reads records across any chunking, and counts what it skips", async () => {
    const text = [
      line({ event: "proxy_start" }),
      "\n",
      "not json\n",
      '{"event": 7, "time": "x"}\n',
      '["an", "array"]\n',
      '{"event":"tool_call_check","time":"not a date"}\n',
      line({ event: "tool_call_check", toolName: "read", allowed: true }),
      // The last line has no newline.
      line({ event: "proxy_stop" }).trimEnd(),
    ].join("");
    for (const size of [1, 3, 17, text.length]) {
      const chunks: Buffer[] = [];
      const bytes = Buffer.from(text);
      for (let at = 0; at < bytes.length; at += size) chunks.push(bytes.subarray(at, at + size));
      const { records, stats } = await readAll(chunks);
      expect(
        records.map((r) => r.event),
        `chunks of ${size}`,
      ).toEqual(["proxy_start", "tool_call_check", "proxy_stop"]);
      expect(stats).toEqual({
        lines: 8,
        records: 3,
        empty: 1,
        oversized: 0,
        notJson: 1,
        notRecord: 3,
      });
    }
  });

  it("skips a line over the cap without holding it, and reads the next one", async () => {
    const huge = `{"event":"tool_call_check","toolName":"${"x".repeat(50_000)}"}`;
    const chunks = [line({ event: "proxy_start" }), ...huge.match(/.{1,1000}/g)!, "\n"];
    chunks.push(line({ event: "proxy_stop" }));
    const { records, stats } = await readAll(chunks, 4096);
    expect(records.map((r) => r.event)).toEqual(["proxy_start", "proxy_stop"]);
    expect(stats.oversized).toBe(1);
    // A last line over the cap, without a newline, is counted too.
    const tail = await readAll([line({ event: "proxy_start" }), "y".repeat(10_000)], 4096);
    expect(tail.stats).toMatchObject({ lines: 2, records: 1, oversized: 1 });
  });

  it("survives bytes that are not UTF-8 and deep nesting", async () => {
    const { records, stats } = await readAll([
      Buffer.from([0xff, 0xfe, 0x00, 0x0a]),
      `${"[".repeat(100_000)}\n`,
      line({ event: "proxy_start" }),
    ]);
    expect(records).toHaveLength(1);
    expect(stats.notJson).toBe(2);
  });
});

describe("AuditSummary", () => {
  const record = (fields: Record<string, unknown>): ReadAuditRecord => ({
    time: "2026-05-01T10:00:00.000Z",
    timeMs: Date.parse("2026-05-01T10:00:00.000Z"),
    server: "fs",
    event: "tool_call_check",
    ...fields,
  });

  it("counts per server and tool: allowed, refused and would-be refused by verdict", () => {
    const summary = new AuditSummary({}, 0);
    summary.add(record({ event: "proxy_start" }));
    summary.add(record({ toolName: "read", allowed: true, verdict: "allow_pinned" }));
    summary.add(record({ toolName: "write", allowed: false, verdict: "deny_unpinned" }));
    summary.add(record({ toolName: "write", allowed: false, verdict: "TOOL_NOT_AUTHORIZED" }));
    summary.add(
      record({ toolName: "write", allowed: false, verdict: "deny_unpinned", enforced: false }),
    );
    summary.add(
      record({ event: "tool_definition_check", toolName: "write", allowed: false, verdict: "x" }),
    );
    summary.add(record({ event: "request_refused", verdict: "id_in_flight" }));
    const result = summary.result();
    expect(result).toMatchObject({ matched: 7, refusals: 4, wouldRefuse: 1 });
    expect(result.servers).toEqual([
      { server: "fs", sessions: 1, other: { "request_refused/id_in_flight": 1 } },
    ]);
    const write = result.tools.find((t) => t.tool === "write")!;
    expect(write.calls).toEqual({
      allowed: 0,
      refused: { deny_unpinned: 1, TOOL_NOT_AUTHORIZED: 1 },
      wouldRefuse: { deny_unpinned: 1 },
    });
    expect(write.definitions.refused).toEqual({ x: 1 });
  });

  it("filters by server, tool, time and refusal, and keeps the last refusals in order", () => {
    const summary = new AuditSummary(
      { server: "fs", tool: "write", refused: true, sinceMs: Date.parse("2026-05-01") },
      2,
    );
    for (let i = 0; i < 5; i++) {
      summary.add(record({ toolName: "write", allowed: false, verdict: `v${i}` }));
    }
    summary.add(record({ toolName: "write", allowed: true }));
    summary.add(record({ toolName: "read", allowed: false, verdict: "v" }));
    summary.add(record({ server: "other", toolName: "write", allowed: false, verdict: "v" }));
    summary.add(record({ toolName: "write", allowed: false, verdict: "old", timeMs: 0 }));
    const result = summary.result();
    expect(result.matched).toBe(5);
    expect(result.recent.map((r) => r.verdict)).toEqual(["v3", "v4"]);
  });

  it("stays bounded on a hostile log: names cut, groups capped, __proto__ a plain key", () => {
    const summary = new AuditSummary({}, 0);
    summary.add(record({ toolName: "t", allowed: false, verdict: "__proto__" }));
    for (let i = 0; i < MAX_AUDIT_GROUPS + 5; i++) {
      summary.add(record({ toolName: `tool-${i}-${"n".repeat(1000)}`, allowed: true }));
    }
    const result = summary.result();
    expect(result.tools).toHaveLength(MAX_AUDIT_GROUPS);
    expect(result.uncountedGroups).toBe(6);
    expect(Math.max(...result.tools.map((t) => t.tool.length))).toBeLessThanOrEqual(201);
    expect(Object.keys(result.tools[0]!.calls.refused)).toEqual(["__proto__"]);
    expect(Object.entries(result.tools[0]!.calls.refused)).toEqual([["__proto__", 1]]);
  });
});
