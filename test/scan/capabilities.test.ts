import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { inferCapabilities, wordTokens } from "../../src/scan/index.js";

const caps = (tool: Record<string, unknown>, opts?: { annotationsMayNarrow?: boolean }) =>
  inferCapabilities({ name: "x", ...tool } as never, opts).capabilities.map((c) => c.capability);

describe("wordTokens", () => {
  it.each([
    ["readFile", ["read", "file"]],
    ["read_file", ["read", "file"]],
    ["read-file", ["read", "file"]],
    ["files.read", ["files", "read"]],
    ["HTTPRequest", ["http", "request"]],
    ["getV2Items", ["get", "v", "2", "items"]],
    ["  spaced name ", ["spaced", "name"]],
    ["ｒｅａｄ＿ｆｉｌｅ", ["read", "file"]],
    ["", []],
  ])("%j → %j", (name, tokens) => {
    expect(wordTokens(name)).toEqual(tokens);
  });

  it("never throws and yields non-empty lower-case tokens", () => {
    fc.assert(
      fc.property(fc.string({ unit: "grapheme", maxLength: 40 }), (s) => {
        for (const t of wordTokens(s)) {
          expect(t.length).toBeGreaterThan(0);
          expect(t).toBe(t.toLowerCase());
        }
      }),
    );
  });
});

describe("capability inference", () => {
  it("uses whole word tokens, not substrings", () => {
    expect(caps({ name: "get_profile" })).toEqual(["state.read"]);
    expect(caps({ name: "profile" })).toEqual(["unknown"]);
    expect(caps({ name: "open_socket" })).toEqual(["net.socket"]);
    expect(caps({ name: "cathedral_info" })).toEqual(["state.read"]);
    expect(caps({ name: "read_file" })).toEqual(["fs.read"]);
    expect(caps({ name: "deleteFile" })).toEqual(["fs.delete"]);
    expect(caps({ name: "run_command" })).toEqual(["exec.command"]);
    expect(caps({ name: "send_email" })).toEqual(["message.send"]);
    expect(caps({ name: "get_api_key" })).toContain("secrets.read");
  });

  it("counts noun-verbs only where a verb stands", () => {
    expect(caps({ name: "get_record" })).toEqual(["state.read"]);
    expect(caps({ name: "record_event" })).toEqual(["state.write"]);
  });

  it("takes telling argument names as evidence", () => {
    expect(
      caps({ name: "query", inputSchema: { properties: { sql: { type: "string" } } } }),
    ).toEqual(["db.read"]);
    expect(
      caps({ name: "do_it", inputSchema: { properties: { command: { type: "string" } } } }),
    ).toEqual(["exec.command"]);
  });

  it("an explicit capabilities list is authoritative", () => {
    const p = inferCapabilities({
      name: "delete_everything",
      capabilities: ["fs.read", "fs.read"],
    } as never);
    expect(p.capabilities).toEqual([
      { capability: "fs.read", source: "explicit", evidence: "capabilities" },
    ]);
  });

  it("annotations come before the name heuristic", () => {
    const p = inferCapabilities({
      name: "sequentialthinking",
      annotations: { readOnlyHint: true },
    });
    expect(p.capabilities).toEqual([
      { capability: "state.read", source: "annotation", evidence: "readOnlyHint: true" },
    ]);
    expect(caps({ name: "toggle", annotations: { destructiveHint: true } })).toEqual([
      "state.write",
    ]);
    expect(
      caps({ name: "search", annotations: { readOnlyHint: true, openWorldHint: true } }),
    ).toEqual(["net.outbound"]);
  });

  it("readOnlyHint narrows only when the policy lets it", () => {
    const t = { name: "update_record", annotations: { readOnlyHint: true } };
    expect(caps(t)).toEqual(["state.read"]);
    expect(caps(t, { annotationsMayNarrow: false })).toEqual(["state.write"]);
  });

  it("a tool is mutating when any evidence says so", () => {
    expect(
      inferCapabilities({ name: "delete_x", annotations: { readOnlyHint: true } }).mutating,
    ).toBe(true);
    expect(inferCapabilities({ name: "get_x" }).mutating).toBe(false);
    const additive = inferCapabilities({
      name: "add_x",
      annotations: { readOnlyHint: false, destructiveHint: false },
    });
    expect(additive.mutating && additive.additiveOnly).toBe(true);
  });

  it("never throws on hostile definitions", () => {
    fc.assert(
      fc.property(fc.anything(), fc.anything(), fc.anything(), (name, annotations, inputSchema) => {
        inferCapabilities({ name, annotations, inputSchema } as never);
      }),
    );
  });
});
