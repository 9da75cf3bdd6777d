import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it, onTestFinished } from "vitest";
import { canonicalDigest } from "../../src/canonical/index.js";
import {
  DEFAULT_PIN_FILE,
  guardFromPinFile,
  PinFileError,
  parsePinFile,
  pinFileFromGuard,
  readPinFile,
  serializePinFile,
  ToolDefinitionPinGuard,
  writePinFile,
} from "../../src/index.js";

const add = {
  name: "add",
  description: "Add two numbers",
  inputSchema: { type: "object" },
  title: "Add",
};
const mul = { name: "mul", description: "Multiply", annotations: { readOnlyHint: true } };

function guardWith(...tools: object[]): ToolDefinitionPinGuard {
  const guard = new ToolDefinitionPinGuard();
  for (const t of tools) guard.approve(t);
  return guard;
}

describe("pin files", () => {
  it("default name", () => {
    expect(DEFAULT_PIN_FILE).toBe("airlock.pins.json");
  });

  it("serialises deterministically: sorted keys, two-space indent, final newline, no bookkeeping", () => {
    const a = serializePinFile(pinFileFromGuard(guardWith(add, mul), { server: "calc" }));
    const b = serializePinFile(pinFileFromGuard(guardWith(mul, add), { server: "calc" }));
    expect(a).toBe(b);
    expect(a.endsWith("}\n")).toBe(true);
    expect(a).toContain('\n  "servers": {\n    "calc": {');
    expect(a.indexOf('"servers"')).toBeLessThan(a.indexOf('"version"'));
    const parsed = JSON.parse(a);
    expect(parsed.servers.calc.tools.add).toEqual({
      definition: { name: "add", description: "Add two numbers", inputSchema: { type: "object" } },
      digest: canonicalDigest(add),
      pinVersion: 2,
    });
  });

  it("round-trips into a guard that judges exactly as the original", () => {
    const file = parsePinFile(
      serializePinFile(pinFileFromGuard(guardWith(add, mul), { server: "calc" })),
    );
    const guard = guardFromPinFile(file);
    expect(guard.check(add).verdict).toBe("allow_pinned");
    expect(guard.check({ ...mul, annotations: { readOnlyHint: false } }).verdict).toBe(
      "deny_annotations_drift",
    );
    expect(guard.check({ name: "div" }).verdict).toBe("deny_unpinned");
    expect(guard.approvedDefinition("add")?.description).toBe("Add two numbers");
  });

  it("keeps version 1 pins and digest-only entries", () => {
    const text = JSON.stringify({
      version: 1,
      servers: {
        legacy: {
          tools: { add: { digest: canonicalDigest(add, { pinVersion: 1 }), pinVersion: 1 } },
        },
      },
    });
    const guard = guardFromPinFile(parsePinFile(text));
    expect(guard.check({ ...add, annotations: { destructiveHint: true } }).verdict).toBe(
      "allow_pinned",
    );
    expect(guard.check({ ...add, description: "x" }).verdict).toBe("deny_multi_field_drift");
    expect(serializePinFile(pinFileFromGuard(guard, { server: "legacy" }))).toContain(
      '"pinVersion": 1',
    );
  });

  it("keeps other servers and the section's source when updating one server", () => {
    const start = pinFileFromGuard(guardWith(add), { server: "calc" });
    start.servers.calc!.source = { command: "node", args: ["calc.js"] };
    const withOther = pinFileFromGuard(guardWith(mul), { server: "other", into: start });
    const updated = pinFileFromGuard(guardWith(add, mul), { server: "calc", into: withOther });
    expect(Object.keys(updated.servers).sort()).toEqual(["calc", "other"]);
    expect(updated.servers.calc!.source).toEqual({ command: "node", args: ["calc.js"] });
    expect(Object.keys(updated.servers.calc!.tools).sort()).toEqual(["add", "mul"]);
    expect(Object.keys(start.servers)).toEqual(["calc"]);
    expect(Object.keys(start.servers.calc!.tools)).toEqual(["add"]);
  });

  it("chooses the server: named, or the only one; otherwise a clear error", () => {
    const file = pinFileFromGuard(guardWith(mul), {
      server: "b",
      into: pinFileFromGuard(guardWith(add), { server: "a" }),
    });
    expect(guardFromPinFile(file, { server: "a" }).has("add")).toBe(true);
    expect(() => guardFromPinFile(file)).toThrow(
      expect.objectContaining({ code: "PIN_FILE_UNKNOWN_SERVER" }),
    );
    expect(() => guardFromPinFile(file, { server: "c" })).toThrow(
      expect.objectContaining({ code: "PIN_FILE_UNKNOWN_SERVER" }),
    );
    expect(() => guardFromPinFile(file, { server: "__proto__" })).toThrow(
      expect.objectContaining({ code: "PIN_FILE_UNKNOWN_SERVER" }),
    );
  });

  it("passes enforce through", () => {
    const file = pinFileFromGuard(guardWith(add));
    expect(guardFromPinFile(file, { enforce: false }).enforce).toBe(false);
    expect(guardFromPinFile(file).enforce).toBe(true);
  });

  const good = () =>
    JSON.parse(serializePinFile(pinFileFromGuard(guardWith(add), { server: "calc" })));
  it.each([
    ["not JSON", "{", "PIN_FILE_INVALID"],
    ["an array", "[]", "PIN_FILE_INVALID"],
    ["no version", JSON.stringify({ servers: {} }), "PIN_FILE_INVALID"],
    ["version 2", JSON.stringify({ version: 2, servers: {} }), "PIN_FILE_VERSION"],
    ["version as a string", JSON.stringify({ version: "1", servers: {} }), "PIN_FILE_VERSION"],
    ["no servers", JSON.stringify({ version: 1 }), "PIN_FILE_INVALID"],
    [
      "an unknown top-level field",
      JSON.stringify({ version: 1, servers: {}, extra: 1 }),
      "PIN_FILE_INVALID",
    ],
    [
      "a server without tools",
      JSON.stringify({ version: 1, servers: { s: {} } }),
      "PIN_FILE_INVALID",
    ],
    [
      "a bad digest",
      (() => {
        const f = good();
        f.servers.calc.tools.add.digest = "abc";
        return JSON.stringify(f);
      })(),
      "PIN_FILE_INVALID",
    ],
    [
      "a missing pinVersion",
      (() => {
        const f = good();
        delete f.servers.calc.tools.add.pinVersion;
        return JSON.stringify(f);
      })(),
      "PIN_FILE_INVALID",
    ],
    [
      "a tampered definition",
      (() => {
        const f = good();
        f.servers.calc.tools.add.definition.description = "evil";
        return JSON.stringify(f);
      })(),
      "PIN_FILE_INVALID",
    ],
    [
      "a definition under another name",
      (() => {
        const f = good();
        f.servers.calc.tools.add.definition.name = "mul";
        return JSON.stringify(f);
      })(),
      "PIN_FILE_INVALID",
    ],
    [
      "an unknown entry field",
      (() => {
        const f = good();
        f.servers.calc.tools.add.approvedBy = "me";
        return JSON.stringify(f);
      })(),
      "PIN_FILE_INVALID",
    ],
    [
      "a deeply nested source",
      `{"version":1,"servers":{"s":{"tools":{},"source":${'{"a":'.repeat(5000)}1${"}".repeat(5000)}}}}`,
      "PIN_FILE_INVALID",
    ],
  ])("refuses %s, never an empty guard", (_label, text, code) => {
    expect(() => parsePinFile(text)).toThrow(PinFileError);
    expect(() => parsePinFile(text)).toThrow(expect.objectContaining({ code }));
  });

  it("accepts tool and server names that are Object.prototype members", () => {
    const proto = JSON.parse('{"name":"__proto__","description":"d"}');
    const file = pinFileFromGuard(guardWith(proto, { name: "constructor" }), {
      server: "__proto__",
    });
    const reread = parsePinFile(serializePinFile(file));
    expect(Object.keys(reread.servers)).toEqual(["__proto__"]);
    const guard = guardFromPinFile(reread, { server: "__proto__" });
    expect(guard.check(proto).verdict).toBe("allow_pinned");
    expect(guard.check({ name: "constructor" }).verdict).toBe("allow_pinned");
  });

  it("writes atomically and reads back; a missing file is PIN_FILE_UNREADABLE", async () => {
    const dir = mkdtempSync(join(tmpdir(), "airlock-pins-"));
    onTestFinished(() => rmSync(dir, { recursive: true, force: true }));
    const path = join(dir, DEFAULT_PIN_FILE);
    await expect(readPinFile(path)).rejects.toMatchObject({ code: "PIN_FILE_UNREADABLE" });
    const file = pinFileFromGuard(guardWith(add, mul), { server: "calc" });
    await writePinFile(path, file);
    expect(readFileSync(path, "utf8")).toBe(serializePinFile(file));
    expect(guardFromPinFile(await readPinFile(path)).check(mul).allowed).toBe(true);
    writeFileSync(path, '{"version": 9, "servers": {}}');
    await expect(readPinFile(path)).rejects.toMatchObject({ code: "PIN_FILE_VERSION" });
    await expect(readPinFile(path)).rejects.toThrow(path);
  });
});

