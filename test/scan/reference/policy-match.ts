/**
 * Policy glob matching (before the speed work, commit 4b6c34c), kept verbatim as an oracle:
 * test/scan/fast-paths.test.ts checks that the faster code gives the same answers.
 */
import picomatch from "picomatch";
import type { SecurityPolicy } from "../../../src/scan/policy.js";

/** How the policy judges one tool name or one capability. */
type NameVerdict = "allowed" | "denied" | "not-allowed";
type CapabilityVerdict = "granted" | "denied" | "sandbox-only" | "not-granted";

/** A policy compiled to matchers once per scan. */
interface CompiledPolicy {
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

export function referenceCompilePolicy(policy: SecurityPolicy): CompiledPolicy {
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
