/**
 * The options `airlock proxy` takes that apply to every server alike, declared once:
 * `proxy` registers them, and `wrap-config` registers the same ones (without defaults)
 * and writes those given into every entry it wraps, paths made absolute. A new proxy
 * option that a wrapped config should carry is one more entry here.
 *
 * Options tied to one server (`--server`, `--url`, `--sse`, `--header`) and the two that
 * `wrap-config` has always taken itself (`--pins`, `--audit-log`) are not in the list.
 */
import { isAbsolute, resolve } from "node:path";
import { type Command, InvalidArgumentError, Option } from "commander";
import { isPostgresUrl } from "../../guard/registry/postgres-options.js";
import { positiveInteger } from "../output.js";

/** One proxy option that `wrap-config` passes through. */
export interface ProxyPassThrough {
  /** Commander flags, e.g. `--agent <did>`. */
  flags: string;
  description: string;
  /** The key commander stores it under. */
  key: string;
  /** `flag`: no value; `value`: one value; `list`: repeatable (`--root A --root B`). */
  kind: "flag" | "value" | "list";
  /** The value names a file: made absolute when written into a config. */
  path?: boolean;
  /** Value check (a bad value is a usage error, exit 2). */
  parse?: (value: string) => unknown;
  /** Default of `airlock proxy` (none in `wrap-config`: only what is given is written). */
  proxyDefault?: unknown;
}

/** Default largest message the proxy accepts from either side: 64 MiB. */
export const DEFAULT_PROXY_MAX_MESSAGE_BYTES = 64 * 1024 * 1024;

/**
 * Every proxy option `wrap-config` passes through, in the order written.
 *
 * @example
 * ```ts
 * import { PROXY_PASS_THROUGH } from "./proxy-options.js";
 * console.log(PROXY_PASS_THROUGH.map((o) => o.flags.split(" ")[0]).includes("--observe")); // true
 * ```
 */
export const PROXY_PASS_THROUGH: readonly ProxyPassThrough[] = Object.freeze([
  {
    flags: "--observe",
    key: "observe",
    kind: "flag",
    description: "block nothing: log (stderr and audit) what would be refused",
  },
  {
    flags: "--agent <did>",
    key: "agent",
    kind: "value",
    description: "delegation: the agent's DID; each call needs a chain that grants it",
  },
  {
    flags: "--root <did...>",
    key: "root",
    kind: "list",
    description: "delegation: a trusted root DID (repeatable)",
  },
  {
    flags: "--chain <file...>",
    key: "chain",
    kind: "list",
    path: true,
    description: "delegation: the agent's chain file(s), checked offline",
  },
  {
    flags: "--registry <target>",
    key: "registry",
    kind: "value",
    path: true,
    description: "delegation: a registry of chains (a file, or postgres://...)",
  },
  {
    flags: "--didis-url <url>",
    key: "didisUrl",
    kind: "value",
    description: "delegation: ask a DID.is-compatible service (airlock delegate serve)",
  },
  {
    flags: "--didis-token-file <file>",
    key: "didisTokenFile",
    kind: "value",
    path: true,
    description: "bearer token for --didis-url (mode 600; the first token of the file)",
  },
  {
    flags: "--capabilities <file>",
    key: "capabilities",
    kind: "value",
    path: true,
    description: 'delegation: JSON {"tool": "capability"} (default: the tool name)',
  },
  {
    flags: "--verify-timeout <ms>",
    key: "verifyTimeout",
    kind: "value",
    parse: positiveInteger,
    description: "delegation: how long to wait for the verifier before refusing (10000)",
  },
  {
    flags: "--allow-cache <seconds>",
    key: "allowCache",
    kind: "value",
    parse: nonNegativeSeconds,
    description: "delegation: how long an ALLOW is reused, 0 to 86400 (30)",
  },
  {
    flags: "--max-message-bytes <n>",
    key: "maxMessageBytes",
    kind: "value",
    parse: positiveInteger,
    proxyDefault: DEFAULT_PROXY_MAX_MESSAGE_BYTES,
    description: "largest message accepted from either side",
  },
  {
    flags: "--max-pages <n>",
    key: "maxPages",
    kind: "value",
    parse: positiveInteger,
    proxyDefault: 100,
    description: "page cap of the proxy's own listings",
  },
  {
    flags: "--list-timeout <ms>",
    key: "listTimeout",
    kind: "value",
    parse: positiveInteger,
    proxyDefault: 30_000,
    description: "how long to wait for the server's tools/list",
  },
  {
    flags: "--relist-before-each-call",
    key: "relistBeforeEachCall",
    kind: "flag",
    description: "list the server again before every tools/call (strict, slower)",
  },
] satisfies ProxyPassThrough[]);

/**
 * Add the pass-through options to `command`: with `airlock proxy`'s defaults for
 * `proxy`, without them for `wrap-config`.
 *
 * @example
 * ```ts
 * import { Command } from "commander";
 * import { addProxyPassThrough } from "./proxy-options.js";
 * const command = addProxyPassThrough(new Command("proxy"), { defaults: true });
 * console.log(command.options.length > 10); // true
 * ```
 */
export function addProxyPassThrough(command: Command, options: { defaults: boolean }): Command {
  for (const spec of PROXY_PASS_THROUGH) {
    const option = new Option(spec.flags, spec.description);
    if (spec.parse) option.argParser(spec.parse);
    if (options.defaults && spec.proxyDefault !== undefined) option.default(spec.proxyDefault);
    command.addOption(option);
  }
  return command;
}

/**
 * The `airlock proxy` arguments that carry the pass-through options given in `values`
 * (commander's parsed options), file paths made absolute against `cwd`.
 *
 * @example
 * ```ts
 * import { proxyPassThroughArgs } from "./proxy-options.js";
 * console.log(proxyPassThroughArgs({ observe: true, root: ["did:key:z6Mka", "did:key:z6Mkb"], chain: ["a.json"] }, "/home/me"));
 * // ["--observe", "--root", "did:key:z6Mka", "--root", "did:key:z6Mkb", "--chain", "/home/me/a.json"]
 * ```
 */
export function proxyPassThroughArgs(values: Record<string, unknown>, cwd: string): string[] {
  const args: string[] = [];
  for (const spec of PROXY_PASS_THROUGH) {
    const value = values[spec.key];
    if (value === undefined || value === false) continue;
    const name = spec.flags.split(" ")[0]!;
    if (spec.kind === "flag") {
      args.push(name);
      continue;
    }
    const list = Array.isArray(value) ? value : [value];
    for (const item of list)
      args.push(name, spec.path ? absolute(String(item), cwd) : String(item));
  }
  return args;
}

function absolute(path: string, cwd: string): string {
  return isPostgresUrl(path) || isAbsolute(path) ? path : resolve(cwd, path);
}

function nonNegativeSeconds(value: string): number {
  const n = Number(value);
  if (!/^\d{1,5}$/.test(value) || n > 86_400) {
    throw new InvalidArgumentError(`expected 0 to 86400 seconds, got ${JSON.stringify(value)}`);
  }
  return n;
}
