/**
 * A per-pattern literal gate: before a phrase pattern runs on a text, check that the
 * literals every match of it must contain are there. The literals are read off the
 * pattern source itself (required-literals.ts; no hand-kept trigger lists to drift), as
 * a conjunction of clauses, each clause a set of alternatives: `\bsilently\s(?:forward|send)`
 * needs "silently" and one of "forward" / "send". One pass of an Aho-Corasick automaton over
 * the text finds every literal of every registered pattern, so a text pays for one scan
 * instead of one regular-expression run per rule; a pattern whose clauses are not all met
 * cannot match and is skipped. Over-approximating is always safe, so every construct the
 * reader does not understand simply adds no clause.
 *
 * The gate reads the lower-case twin (case-fold.ts) of a text in matching form
 * (normalize.ts), where every whitespace character is a space or a line feed, so `\s` is
 * read as one of those two (a test checks that normalisation never yields another
 * whitespace character). Literals are lower-cased when registered. The automaton holds the
 * ASCII literals; the few non-ASCII ones (foreign-language overrides, typographic quotes)
 * are looked up in the text directly, and only when it holds a non-ASCII character.
 */

import { foldCase } from "./case-fold.js";
import {
  buildGateTables,
  type GateTables,
  type PackedGateTables,
  packGateTables,
  ROOT,
  unpackGateTables,
} from "./gate-automaton.js";
import { GATE_CLAUSES, GATE_TABLES, type GateReading, TABLE_KEYS } from "./gate-clauses.js";
import { type LiteralClauses, leadingLiterals, requiredLiterals } from "./required-literals.js";

/**
 * A literal that occurs in almost every text: a letter or two ("a", "to", "in") or common
 * punctuation. A clause holding one says little and would make the scan stop at every
 * other character. Rare symbols ("@", "![", "%") stay: they are what keeps "send to ..."
 * from running the exfiltration pattern when no address follows. Quotes stay too: tool
 * texts seldom quote, and a quote is what "say '...'" and "change X to '...'" need.
 */
const COMMON = /^(?:[a-z ]{1,2}|[.,:;()/-])$/;

/**
 * The clauses worth checking: every clause without a common literal (dropping a clause
 * only lets more patterns run), or all of them when every clause has one.
 */
function selective(clauses: LiteralClauses): LiteralClauses {
  const strong = clauses.filter((clause) => !clause.some((literal) => COMMON.test(literal)));
  return strong.length > 0 ? strong : clauses;
}

/**
 * What the gate reads off `pattern`: its clauses (required-literals.ts, kept only where
 * selective) and which of them holds the literals every match starts with (`leading`,
 * -1 for none): the gate remembers where that clause is first met, and a scan starts
 * there. Exported for the test that keeps gate-clauses.ts, the same result precomputed
 * for the built-in patterns, in step with the patterns.
 */
export function gateReading(pattern: RegExp): GateReading {
  const clauses = [...selective(requiredLiterals(pattern))];
  const lead = leadingLiterals(pattern);
  if (lead === undefined || lead.some((literal) => COMMON.test(literal))) {
    return { clauses, leading: -1 };
  }
  const same = JSON.stringify([...lead].sort());
  let leading = clauses.findIndex((clause) => JSON.stringify([...clause].sort()) === same);
  if (leading === -1) {
    // A clause like any other: every match holds one of them, so the gate stays sound.
    clauses.push(lead);
    leading = clauses.length - 1;
  }
  return { clauses, leading };
}

/** The registered patterns, in registration order (for the gate-clauses.ts test). */
export function gatedPatterns(): readonly RegExp[] {
  return [...known, ...pending];
}

/** Character classes of the automaton: 0 is "no literal has this character". */
const CLASS_OF = new Uint8Array(128);

interface Automaton {
  /** The automaton itself (gate-automaton.ts); its scan table is filled in while scanning. */
  tables: GateTables;
  /** `stateSeen[state] === stamp` once that state's clauses were met in the current text. */
  stateSeen: Int32Array;
  /** For each literal id, the ids of the clauses it satisfies. */
  clausesOf: Int32Array[];
  /** For each clause id, the pattern it belongs to. */
  patternOf: Int32Array;
  /** For each pattern id, how many clauses it has. */
  clauseCount: Int32Array;
  /** Ids of the patterns with no clause (always allowed). */
  free: Int32Array;
  /** Ids of literals holding a non-ASCII character, and each one's text. */
  nonAscii: number[];
  nonAsciiText: string[];
  /** `seen[id] === stamp` when literal `id` occurs in the text scanned under `stamp`. */
  seen: Int32Array;
  /** Per pattern, the clause every match starts with a literal of, or -1 (see `gateReading`). */
  leadingClause: Int32Array;
  /** Per clause, its longest literal. */
  longest: Int32Array;
  /** Where a clause was first met in the current text: the index of its literal's last unit. */
  firstEnd: Int32Array;
  /** `met[clause] === stamp` when a literal of the clause occurs in that text. */
  met: Int32Array;
  /** Clauses of a pattern met in the text of `counted[pattern]`. */
  metCount: Int32Array;
  counted: Int32Array;
  /** `allowed[pattern] === stamp` when every clause of the pattern is met. */
  allowed: Int32Array;
  /** The id of each registered pattern. */
  ids: Map<RegExp, number>;
  /** {@link LiteralsIn.idsOf} results, per rule list (-1: unregistered). */
  lists: WeakMap<readonly { readonly pattern: RegExp }[], Int32Array>;
}