describe("duplicate keys in a pin file (item 9: the last copy used to win, silently)", () => {
  const valid = serializePinFile(pinFileFromGuard(guardWith(add, mul), { server: "calc" }));
  const duplicated = (text: string) => {
    try {
      parsePinFile(text);
    } catch (err) {
      if (err instanceof PinFileError && err.code === "PIN_FILE_DUPLICATE_KEY") return err.message;
      throw err;
    }
    throw new Error("accepted");
  };

  it('refuses a second "servers" key, naming the key and where the second copy is', () => {
    // What a careless merge leaves: the first copy's sections would be dropped by the next pin.
    const text = valid.replace(/\n}\n$/, ',\n  "servers": {}\n}\n');
    const line = text.split("\n").indexOf('  "servers": {}') + 1;
    expect(duplicated(text)).toContain(
      `key "servers" appears twice in the top level (second at line ${line}, column 3)`,
    );
  });

  it("refuses a duplicate at any depth, with its JSON pointer", () => {
    const tools = valid.replace(
      '"tools": {',
      `"tools": {\n        "add": ${JSON.stringify(JSON.parse(valid).servers.calc.tools.mul)},`,
    );
    expect(duplicated(tools)).toContain('key "add" appears twice in /servers/calc/tools');
    const schema = valid.replace('"inputSchema": {', '"inputSchema": {"type": "string",');
    expect(duplicated(schema)).toContain(
      'key "type" appears twice in /servers/calc/tools/add/definition/inputSchema',
    );
  });

  it("compares keys as JSON reads them: an escaped spelling is the same key", () => {
    const text = valid.replace('"version": 1', '"version": 1, "\\u0076ersion": 1');
    expect(duplicated(text)).toContain('key "version" appears twice in the top level');
  });

  it("keys equal to strings elsewhere, or repeated in sibling objects, are not duplicates", () => {
    const text = JSON.stringify({
      version: 1,
      servers: {
        a: {
          tools: {},
          source: { version: "servers", list: [{ k: 1 }, { k: 2 }], "a\\": { '"': 1 } },
        },
        b: { tools: {}, source: { version: 2 } },
      },
    });
    expect(Object.keys(parsePinFile(text).servers)).toEqual(["a", "b"]);
  });

  it("a file nested a million levels deep is refused with a code, not a stack overflow", () => {
    const depth = 1_000_000;
    const text = `{"version":1,"servers":{"a":{"tools":{},"source":{"x":${"[".repeat(depth)}${"]".repeat(depth)}}}}}`;
    expect(() => parsePinFile(text)).toThrow(expect.objectContaining({ code: "PIN_FILE_INVALID" }));
    const twice = `{"version":1,"servers":{"a":{"tools":{},"source":{"x":${"[".repeat(depth)}{"k":1,"k":2}${"]".repeat(depth)}}}}}`;
    const message = duplicated(twice);
    expect(message).toContain('key "k" appears twice in /servers/a/source/x/0/0');
    expect(message.length).toBeLessThan(600); // the pointer is cut, not a megabyte long
  });
});
