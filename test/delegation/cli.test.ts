import { spawn } from "node:child_process";
import { chmodSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { Command } from "commander";
import { afterAll, describe, expect, it, vi } from "vitest";
import { registerDelegate } from "../../src/cli/commands/delegate.js";
import { DidisClient } from "../../src/guard/didis-client.js";

const dir = mkdtempSync(join(tmpdir(), "airlock-delegate-cli-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const at = (name: string) => join(dir, name);

/** Run `airlock delegate ...` in process, capturing stdout, stderr and the exit code. */
async function cli(...args: string[]) {
  const out: string[] = [];
  const err: string[] = [];
  const so = vi.spyOn(process.stdout, "write").mockImplementation((chunk) => {
    out.push(String(chunk));
    return true;
  });
  const se = vi.spyOn(process.stderr, "write").mockImplementation((chunk) => {
    err.push(String(chunk));
    return true;
  });
  process.exitCode = undefined;
  const program = new Command("airlock").exitOverride();
  registerDelegate(program);
  let code: number;
  try {
    await program.parseAsync(["node", "airlock", "delegate", ...args]);
    code = Number(process.exitCode ?? 0);
  } catch (e) {
    code = (e as { exitCode?: number }).exitCode === 0 ? 0 : 2;
  } finally {
    so.mockRestore();
    se.mockRestore();
    process.exitCode = undefined;
  }
  return { code, stdout: out.join(""), stderr: err.join("") };
}

describe("airlock delegate keygen | issue | verify | revoke", () => {
  let rootDid = "";
  let agentDid = "";

  it("keygen writes a 0600 private JWK and prints the did:key", async () => {
    const r = await cli("keygen", "--out", at("root.jwk"));
    expect(r.code).toBe(0);
    rootDid = r.stdout.trim();
    expect(rootDid).toMatch(/^did:key:z6Mk/);
    expect(statSync(at("root.jwk")).mode & 0o777).toBe(0o600);
    expect(JSON.parse(readFileSync(at("root.jwk"), "utf8"))).toMatchObject({
      kty: "OKP",
      crv: "Ed25519",
      kid: rootDid,
    });
    const j = await cli("keygen", "--out", at("agent.jwk"), "--output", "json");
    expect(j.code).toBe(0);
    const parsed = JSON.parse(j.stdout);
    agentDid = parsed.did;
    expect(parsed.publicJwk).not.toHaveProperty("d");
  });

  it("keygen refuses to overwrite without --force", async () => {
    const r = await cli("keygen", "--out", at("root.jwk"), "--output", "json");
    expect(r.code).toBe(2);
    expect(JSON.parse(r.stdout).ok).toBe(false);
    expect(r.stderr).toContain("--force");
  });

  it("issue signs a chain; verify shows every check and exits 0", async () => {
    const i = await cli(
      "issue",
      "--key",
      at("root.jwk"),
      "--audience",
      agentDid,
      "--capability",
      "weather:*",
      "--capability",
      "maps:route",
      "--ttl",
      "2h",
      "--out",
      at("chain.json"),
    );
    expect(i.code).toBe(0);
    expect(i.stdout).toContain("weather:*, maps:route");
    const chain = JSON.parse(readFileSync(at("chain.json"), "utf8")).chain;
    expect(chain).toHaveLength(1);

    const v = await cli(
      "verify",
      at("chain.json"),
      "--root",
      rootDid,
      "--agent",
      agentDid,
      "--capability",
      "weather:forecast",
    );
    expect(v.code).toBe(0);
    expect(v.stdout).toContain("VALID");
    expect(v.stdout).toMatch(/PASS signatures/);
    expect(v.stdout).toContain("GRANTED weather:forecast via weather:*");

    const j = await cli(
      "verify",
      at("chain.json"),
      "--root",
      rootDid,
      "--capability",
      "maps:route",
      "--output",
      "json",
    );
    expect(j.code).toBe(0);
    const body = JSON.parse(j.stdout);
    expect(body).toMatchObject({
      ok: true,
      status: "VALID",
      capability: { granted: true, matchedCapability: "maps:route" },
    });
  });

  it("verify exits 1 for an ungranted capability, an untrusted root, or a wrong agent, in both formats", async () => {
    for (const format of ["text", "json"]) {
      expect(
        (
          await cli(
            "verify",
            at("chain.json"),
            "--root",
            rootDid,
            "--capability",
            "payments:refund",
            "--output",
            format,
          )
        ).code,
      ).toBe(1);
      expect(
        (await cli("verify", at("chain.json"), "--root", agentDid, "--output", format)).code,
      ).toBe(1);
      expect(
        (
          await cli(
            "verify",
            at("chain.json"),
            "--root",
            rootDid,
            "--agent",
            rootDid,
            "--output",
            format,
          )
        ).code,
      ).toBe(1);
    }
    const j = JSON.parse(
      (await cli("verify", at("chain.json"), "--root", agentDid, "--output", "json")).stdout,
    );
    expect(j).toMatchObject({ ok: false, status: "INVALID", code: "DELEGATION_UNTRUSTED_ROOT" });
  });

  it("issue below a parent chain; a widening is refused with exit 2", async () => {
    await cli("keygen", "--out", at("tool.jwk"));
    const toolDid = JSON.parse(readFileSync(at("tool.jwk"), "utf8")).kid;
    const ok = await cli(
      "issue",
      "--key",
      at("agent.jwk"),
      "--audience",
      toolDid,
      "--capability",
      "weather:forecast",
      "--ttl",
      "30m",
      "--parent",
      at("chain.json"),
      "--output",
      "json",
    );
    expect(ok.code).toBe(0);
    const issued = JSON.parse(ok.stdout);
    expect(issued.chain).toHaveLength(2);
    writeFileSync(at("chain2.json"), JSON.stringify({ chain: issued.chain }));
    expect(
      (
        await cli(
          "verify",
          at("chain2.json"),
          "--root",
          rootDid,
          "--agent",
          toolDid,
          "--capability",
          "weather:forecast",
        )
      ).code,
    ).toBe(0);

    const wide = await cli(
      "issue",
      "--key",
      at("agent.jwk"),
      "--audience",
      toolDid,
      "--capability",
      "payments:*",
      "--parent",
      at("chain.json"),
      "--output",
      "json",
    );
    expect(wide.code).toBe(2);
    expect(JSON.parse(wide.stdout).error.code).toBe("DELEGATION_ESCALATION");
  });

  it("revoke in a registry makes verify --registry refuse the chain", async () => {
    const chain = JSON.parse(readFileSync(at("chain2.json"), "utf8")).chain as string[];
    const jti = JSON.parse(Buffer.from(chain[1]!.split(".")[1]!, "base64url").toString()).jti;
    expect((await cli("revoke", jti, "--registry", at("reg.json"))).code).toBe(0);
    const v = await cli(
      "verify",
      at("chain2.json"),
      "--root",
      rootDid,
      "--registry",
      at("reg.json"),
      "--output",
      "json",
    );
    expect(v.code).toBe(1);
    expect(JSON.parse(v.stdout).code).toBe("DELEGATION_REVOKED");
  });

  it("usage errors exit 2: bad --output, unreadable chain, world-readable key, bad capability", async () => {
    expect((await cli("verify", at("chain.json"), "--root", rootDid, "--output", "xml")).code).toBe(
      2,
    );
    expect((await cli("verify", at("missing.json"), "--root", rootDid)).code).toBe(2);
    writeFileSync(at("junk.json"), "{");
    expect((await cli("verify", at("junk.json"), "--root", rootDid, "--output", "json")).code).toBe(
      2,
    );
    expect(
      (await cli("verify", at("chain.json"), "--root", rootDid, "--capability", "weather:*")).code,
    ).toBe(2);
    chmodSync(at("root.jwk"), 0o644);
    const r = await cli(
      "issue",
      "--key",
      at("root.jwk"),
      "--audience",
      agentDid,
      "--capability",
      "x",
    );
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("chmod 600");
    chmodSync(at("root.jwk"), 0o600);
    expect(
      (
        await cli(
          "issue",
          "--key",
          at("root.jwk"),
          "--audience",
          agentDid,
          "--capability",
          "x",
          "--ttl",
          "soon",
        )
      ).code,
    ).toBe(2);
  });
});

describe("airlock delegate serve", () => {
  it("serves the DID.is endpoints over loopback to token holders from a persistent registry, and stops on SIGTERM", async () => {
    const keygen = await cli("keygen", "--out", at("s-root.jwk"), "--output", "json");
    const root = JSON.parse(keygen.stdout).did as string;
    const agent = JSON.parse(
      (await cli("keygen", "--out", at("s-agent.jwk"), "--output", "json")).stdout,
    ).did as string;
    const chain = JSON.parse(
      (
        await cli(
          "issue",
          "--key",
          at("s-root.jwk"),
          "--audience",
          agent,
          "--capability",
          "weather:*",
          "--output",
          "json",
        )
      ).stdout,
    ).chain;

    const token = "Zt1q8W4mXc7VbN2pLs9R0yKe";
    writeFileSync(at("serve-tokens.txt"), `${token}\n`, { mode: 0o600 });
    const child = spawn(
      process.execPath,
      [
        "--import",
        "tsx",
        "src/cli/bin.ts",
        "delegate",
        "serve",
        "--registry",
        at("serve.db"),
        "--port",
        "0",
        "--token-file",
        at("serve-tokens.txt"),
        "--output",
        "json",
      ],
      { stdio: ["ignore", "pipe", "pipe"] },
    );
    try {
      const first = await new Promise<string>((resolve, reject) => {
        const lines: string[] = [];
        const rl = createInterface({ input: child.stdout! });
        rl.on("line", (line) => {
          lines.push(line);
          if (line === "}") resolve(lines.join("\n"));
        });
        child.once("exit", (code) => reject(new Error(`serve exited ${code}`)));
      });
      const { url } = JSON.parse(first) as { url: string };
      expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
      const anonymous = new DidisClient({ baseUrl: url, timeoutMs: 5000 });
      const refused = await anonymous
        .verifyTool({ agent, tool: "weather:forecast", root })
        .catch((e) => e);
      expect(refused.status).toBe(401);
      const client = new DidisClient({
        baseUrl: url,
        timeoutMs: 5000,
        headers: { authorization: `Bearer ${token}` },
      });
      const registered = await client.verifyDelegation({
        chain,
        trustedRoots: [root],
        register: true,
      });
      expect(registered.registered).toBe(true);
      const answer = await client.verifyTool({ agent, tool: "weather:forecast", root });
      expect(answer).toMatchObject({ decision: "ALLOW", matchedCapability: "weather:*" });
    } finally {
      const exited = new Promise<number | null>((r) => child.once("exit", (code) => r(code)));
      child.kill("SIGTERM");
      expect(await exited).toBe(0);
    }
    // The registration persisted: a fresh verifier on the same database allows.
    const { openSqliteRegistry } = await import("../../src/guard/registry/sqlite.js");
    const registry = await openSqliteRegistry(at("serve.db"));
    expect(await registry.chainsFor(agent)).toHaveLength(1);
    await registry.close();
  });
});

describe("airlock delegate serve: authentication", () => {
  it("refuses an address beyond loopback without --token-file, and a token file others can read or that is empty", async () => {
    writeFileSync(at("tokens.txt"), "kq3V0m8yF2cJt7Lx9aPzR4wE\n", { mode: 0o644 });
    chmodSync(at("tokens.txt"), 0o644);
    writeFileSync(at("empty-tokens.txt"), "\n\n", { mode: 0o600 });
    const cases: [string[], string][] = [
      [["--host", "0.0.0.0"], "refusing to listen on 0.0.0.0 without authentication"],
      [["--host", "0.0.0.0"], "--token-file"],
      [["--token-file", at("tokens.txt")], "chmod 600"],
      [["--token-file", at("empty-tokens.txt")], "holds no token"],
    ];
    for (const [flags, said] of cases) {
      const run = await cli("serve", "--registry", at("auth.json"), "--port", "0", ...flags);
      expect(run.code, flags.join(" ")).toBe(2);
      expect(run.stderr).toContain(said);
    }
  });
});

describe("airlock delegate verify - (stdin), as a real process", () => {
  it("reads the chain from standard input and exits 0, with no colour when piped", async () => {
    const root = JSON.parse(
      (await cli("keygen", "--out", at("p-root.jwk"), "--output", "json")).stdout,
    ).did as string;
    const agent = JSON.parse(
      (await cli("keygen", "--out", at("p-agent.jwk"), "--output", "json")).stdout,
    ).did as string;
    const issued = await cli(
      "issue",
      "--key",
      at("p-root.jwk"),
      "--audience",
      agent,
      "--capability",
      "weather:*",
    );
    const { execFileSync } = await import("node:child_process");
    const out = execFileSync(
      process.execPath,
      [
        "--import",
        "tsx",
        "src/cli/bin.ts",
        "delegate",
        "verify",
        "-",
        "--root",
        root,
        "--agent",
        agent,
        "--capability",
        "weather:forecast",
      ],
      { input: issued.stdout, encoding: "utf8", env: { ...process.env, FORCE_COLOR: "" } },
    );
    expect(out).toContain("GRANTED weather:forecast via weather:*");
    expect(out).not.toMatch(/\u001b\[/);
  });
});