const pending: RegExp[] = [];
const known: RegExp[] = [];
let automaton: Automaton | undefined;

/**
 * Register patterns the gate should know; their literals are read and the automaton is
 * built on first use. An unregistered pattern is always allowed to run.
 *
 * @example
 * ```ts
 * import { gatePatterns } from "./literal-gate.js";
 * gatePatterns([/\bignore previous\b/gi]);
 * ```
 */
export function gatePatterns(patterns: readonly RegExp[]): void {
  for (const p of patterns) pending.push(p);
  automaton = undefined;
}

/** The clause structure of the registered patterns: what the automaton is built from. */
interface Structure {
  ids: Map<RegExp, number>;
  literals: string[];
  /** For each clause, its literals' ids; for each clause, its pattern; per pattern, its clause count. */
  clauseLiterals: number[][];
  patternOf: number[];
  clauseCount: number[];
  /** Per pattern, the clause holding the literals every match starts with, or -1. */
  leadingClause: number[];
  /** Whether each registered pattern took its clauses from gate-clauses.ts, in its row order. */
  fromTable: boolean;
}

function structureOf(patterns: readonly RegExp[], live: boolean): Structure {
  const literalIds = new Map<string, number>();
  const clauseLiterals: number[][] = [];
  const patternOf: number[] = [];
  const ids = new Map<RegExp, number>();
  const clauseCount: number[] = [];
  const leadingClause: number[] = [];
  let fromTable = !live && patterns.length === TABLE_KEYS.length;
  for (const pattern of patterns) {
    if (ids.has(pattern)) {
      fromTable = false;
      continue;
    }
    const pid = clauseCount.length;
    ids.set(pattern, pid);
    const key = `${pattern.flags}/${pattern.source}`;
    if (TABLE_KEYS[pid] !== key) fromTable = false;
    const reading = (live ? undefined : GATE_CLAUSES.get(key)) ?? gateReading(pattern);
    const clauses = reading.clauses.map((clause) => clause.map(foldCase));
    clauseCount.push(clauses.length);
    leadingClause.push(reading.leading === -1 ? -1 : clauseLiterals.length + reading.leading);
    for (const clause of clauses) {
      const literals = clause.map((literal) => {
        let id = literalIds.get(literal);
        if (id === undefined) {
          id = literalIds.size;
          literalIds.set(literal, id);
        }
        return id;
      });
      patternOf.push(pid);
      clauseLiterals.push(literals);
    }
  }
  return {
    ids,
    literals: [...literalIds.keys()],
    clauseLiterals,
    patternOf,
    clauseCount,
    leadingClause,
    fromTable,
  };
}

/** Literal ids holding a character past ASCII (looked up apart, never in the automaton). */
function nonAsciiIds(literals: readonly string[]): number[] {
  const ids: number[] = [];
  literals.forEach((literal, id) => {
    for (let k = 0; k < literal.length; k++) {
      if (literal.charCodeAt(k) >= 128) {
        ids.push(id);
        return;
      }
    }
  });
  return ids;
}

function clausesOfLiterals(structure: Structure): number[][] {
  const clausesOf: number[][] = Array.from({ length: structure.literals.length }, () => []);
  structure.clauseLiterals.forEach((literals, clause) => {
    for (const id of literals) clausesOf[id]!.push(clause);
  });
  return clausesOf;
}

/**
 * The packed tables for the patterns registered now, built from their live clauses: what
 * gate-clauses.ts must hold (its test checks it, and rewrites it with the clauses).
 *
 * @example
 * ```ts
 * import { liveGateTables } from "./literal-gate.js";
 * console.log(typeof liveGateTables().edges); // "string"
 * ```
 */
