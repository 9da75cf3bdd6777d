import picomatch from "picomatch";
import type { SecurityPolicy } from "./policy.js";

/** How the policy judges one tool name or one capability. */
export type NameVerdict = "allowed" | "denied" | "not-allowed";
export type CapabilityVerdict = "granted" | "denied" | "sandbox-only" | "not-granted";

/** A policy compiled to matchers once per scan. */
export interface CompiledPolicy {
  tool(name: string, server: string | null): { verdict: NameVerdict; pattern: string | null };
  capability(cap: string): { verdict: CapabilityVerdict; pattern: string | null };
}

type Matcher = (value: string) => string | null;

const OPTIONS = { dot: true } as const;

function compileList(globs: readonly string[]): { plain: Matcher; qualified: Matcher } {
  const plain = globs
    .filter((g) => !g.includes("/"))
    .map((g) => [g, picomatch(g, OPTIONS)] as const);
  const qualified = globs
    .filter((g) => g.includes("/"))
    .map((g) => [g, picomatch(g, OPTIONS)] as const);
  const first = (list: typeof plain) => (value: string) => {
    for (const [g, m] of list) if (m(value)) return g;
    return null;
  };
  return { plain: first(plain), qualified: first(qualified) };
}

/**
 * Compile a policy's globs. Tool globs without `/` match the tool name; globs with `/`
 * match `server/tool` (and never match a tool whose server is unknown).
 */
export function compilePolicy(policy: SecurityPolicy): CompiledPolicy {
  // Shipped and parsed policies are frozen, so a compiled form can be reused safely.
  const cached = Object.isFrozen(policy) ? COMPILED.get(policy) : undefined;
  if (cached !== undefined) return cached;
  const compiled = compile(policy);
  if (Object.isFrozen(policy)) COMPILED.set(policy, compiled);
  return compiled;
}

const COMPILED = new WeakMap<SecurityPolicy, CompiledPolicy>();

function compile(policy: SecurityPolicy): CompiledPolicy {
  const allow = compileList(policy.allow);
  const deny = compileList(policy.deny);
  const granted = compileList(policy.capabilities.granted).plain;
  const denied = compileList(policy.capabilities.denied).plain;
  const sandbox = compileList(policy.capabilities.sandboxOnly).plain;
  const matchName = (list: ReturnType<typeof compileList>, name: string, server: string | null) =>
    list.plain(name) ?? (server === null ? null : list.qualified(`${server}/${name}`));
  return {
    tool(name, server) {
      const d = matchName(deny, name, server);
      if (d !== null) return { verdict: "denied", pattern: d };
      const a = matchName(allow, name, server);
      if (a !== null) return { verdict: "allowed", pattern: a };
      return { verdict: "not-allowed", pattern: null };
    },
    capability(cap) {
      const d = denied(cap);
      if (d !== null) return { verdict: "denied", pattern: d };
      const s = sandbox(cap);
      if (s !== null) return { verdict: "sandbox-only", pattern: s };
      const g = granted(cap);
      if (g !== null) return { verdict: "granted", pattern: g };
      return { verdict: "not-granted", pattern: null };
    },
  };
}
