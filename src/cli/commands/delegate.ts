import { chmod, open, writeFile } from "node:fs/promises";
import type { Command } from "commander";
import type { DelegationVerification } from "../../guard/delegation/verify.js";
import {
  type OutputFormat,
  type Palette,
  paletteFor,
  parseOutputFormat,
  printable,
  writeJson,
} from "../output.js";
import { parseCount, readChainFile, readPrivateFile, UsageError } from "./delegate-input.js";
import { openRegistry, showRegistry } from "./delegate-registry.js";
import { type ServeFlags, serve } from "./delegate-serve.js";

/**
 * `airlock delegate keygen | issue | verify | revoke | serve`. The guard modules are
 * imported only when a subcommand runs. Exit codes, identical for every `--output`:
 * 0 done (verify: the chain is valid and grants the capability), 1 verify refused the
 * chain or the capability, 2 usage error, unreadable input, or I/O failure.
 */
export function registerDelegate(program: Command): void {
  const delegate = program
    .command("delegate")
    .description("Delegation keys and chains: keygen, issue, verify, revoke, serve")
    .addHelpText(
      "after",
      "\nExit codes (identical for every --output):\n  0  done; verify: the chain is valid (and grants --capability)\n  1  verify: the chain is refused, or does not grant --capability\n  2  usage error, unreadable key/chain/registry, I/O failure\n\nDocs: docs/delegation.md",
    );

  delegate
    .command("keygen")
    .description(
      "Generate an Ed25519 key, write it as a private JWK (mode 0600), print its did:key",
    )
    .requiredOption("--out <file>", "where to write the private JWK")
    .option("--force", "overwrite an existing file")
    .option("--output <format>", "text | json", "text")
    .action(async (flags: { out: string; force?: boolean; output: string }) => {
      process.exitCode = await run("keygen", flags.output, (format) => keygen(flags, format));
    });

  delegate
    .command("issue")
    .description(
      "Sign a delegation link from a key to an audience, optionally below a parent chain",
    )
    .requiredOption("--key <file>", "the issuer's private JWK")
    .requiredOption("--audience <did>", "the DID receiving the capabilities")
    .requiredOption(
      "--capability <grant...>",
      "grants to hand on (repeatable): weather:forecast, weather:*, *",
    )
    .option("--ttl <duration>", "lifetime: 3600, 90s, 30m, 12h, 7d (default 1h unless --expires)")
    .option("--expires <time>", "expiry: epoch seconds or an ISO 8601 date")
    .option(
      "--not-before <time>",
      "start of validity: epoch seconds or an ISO 8601 date (default now)",
    )
    .option("--parent <file>", "the chain this link extends (a chain file)")
    .option("--jti <id>", "the link's unique id (default: a random UUID)")
    .option("--out <file>", "write the resulting chain file here instead of stdout")
    .option("--output <format>", "text | json", "text")
    .action(async (flags: IssueFlags) => {
      process.exitCode = await run("issue", flags.output, (format) => issue(flags, format));
    });

  delegate
    .command("verify")
    .description(
      "Verify a chain file for trusted roots (and an agent, and a capability), showing every check",
    )
    .argument("<chain>", 'a chain file ({"chain": [...]} or a JSON array), or - for stdin')
    .requiredOption("--root <did...>", "trusted root DIDs (repeatable)")
    .option("--agent <did>", "the DID the chain must end at")
    .option("--capability <capability>", "an exact capability the chain must grant")
    .option("--now <time>", "judge at this time: epoch seconds or ISO 8601 (default now)")
    .option("--skew <seconds>", "clock skew tolerated on link windows", "60")
    .option("--max-length <n>", "most links accepted", "10")
    .option(
      "--registry <target>",
      "honour the revocations of this registry (.json, .db, .sqlite, postgres://...)",
    )
    .option("--output <format>", "text | json", "text")
    .action(async (chainPath: string, flags: VerifyFlags) => {
      process.exitCode = await run("verify", flags.output, (format) =>
        verify(chainPath, flags, format),
      );
    });

  delegate
    .command("revoke")
    .description("Revoke a link id (jti) in a registry: every chain containing it stops verifying")
    .argument("<jti>", "the link id to revoke")
    .requiredOption("--registry <target>", "the registry (.json, .db, .sqlite, postgres://...)")
    .option("--output <format>", "text | json", "text")
    .action(async (jti: string, flags: { registry: string; output: string }) => {
      process.exitCode = await run("revoke", flags.output, (format) => revoke(jti, flags, format));
    });

  delegate
    .command("serve")
    .description(
      "Run a DID.is-compatible verification service on the local verifier and a persistent registry",
    )
    .requiredOption(
      "--registry <target>",
      "registry: .json (atomic JSON file), .db/.sqlite (SQLite) or postgres://... (PostgreSQL, shared by several instances)",
    )
    .option(
      "--host <host>",
      "address to listen on; any but loopback needs --token-file (or --insecure-no-auth)",
      "127.0.0.1",
    )
    .option(
      "--token-file <path>",
      "bearer tokens callers must send, one per line (mode 600, like a key)",
    )
    .option(
      "--insecure-no-auth",
      "listen beyond loopback without tokens (only behind an authenticating proxy)",
    )
    .option("--port <port>", "port (0 picks a free one)", "8787")
    .option(
      "--trusted-root <did...>",
      "only accept these roots (default: the root each question names)",
    )
    .option(
      "--shutdown-timeout <seconds>",
      "on SIGTERM/SIGINT, how long to finish the requests in flight",
      "10",
    )
    .option("--output <format>", "text | json (the listening URL)", "text")
    .action(async (flags: ServeFlags) => {
      process.exitCode = await run("serve", flags.output, (format) => serve(flags, format));
    });
}