export function liveGateTables(): PackedGateTables {
  const structure = structureOf(gatedPatterns(), true);
  const clausesOf = clausesOfLiterals(structure);
  return packGateTables(
    buildGateTables(structure.literals, new Set(nonAsciiIds(structure.literals)), clausesOf),
  );
}

function build(): Automaton {
  for (const pattern of pending.splice(0)) known.push(pattern);
  const structure = structureOf(known, false);
  const clausesOf = clausesOfLiterals(structure);
  const nonAscii = nonAsciiIds(structure.literals);
  // The built-in patterns, registered as gate-clauses.ts lists them, take its packed
  // tables; anything else builds its own.
  const tables =
    (structure.fromTable ? unpackGateTables(GATE_TABLES) : undefined) ??
    buildGateTables(structure.literals, new Set(nonAscii), clausesOf);
  CLASS_OF.set(tables.classOf);
  const { clauseCount, clauseLiterals } = structure;
  return {
    tables,
    stateSeen: new Int32Array(tables.states),
    clausesOf: clausesOf.map((list) => new Int32Array(list)),
    patternOf: new Int32Array(structure.patternOf),
    clauseCount: new Int32Array(clauseCount),
    free: new Int32Array(clauseCount.flatMap((count, pid) => (count === 0 ? [pid] : []))),
    nonAscii,
    nonAsciiText: nonAscii.map((id) => structure.literals[id]!),
    seen: new Int32Array(structure.literals.length),
    met: new Int32Array(clauseLiterals.length),
    leadingClause: new Int32Array(structure.leadingClause),
    longest: new Int32Array(
      clauseLiterals.map((ids) => Math.max(...ids.map((id) => structure.literals[id]!.length))),
    ),
    firstEnd: new Int32Array(clauseLiterals.length),
    metCount: new Int32Array(clauseCount.length),
    counted: new Int32Array(clauseCount.length),
    allowed: new Int32Array(clauseCount.length),
    ids: structure.ids,
    lists: new WeakMap(),
  };
}

/**
 * Which registered literals occur in one text; {@link LiteralsIn.allows} says whether a
 * registered pattern can match it at all.
 *
 * @example
 * ```ts
 * import { gatePatterns, LiteralsIn } from "./literal-gate.js";
 * const rule = /\bignore previous\b/gi;
 * gatePatterns([rule]);
 * console.log(new LiteralsIn("Repository owner").allows(rule)); // false
 * ```
 */
export class LiteralsIn {
  /**
   * The scan this object reads. The presence tables are shared and reused by the next
   * scan, so an object whose stamp is no longer current allows everything (always safe).
   */
  private readonly stamp: number;
  private readonly automaton: Automaton;
  /**
   * True when the text is already in matching form (normalize.ts): printable ASCII whose
   * only whitespace is single spaces and single line feeds. Read in the same pass, so the
   * common text needs no separate check before it is gated.
   */
  readonly alreadyNormal: boolean;
  /** How many registered patterns this text allows. */
  private allowedCount = 0;

  /**
   * The literals in `text` when it is already in matching form; `undefined` as soon as a
   * character shows it is not (the caller then normalises it and gates the result), so
   * the pass over a text that needs normalising stops at its first such character.
   */
  static ofAlreadyNormal(text: string): LiteralsIn | undefined {
    const literals = new LiteralsIn(text, true);
    return literals.alreadyNormal ? literals : undefined;
  }

  /** The literals in `text`, which should be in matching form (see the module comment). */
  constructor(text: string, stopUnlessNormal = false) {
    automaton ??= build();
    const a = automaton;
    this.automaton = a;
    if (stamp === 0x7fffffff) {
      for (const table of [a.seen, a.stateSeen, a.met, a.counted, a.allowed]) table.fill(0);
      stamp = 0;
    }
    const mark = ++stamp;
    this.stamp = mark;
    for (let k = 0; k < a.free.length; k++) a.allowed[a.free[k]!] = mark;
    this.allowedCount = a.free.length;
    const { step, classes } = a.tables;
    const stateSeen = a.stateSeen;
    let row = ROOT * classes;
    let sawNonAscii = false;
    let normal = true;
    let afterSpace = false;
    for (let k = 0; k < text.length; k++) {
      const c = text.charCodeAt(k);
      let cls: number;
      if (c > 0x20 && c < 0x7f) {
        afterSpace = false;
        cls = CLASS_OF[c]!;
      } else {
        if ((c === 0x20 || c === 0x0a) && !afterSpace) afterSpace = true;
        else {
          normal = false;
          if (stopUnlessNormal) break;
        }
        if (c < 128) cls = CLASS_OF[c]!;
        else {
          cls = 0;
          sawNonAscii = true;
        }
      }
      let move = step[row + cls]!;
      if (move > 0) {
        row = move;
        continue;
      }
      if (move === 0) move = resolve(a, row / classes, cls);
      if (move > 0) row = move;
      else {
        const state = ~move;
        row = state * classes;
        if (stateSeen[state] !== mark) this.reach(state, k);
      }
    }
    this.alreadyNormal = normal;
    const seen = a.seen;
    if (sawNonAscii) {
      for (let k = 0; k < a.nonAscii.length; k++) {
        const id = a.nonAscii[k]!;
        if (seen[id] === mark) continue;
        const at = text.indexOf(a.nonAsciiText[k]!);
        if (at !== -1) this.meet(id, at + a.nonAsciiText[k]!.length - 1);
      }
    }
  }

