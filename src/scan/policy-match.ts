import picomatch from "picomatch";
import { CAPABILITIES } from "./capabilities.js";
import type { SecurityPolicy } from "./policy.js";

/** How the policy judges one tool name or one capability. */
export type NameVerdict = "allowed" | "denied" | "not-allowed";
export type CapabilityVerdict = "granted" | "denied" | "sandbox-only" | "not-granted";

type Judgement<V> = Readonly<{ verdict: V; pattern: string | null }>;

/** A policy compiled to matchers once per scan. */
export interface CompiledPolicy {
  tool(name: string, server: string | null): Judgement<NameVerdict>;
  capability(cap: string): Judgement<CapabilityVerdict>;
}

const OPTIONS = { dot: true } as const;

/**
 * picomatch's matcher without its per-call result objects: the same regex, tested the way
 * picomatch tests it (the empty string never matches, the glob itself always does). Where
 * picomatch first rewrites backslashes (on Windows), its own matcher is used.
 */
function globTest(glob: string): (value: string) => boolean {
  const matcher = picomatch(glob, OPTIONS);
  const { regex, posix } = matcher("", true);
  if (posix || regex.global || regex.sticky) return (value) => matcher(value);
  if (glob === "**") {
    // "**" (every preset allows it): its regex refuses only a "." or ".." path segment
    // and a line break; a plain name without either is a match without running it.
    return (value) =>
      value !== "" && (value === glob || (PLAIN_NAME.test(value) ? true : regex.test(value)));
  }
  return (value) => value !== "" && (value === glob || regex.test(value));
}

/**
 * A name "**" always matches: no `/`, no line terminator, and not "." or "..". Held to
 * picomatch's own regex by a property test (test/scan/fast-paths.test.ts).
 */
export const PLAIN_NAME = /^(?!\.{1,2}$)[^/\n\r\u2028\u2029]+$/;

/**
 * A glob picomatch matches against exactly one string, itself: letters, digits, `_` and
 * `-`, in dot-separated runs. Held to picomatch by a property test
 * (test/scan/fast-paths.test.ts).
 */
export const LITERAL_GLOB = /^[A-Za-z0-9_-]+(?:\.[A-Za-z0-9_-]+)*$/;

/**
 * The globs of one list, each with the judgement a match gives (built once, shared). A
 * literal glob is a map entry rather than a pattern to test, so an allow-list of
 * thousands of tool names costs one lookup per tool, not one test per name.
 */
class GlobList<V> {
  private readonly patterns: {
    index: number;
    test: (value: string) => boolean;
    judgement: Judgement<V>;
  }[] = [];
  /** The first position of each literal glob, and its judgement. */
  private readonly literals = new Map<string, { index: number; judgement: Judgement<V> }>();

  constructor(globs: readonly string[], verdict: V) {
    globs.forEach((pattern, index) => {
      const judgement = Object.freeze({ verdict, pattern });
      if (!LITERAL_GLOB.test(pattern)) {
        this.patterns.push({ index, test: globTest(pattern), judgement });
      } else if (!this.literals.has(pattern)) {
        this.literals.set(pattern, { index, judgement });
      }
    });
  }

  get empty(): boolean {
    return this.patterns.length === 0 && this.literals.size === 0;
  }

  /** The judgement of the first glob (in list order) that matches `value`, or null. */
  match(value: string): Judgement<V> | null {
    const literal = this.literals.get(value);
    for (const g of this.patterns) {
      if (literal !== undefined && g.index > literal.index) break;
      if (g.test(value)) return g.judgement;
    }
    return literal === undefined ? null : literal.judgement;
  }
}

/** Tool globs without `/` match the name; globs with `/` match `server/name`. */
class NameList {
  private readonly plain: GlobList<NameVerdict>;
  private readonly qualified: GlobList<NameVerdict>;

  constructor(globs: readonly string[], verdict: NameVerdict) {
    this.plain = new GlobList(
      globs.filter((g) => !g.includes("/")),
      verdict,
    );
    this.qualified = new GlobList(
      globs.filter((g) => g.includes("/")),
      verdict,
    );
  }

  match(name: string, server: string | null): Judgement<NameVerdict> | null {
    return (
      this.plain.match(name) ??
      (server === null || this.qualified.empty ? null : this.qualified.match(`${server}/${name}`))
    );
  }
}

/**
 * One tool glob read as the policy's `allow` reads it (no `/`: the tool name; with `/`:
 * `server/tool`, never a tool whose server is unknown), for flow label entries.
 */
export function toolGlobTest(glob: string): (name: string, server: string | null) => boolean {
  const list = new NameList([glob], "allowed");
  return (name, server) => list.match(name, server) !== null;
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

const NOT_ALLOWED: Judgement<NameVerdict> = Object.freeze({
  verdict: "not-allowed",
  pattern: null,
});
const NOT_GRANTED: Judgement<CapabilityVerdict> = Object.freeze({
  verdict: "not-granted",
  pattern: null,
});

function compile(policy: SecurityPolicy): CompiledPolicy {
  const allow = new NameList(policy.allow, "allowed");
  const deny = new NameList(policy.deny, "denied");
  // Capability names hold no `/`: a capability glob with one never matches.
  const capabilityList = (globs: readonly string[], verdict: CapabilityVerdict) =>
    new GlobList(
      globs.filter((g) => !g.includes("/")),
      verdict,
    );
  const granted = capabilityList(policy.capabilities.granted, "granted");
  const denied = capabilityList(policy.capabilities.denied, "denied");
  const sandbox = capabilityList(policy.capabilities.sandboxOnly, "sandbox-only");
  const judge = (cap: string): Judgement<CapabilityVerdict> =>
    denied.match(cap) ?? sandbox.match(cap) ?? granted.match(cap) ?? NOT_GRANTED;
  // The policy's answer for every capability inference can produce, decided once here.
  const vocabulary = new Map(CAPABILITIES.map((cap) => [cap, judge(cap)]));
  return {
    tool(name, server) {
      return deny.match(name, server) ?? allow.match(name, server) ?? NOT_ALLOWED;
    },
    capability(cap) {
      return vocabulary.get(cap) ?? judge(cap);
    },
  };
}