interface IssueFlags {
  key: string;
  audience: string;
  capability: string[];
  ttl?: string;
  expires?: string;
  notBefore?: string;
  parent?: string;
  jti?: string;
  out?: string;
  output: string;
}

interface VerifyFlags {
  root: string[];
  agent?: string;
  capability?: string;
  now?: string;
  skew: string;
  maxLength: string;
  registry?: string;
  output: string;
}

async function run(
  name: string,
  output: string,
  body: (format: OutputFormat) => Promise<number>,
): Promise<number> {
  let format: OutputFormat;
  try {
    format = parseOutputFormat(output);
  } catch (err) {
    process.stderr.write(`airlock delegate ${name}: ${(err as Error).message}\n`);
    return 2;
  }
  try {
    return await body(format);
  } catch (err) {
    const code = (err as { code?: unknown }).code;
    const message = printable((err as Error).message ?? String(err));
    if (format === "json") {
      writeJson({ ok: false, error: { code: typeof code === "string" ? code : "USAGE", message } });
    }
    process.stderr.write(`airlock delegate ${name}: ${message}\n`);
    return 2;
  }
}

const DURATION = /^(\d{1,9})(s|m|h|d)?$/;
const UNIT = { s: 1, m: 60, h: 3600, d: 86400 } as const;

function parseDuration(text: string): number {
  const m = DURATION.exec(text.trim());
  if (!m) throw new UsageError(`--ttl ${JSON.stringify(text)}: use seconds or 90s, 30m, 12h, 7d`);
  return Number(m[1]) * UNIT[(m[2] ?? "s") as keyof typeof UNIT];
}

function parseTime(text: string, flag: string): number {
  if (/^\d{1,12}$/.test(text.trim())) return Number(text.trim());
  const ms = Date.parse(text);
  if (Number.isNaN(ms)) {
    throw new UsageError(`${flag} ${JSON.stringify(text)}: use epoch seconds or ISO 8601`);
  }
  return Math.floor(ms / 1000);
}

async function readKey(path: string) {
  const { importPrivateJwk } = await import("../../guard/did/keys.js");
  const text = await readPrivateFile(path, "key", 64 * 1024);
  let jwk: unknown;
  try {
    jwk = JSON.parse(text);
  } catch (err) {
    throw new UsageError(`key ${path} is not a JSON JWK: ${(err as Error).message}`);
  }
  return importPrivateJwk(jwk);
}