  /** The text reached `state` at unit `end`: the clauses of every literal it completes are met. */
  private reach(state: number, end: number): void {
    const a = this.automaton;
    a.stateSeen[state] = this.stamp;
    const { hitStart, hitClauses } = a.tables;
    for (let k = hitStart[state]!; k < hitStart[state + 1]!; k++) {
      this.meetClause(hitClauses[k]!, end);
    }
  }

  /** Literal `id` occurs, ending at unit `end`: its clauses are met. */
  private meet(id: number, end: number): void {
    const a = this.automaton;
    a.seen[id] = this.stamp;
    const clauses = a.clausesOf[id]!;
    for (let k = 0; k < clauses.length; k++) this.meetClause(clauses[k]!, end);
  }

  /** `clause` is met at unit `end` (first met: remembered); a pattern with all its clauses met is allowed. */
  private meetClause(clause: number, end: number): void {
    const a = this.automaton;
    const mark = this.stamp;
    if (a.met[clause] === mark) return;
    a.met[clause] = mark;
    a.firstEnd[clause] = end;
    const pid = a.patternOf[clause]!;
    if (a.counted[pid] !== mark) {
      a.counted[pid] = mark;
      a.metCount[pid] = 0;
    }
    if (++a.metCount[pid]! === a.clauseCount[pid]) {
      a.allowed[pid] = mark;
      this.allowedCount++;
    }
  }

  /** {@link LiteralsIn.startOf} for a registered pattern (0 for any other). */
  startFor(pattern: RegExp): number {
    return this.startOf(this.automaton.ids.get(pattern) ?? -1);
  }

  /**
   * Where a match of pattern `id` can start at the earliest: every match starts with a
   * literal of its leading clause, and none of those ends before the clause was first met.
   * 0 when the pattern has no leading clause, or this object no longer reads the text.
   */
  startOf(id: number): number {
    if (id < 0 || this.stamp !== stamp || this.automaton !== automaton) return 0;
    const a = this.automaton;
    const clause = a.leadingClause[id]!;
    if (clause < 0 || a.met[clause] !== this.stamp) return 0;
    return Math.max(0, a.firstEnd[clause]! - a.longest[clause]! + 1);
  }

  /** False only when every registered pattern has a clause of literals absent from the text. */
  allowsAny(): boolean {
    if (this.stamp !== stamp || this.automaton !== automaton) return true;
    return this.allowedCount > 0;
  }

  /** False only when `pattern` is registered and some clause of its literals is absent. */
  allows(pattern: RegExp): boolean {
    return this.passes(this.automaton.ids.get(pattern) ?? -1);
  }

  /** The pattern ids of a rule list, aligned with it (looked up once per list, not per rule). */
  idsOf(rules: readonly { readonly pattern: RegExp }[]): Int32Array {
    const a = this.automaton;
    let ids = a.lists.get(rules);
    if (ids === undefined) {
      ids = new Int32Array(rules.map((rule) => a.ids.get(rule.pattern) ?? -1));
      a.lists.set(rules, ids);
    }
    return ids;
  }

  /** False only when pattern `id` is registered and some clause of its literals is absent. */
  passes(id: number): boolean {
    if (id < 0 || this.stamp !== stamp || this.automaton !== automaton) return true;
    return this.automaton.allowed[id] === this.stamp;
  }
}

/** Compute, remember and return the encoded transition from `state` on `cls`. */
function resolve(a: Automaton, state: number, cls: number): number {
  const { step, classes, fail } = a.tables;
  const slot = state * classes + cls;
  const known = step[slot]!;
  if (known !== 0) return known;
  // No trie edge: where the suffix link goes on `cls` (from the root, the root).
  const encoded = state === ROOT ? ROOT * classes : resolve(a, fail[state]!, cls);
  step[slot] = encoded;
  return encoded;
}

/** Stamp of the latest scan (see {@link LiteralsIn}). */
let stamp = 0;
