import {
  chmodSync,
  lstatSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  ClientConfigError,
  clientConfigLocations,
  parseClientConfig,
  readClientConfig,
} from "../../src/config/client-config.js";
import { unwrapConfig, wrapConfig, writeConfigWithBackup } from "../../src/config/wrap.js";

const airlock = { command: "/usr/bin/node", args: ["/opt/airlock/bin.js"] };

const desktop = {
  globalShortcut: "Ctrl+Space",
  mcpServers: {
    filesystem: {
      command: "npx",
      args: ["-y", "@modelcontextprotocol/server-filesystem", "/Users/me/Documents"],
      env: { DEBUG: "1" },
      customField: { keep: true },
    },
    everything: { command: "node", args: ["everything.js", "stdio"] },
    bare: { command: "my-server" },
    remote: {
      type: "http",
      url: "https://mcp.example.com/mcp",
      headers: { Authorization: "Bearer x" },
    },
    weird: { note: "no command" },
  },
};

describe("client configs", () => {
  it("knows where every supported client keeps its config", () => {
    const places = clientConfigLocations({ cwd: "/proj", home: "/home/me", platform: "linux" });
    expect(places.map((p) => `${p.kind} ${p.path}`)).toEqual([
      "claude-code /proj/.mcp.json",
      "cursor /proj/.cursor/mcp.json",
      "vscode /proj/.vscode/mcp.json",
      "claude-desktop /home/me/.config/Claude/claude_desktop_config.json",
      "claude-code /home/me/.claude.json",
      "cursor /home/me/.cursor/mcp.json",
    ]);
    const mac = clientConfigLocations({ cwd: "/p", home: "/Users/me", platform: "darwin" });
    expect(mac.find((p) => p.kind === "claude-desktop")?.path).toBe(
      "/Users/me/Library/Application Support/Claude/claude_desktop_config.json",
    );
  });

  it("reads Claude Desktop, Claude Code (~/.claude.json projects), Cursor and VS Code shapes", () => {
    const claude = parseClientConfig(JSON.stringify(desktop), "/x/claude_desktop_config.json");
    expect(claude.kind).toBe("claude-desktop");
    expect(claude.servers.map((s) => [s.name, s.launch?.transport ?? null])).toEqual([
      ["filesystem", "stdio"],
      ["everything", "stdio"],
      ["bare", "stdio"],
      ["remote", "http"],
      ["weird", null],
    ]);
    expect(claude.servers[0]?.launch).toEqual({
      transport: "stdio",
      command: "npx",
      args: ["-y", "@modelcontextprotocol/server-filesystem", "/Users/me/Documents"],
      env: { DEBUG: "1" },
    });

    const code = parseClientConfig(
      JSON.stringify({
        mcpServers: { user: { type: "stdio", command: "u" } },
        projects: { "/work/app": { mcpServers: { local: { command: "l", args: ["1"] } } } },
      }),
      "/home/me/.claude.json",
    );
    expect(code.kind).toBe("claude-code");
    expect(code.servers.map((s) => [s.name, s.mapPath.join(".")])).toEqual([
      ["user", "mcpServers"],
      ["local", "projects./work/app.mcpServers"],
    ]);
    // Project-scoped servers get their own pin-file section when wrapped.
    const wrappedCode = wrapConfig(code, { airlock, pinsPath: "/p.json" });
    expect(wrappedCode.changes.map((c) => c.section)).toEqual(["user", "/work/app#local"]);

    const vscode = parseClientConfig(
      `{
        // VS Code allows comments
        "inputs": [],
        "servers": {
          "gh": { "type": "stdio", "command": "gh-mcp", "args": ["--x"], }, /* and trailing commas */
        },
      }`,
      "/proj/.vscode/mcp.json",
    );
    expect(vscode.kind).toBe("vscode");
    expect(vscode.hadComments).toBe(true);
    expect(vscode.servers[0]?.launch).toEqual({
      transport: "stdio",
      command: "gh-mcp",
      args: ["--x"],
    });
  });

  it("refuses a file that is not a config with a typed error", () => {
    expect(() => parseClientConfig("[1,2]", "a.json")).toThrow(ClientConfigError);
    try {
      parseClientConfig("{nope", "a.json");
    } catch (err) {
      expect((err as ClientConfigError).code).toBe("CLIENT_CONFIG_INVALID");
    }
    try {
      readClientConfig("/definitely/not/here.json");
    } catch (err) {
      expect((err as ClientConfigError).code).toBe("CLIENT_CONFIG_UNREADABLE");
    }
  });

  it("wraps every stdio server, keeps every other field, skips remote ones, and unwraps exactly", () => {
    const config = parseClientConfig(JSON.stringify(desktop), "/x/claude_desktop_config.json");
    const before = JSON.stringify(config.document);
    const { document, changes } = wrapConfig(config, {
      airlock,
      pinsPath: "/home/me/airlock.pins.json",
      auditLogPath: "/home/me/airlock-audit.jsonl",
    });
    expect(JSON.stringify(config.document)).toBe(before);
    expect(changes.map((c) => `${c.name}:${c.action}`)).toEqual([
      "filesystem:wrapped",
      "everything:wrapped",
      "bare:wrapped",
      "remote:skipped",
      "weird:skipped",
    ]);
    const servers = document.mcpServers as Record<string, Record<string, unknown>>;
    expect(servers.filesystem).toEqual({
      command: "/usr/bin/node",
      args: [
        "/opt/airlock/bin.js",
        "proxy",
        "--pins",
        "/home/me/airlock.pins.json",
        "--server",
        "filesystem",
        "--audit-log",
        "/home/me/airlock-audit.jsonl",
        "--",
        "npx",
        "-y",
        "@modelcontextprotocol/server-filesystem",
        "/Users/me/Documents",
      ],
      env: { DEBUG: "1" },
      customField: { keep: true },
    });
    expect(servers.remote).toEqual(desktop.mcpServers.remote);
    expect(document.globalShortcut).toBe("Ctrl+Space");

    const again = wrapConfig(parseClientConfig(JSON.stringify(document), "c.json"), {
      airlock,
      pinsPath: "/p.json",
    });
    expect(again.changes.filter((c) => c.action === "already_wrapped")).toHaveLength(3);

    const restored = unwrapConfig(parseClientConfig(JSON.stringify(document), "c.json")).document;
    const expected = structuredClone(desktop) as typeof desktop & {
      mcpServers: { bare: { args?: string[] } };
    };
    expected.mcpServers.bare.args = [];
    expect(restored).toEqual(expected);
  });

  it("property: wrap then unwrap gives back every entry and field", () => {
    const name = fc.string({ minLength: 1, maxLength: 8 });
    const entry = fc.record({
      command: fc.string({ minLength: 1, maxLength: 10 }),
      args: fc.array(fc.string({ maxLength: 8 }), { maxLength: 5 }),
      env: fc.dictionary(fc.string({ maxLength: 5 }), fc.string({ maxLength: 5 })),
      extra: fc.jsonValue({ maxDepth: 2 }),
    });
    fc.assert(
      fc.property(
        fc.dictionary(name, entry, { maxKeys: 5 }),
        fc.jsonValue({ maxDepth: 2 }),
        (servers, other) => {
          const doc = { other, mcpServers: servers };
          const config = parseClientConfig(JSON.stringify(doc), "mcp.json");
          const wrapped = wrapConfig(config, { airlock, pinsPath: "/p.json" }).document;
          const back = unwrapConfig(
            parseClientConfig(JSON.stringify(wrapped), "mcp.json"),
          ).document;
          expect(back).toEqual(JSON.parse(JSON.stringify(doc)));
        },
      ),
    );
  });

  it("writes a backup before replacing the file", async () => {
    const dir = mkdtempSync(join(tmpdir(), "airlock-config-"));
    try {
      const path = join(dir, ".mcp.json");
      writeFileSync(path, '{ "mcpServers": {} }\n');
      const backup = await writeConfigWithBackup(path, { mcpServers: { a: { command: "x" } } });
      expect(backup).toBe(`${path}.airlock-backup`);
      expect(readFileSync(backup, "utf8")).toBe('{ "mcpServers": {} }\n');
      expect(JSON.parse(readFileSync(path, "utf8"))).toEqual({
        mcpServers: { a: { command: "x" } },
      });
      const second = await writeConfigWithBackup(path, { mcpServers: {} });
      expect(second).toBe(`${path}.airlock-backup-1`);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("writes a linked config through its link, keeping the target's mode (the shared atomic write)", async () => {
    const dir = mkdtempSync(join(tmpdir(), "airlock-config-"));
    try {
      const target = join(dir, "dotfiles-mcp.json");
      const path = join(dir, ".mcp.json");
      writeFileSync(target, '{ "mcpServers": {} }\n', { mode: 0o600 });
      chmodSync(target, 0o600);
      symlinkSync(target, path);
      const backup = await writeConfigWithBackup(path, { mcpServers: { a: { command: "x" } } });
      expect(lstatSync(path).isSymbolicLink()).toBe(true);
      expect(JSON.parse(readFileSync(target, "utf8"))).toEqual({
        mcpServers: { a: { command: "x" } },
      });
      expect(statSync(target).mode & 0o777).toBe(0o600);
      expect(readFileSync(backup, "utf8")).toBe('{ "mcpServers": {} }\n');
      expect(readdirSync(dir).sort()).toEqual(
        [".mcp.json", ".mcp.json.airlock-backup", "dotfiles-mcp.json"].sort(),
      );
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