async function keygen(
  flags: { out: string; force?: boolean },
  format: OutputFormat,
): Promise<number> {
  const { exportPrivateJwk, exportPublicJwk, generateDelegationKey } = await import(
    "../../guard/did/keys.js"
  );
  const key = generateDelegationKey();
  const body = `${JSON.stringify(exportPrivateJwk(key), null, 2)}\n`;
  try {
    const handle = await open(flags.out, flags.force ? "w" : "wx", 0o600);
    try {
      await handle.writeFile(body, "utf8");
    } finally {
      await handle.close();
    }
    // `open` applies the mode only when it creates the file; --force may reuse one.
    await chmod(flags.out, 0o600);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === "EEXIST") {
      throw new UsageError(`${flags.out} exists; pass --force to overwrite it`);
    }
    throw new UsageError(`cannot write ${flags.out}: ${(err as Error).message}`);
  }
  if (format === "json") {
    writeJson({
      ok: true,
      did: key.did,
      kid: key.kid,
      publicJwk: exportPublicJwk(key),
      file: flags.out,
    });
  } else {
    process.stdout.write(`${key.did}\n`);
    process.stderr.write(`airlock: wrote the private key to ${flags.out} (mode 0600)\n`);
  }
  return 0;
}

async function issue(flags: IssueFlags, format: OutputFormat): Promise<number> {
  const { issueDelegation } = await import("../../guard/delegation/issue.js");
  const issuer = await readKey(flags.key);
  const parent = flags.parent === undefined ? undefined : await readChainFile(flags.parent);
  if (parent !== undefined && !Array.isArray(parent)) {
    throw new UsageError(`--parent ${flags.parent}: "chain" must be an array`);
  }
  if (flags.ttl !== undefined && flags.expires !== undefined) {
    throw new UsageError("give --ttl or --expires, not both");
  }
  const issued = await issueDelegation({
    issuer,
    audience: flags.audience,
    capabilities: flags.capability,
    ...(flags.expires !== undefined
      ? { expires: parseTime(flags.expires, "--expires") }
      : { ttlSeconds: parseDuration(flags.ttl ?? "1h") }),
    ...(flags.notBefore !== undefined && {
      notBefore: parseTime(flags.notBefore, "--not-before"),
    }),
    ...(parent !== undefined && { parent: parent as string[] }),
    ...(flags.jti !== undefined && { jti: flags.jti }),
  });
  const chainFile = { chain: issued.chain };
  if (flags.out !== undefined) {
    await writeFile(flags.out, `${JSON.stringify(chainFile, null, 2)}\n`, "utf8").catch((err) => {
      throw new UsageError(`cannot write ${flags.out}: ${(err as Error).message}`);
    });
  }
  if (format === "json") {
    writeJson({
      ok: true,
      ...chainFile,
      link: issued.link,
      claims: issued.claims,
      digest: issued.digest,
      ...(flags.out !== undefined && { file: flags.out }),
    });
  } else if (flags.out === undefined) {
    process.stdout.write(`${JSON.stringify(chainFile, null, 2)}\n`);
  } else {
    const c = issued.claims;
    process.stdout.write(
      `issued link ${c.jti} (${issued.chain.length} in chain): ${c.iss} -> ${c.aud}\n  capabilities: ${c.cap.join(", ")}\n  valid: ${new Date(c.nbf * 1000).toISOString()} .. ${new Date(c.exp * 1000).toISOString()}\n  wrote ${flags.out}\n`,
    );
  }
  return 0;
}

async function verify(
  chainPath: string,
  flags: VerifyFlags,
  format: OutputFormat,
): Promise<number> {
  const { verifyDelegation } = await import("../../guard/delegation/verify.js");
  const { grantedBy, parseCapability } = await import("../../guard/capability.js");
  if (flags.capability !== undefined) {
    try {
      parseCapability(flags.capability);
    } catch (err) {
      throw new UsageError(`--capability: ${(err as Error).message}`);
    }
  }
  const chain = await readChainFile(chainPath);
  const registry = flags.registry === undefined ? undefined : await openRegistry(flags.registry);
  let result: DelegationVerification;
  try {
    result = await verifyDelegation(chain, {
      trustedRoots: flags.root,
      skewSeconds: parseCount(flags.skew, "--skew", 3600),
      maxLength: parseCount(flags.maxLength, "--max-length", 64),
      ...(flags.agent !== undefined && { agent: flags.agent }),
      ...(flags.now !== undefined && { now: parseTime(flags.now, "--now") }),
      ...(registry !== undefined && { isRevoked: (jti: string) => registry.isRevoked(jti) }),
    });
  } finally {
    await registry?.close();
  }
  let granted: string | undefined;
  let capabilityCheck:
    | { capability: string; granted: boolean; matchedCapability?: string }
    | undefined;
  if (flags.capability !== undefined) {
    granted =
      result.status === "VALID"
        ? grantedBy(result.effectiveCapabilities, flags.capability)
        : undefined;
    capabilityCheck = {
      capability: flags.capability,
      granted: granted !== undefined,
      ...(granted !== undefined && { matchedCapability: granted }),
    };
  }
  const ok =
    result.status === "VALID" && (capabilityCheck === undefined || capabilityCheck.granted);
  if (format === "json") {
    writeJson({ ok, ...result, ...(capabilityCheck && { capability: capabilityCheck }) });
  } else {
    printVerification(result, capabilityCheck, paletteFor(process.stdout));
  }
  return ok ? 0 : 1;
}

function printVerification(
  result: DelegationVerification,
  capability: { capability: string; granted: boolean; matchedCapability?: string } | undefined,
  c: Palette,
): void {
  const mark = (r: "PASS" | "FAIL") => (r === "PASS" ? c.green("PASS") : c.red("FAIL"));
  const lines: string[] = [];
  const verdict = result.status === "VALID" ? c.green("VALID") : c.red(`INVALID (${result.code})`);
  lines.push(`${c.bold("chain")} ${verdict}`);
  lines.push(`  root ${result.root ?? "-"}${result.trustedRoot ? " (trusted)" : ""}`);
  lines.push(`  leaf ${result.leaf ?? "-"}`);
  if (result.status === "VALID") {
    lines.push(`  capabilities ${result.effectiveCapabilities.join(", ")}`);
    lines.push(`  not after ${new Date((result.notAfter ?? 0) * 1000).toISOString()}`);
  }
  for (const check of result.checks) {
    lines.push(`  ${mark(check.result)} ${check.rule.padEnd(15)} ${c.dim(check.detail)}`);
  }
  for (const link of result.links) {
    lines.push(
      `${c.bold(`link ${link.index}`)} ${link.status === "VALID" ? c.green("VALID") : c.red("INVALID")} ${link.issuer ?? "?"} -> ${link.audience ?? "?"}`,
    );
    lines.push(`  jti ${link.jti ?? "-"}  capabilities ${link.capabilities.join(", ") || "-"}`);
    for (const check of link.checks) {
      lines.push(`  ${mark(check.result)} ${check.rule.padEnd(15)} ${c.dim(check.detail)}`);
    }
  }
  if (capability) {
    lines.push(
      capability.granted
        ? `${c.green("GRANTED")} ${capability.capability} via ${capability.matchedCapability}`
        : `${c.red("NOT GRANTED")} ${capability.capability}`,
    );
  }
  process.stdout.write(`${lines.map(printable).join("\n")}\n`);
}

async function revoke(
  jti: string,
  flags: { registry: string },
  format: OutputFormat,
): Promise<number> {
  const registry = await openRegistry(flags.registry);
  try {
    await registry.revoke(jti);
  } finally {
    await registry.close();
  }
  const shown = showRegistry(flags.registry);
  if (format === "json") writeJson({ ok: true, revoked: jti, registry: shown });
  else process.stdout.write(`revoked ${printable(jti)} in ${shown}\n`);
  return 0;
}
