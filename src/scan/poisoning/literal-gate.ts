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
import { GATE_CLAUSES } from "./gate-clauses.js";
import { type LiteralClauses, requiredLiterals } from "./required-literals.js";

/**
 * A literal that occurs in almost every text: a letter or two ("a", "to", "in") or common
 * punctuation. A clause holding one says little and would make the scan stop at every
 * other character. Rare symbols ("@", "![", "%") stay: they are what keeps "send to ..."
 * from running the exfiltration pattern when no address follows.
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
 * The clauses the gate checks for `pattern`: read off its source (required-literals.ts)
 * and kept only where selective. Exported for the test that keeps gate-clauses.ts, the
 * same result precomputed for the built-in patterns, in step with the patterns.
 */
export function gateClauses(pattern: RegExp): LiteralClauses {
  return selective(requiredLiterals(pattern));
}

/**
 * Where {@link gateClauses} would be read from: the precomputed table when it holds the
 * pattern's exact source and flags (a cold start then skips reading ~50 pattern sources),
 * the pattern itself otherwise.
 */
function clausesFor(pattern: RegExp): LiteralClauses {
  return GATE_CLAUSES.get(`${pattern.flags}/${pattern.source}`) ?? gateClauses(pattern);
}

/** The registered patterns, in registration order (for the gate-clauses.ts test). */
export function gatedPatterns(): readonly RegExp[] {
  return [...known, ...pending];
}

/** Character classes of the automaton: 0 is "no literal has this character". */
const CLASS_OF = new Uint8Array(128);

interface Automaton {
  /**
   * `step[row + class]`, where `row` is `state * classes`: the next state's row, or the
   * bitwise complement of the next state (negative) when it completes a literal; 0 until
   * first needed (no row is 0: the root is state 1).
   */
  step: Int32Array;
  /** Suffix links: the state of the longest proper suffix that is also in the trie. */
  fail: Int32Array;
  classes: number;
  /**
   * For each state that completes literals (itself or down its suffix chain), the clauses
   * those literals satisfy: `hitClauses[hitStart[state] .. hitStart[state + 1])`.
   */
  hitStart: Int32Array;
  hitClauses: Int32Array;
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

function build(): Automaton {
  for (const pattern of pending.splice(0)) known.push(pattern);
  const literalIds = new Map<string, number>();
  const clauseLiterals: number[][] = [];
  const patternOf: number[] = [];
  const ids = new Map<RegExp, number>();
  const clauseCount: number[] = [];
  for (const pattern of known) {
    if (ids.has(pattern)) continue;
    const pid = clauseCount.length;
    ids.set(pattern, pid);
    const clauses = clausesFor(pattern).map((clause) => clause.map(foldCase));
    clauseCount.push(clauses.length);
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
  const literalText = [...literalIds.keys()];
  const clausesOf: number[][] = Array.from({ length: literalIds.size }, () => []);
  clauseLiterals.forEach((literals, clause) => {
    for (const id of literals) clausesOf[id]!.push(clause);
  });
  // Alphabet: every ASCII character some literal uses gets its own class.
  CLASS_OF.fill(0);
  let classes = 1;
  const nonAscii: number[] = [];
  for (const [literal, id] of literalIds) {
    let ascii = true;
    for (let k = 0; k < literal.length; k++) {
      const c = literal.charCodeAt(k);
      if (c >= 128) ascii = false;
      else if (CLASS_OF[c] === 0) CLASS_OF[c] = classes++;
    }
    if (!ascii) nonAscii.push(id);
  }
  for (let c = 0x41; c <= 0x5a; c++) CLASS_OF[c] = CLASS_OF[c + 0x20]!;
  // States are numbered from 1 (the root), so a row (`state * classes`) is never 0 and
  // a zero slot in `step` means "not known yet": the table needs no fill. While building,
  // `step` holds the trie: `step[row + class]` is the child's row, 0 for none. Each state
  // spells one string, so it ends at most one literal.
  let capacity = 2;
  for (const literal of literalIds.keys()) capacity += literal.length;
  // Sized for the most states the literals could need; pages past the states actually
  // made are never touched.
  const step = new Int32Array(capacity * classes);
  const literalAt = new Int32Array(capacity).fill(-1);
  // Each state's children as a linked list, so the breadth-first pass below visits the
  // trie's edges rather than every (state, class) slot (a cold start pays for those).
  const firstChild = new Int32Array(capacity);
  const nextSibling = new Int32Array(capacity);
  const edgeClass = new Int32Array(capacity);
  const nonAsciiIds = new Set(nonAscii);
  let states = ROOT + 1;
  for (const [literal, id] of literalIds) {
    if (nonAsciiIds.has(id)) continue;
    let state = ROOT;
    for (let k = 0; k < literal.length; k++) {
      const cls = CLASS_OF[literal.charCodeAt(k)]!;
      const slot = state * classes + cls;
      if (step[slot] === 0) {
        const child = states++;
        step[slot] = child * classes;
        edgeClass[child] = cls;
        nextSibling[child] = firstChild[state]!;
        firstChild[state] = child;
      }
      state = step[slot]! / classes;
    }
    literalAt[state] = id;
  }
  // Breadth-first over the trie edges only: suffix links, and for each state the nearest
  // state on its suffix chain (itself included) that ends a literal. The rest of the
  // transition table is filled lazily while scanning (see `resolve`), so building stays cheap.
  const fail = new Int32Array(states).fill(ROOT);
  const output = new Int32Array(states).fill(-1);
  const queue = new Int32Array(states);
  let tail = 0;
  for (let to = firstChild[ROOT]!; to !== 0; to = nextSibling[to]!) {
    output[to] = literalAt[to] !== -1 ? to : -1;
    queue[tail++] = to;
  }
  for (let head = 0; head < tail; head++) {
    const state = queue[head]!;
    for (let to = firstChild[state]!; to !== 0; to = nextSibling[to]!) {
      const cls = edgeClass[to]!;
      let f = fail[state]!;
      while (f !== ROOT && step[f * classes + cls] === 0) f = fail[f]!;
      const edge = step[f * classes + cls]!;
      const viaFail = edge === 0 ? ROOT : edge / classes;
      fail[to] = viaFail;
      output[to] = literalAt[to] !== -1 ? to : output[viaFail]!;
      queue[tail++] = to;
    }
  }
  // The next literal-ending state further down each chain.
  const outputLink = new Int32Array(states).fill(-1);
  for (let state = ROOT + 1; state < states; state++) {
    if (output[state] === state) outputLink[state] = output[fail[state]!]!;
  }
  // Trie edges into a state that completes a literal take their final, complemented form.
  for (let state = ROOT; state < states; state++) {
    for (let to = firstChild[state]!; to !== 0; to = nextSibling[to]!) {
      if (output[to] !== -1) step[state * classes + edgeClass[to]!] = ~to;
    }
  }
  // What reaching each such state means, worked out once: the clauses of every literal
  // it completes, so a hit in the text is one short loop.
  const hitStart = new Int32Array(states + 1);
  const hitList: number[] = [];
  for (let state = 0; state < states; state++) {
    hitStart[state] = hitList.length;
    if (state < ROOT || output[state] === -1) continue;
    const clauses = new Set<number>();
    for (let o = output[state]!; o !== -1; o = outputLink[o]!) {
      for (const clause of clausesOf[literalAt[o]!]!) clauses.add(clause);
    }
    for (const clause of clauses) hitList.push(clause);
  }
  hitStart[states] = hitList.length;
  return {
    step,
    fail,
    classes,
    hitStart,
    hitClauses: new Int32Array(hitList),
    stateSeen: new Int32Array(states),
    clausesOf: clausesOf.map((list) => new Int32Array(list)),
    patternOf: new Int32Array(patternOf),
    clauseCount: new Int32Array(clauseCount),
    free: new Int32Array(clauseCount.flatMap((count, pid) => (count === 0 ? [pid] : []))),
    nonAscii,
    nonAsciiText: nonAscii.map((id) => literalText[id]!),
    seen: new Int32Array(literalIds.size),
    met: new Int32Array(clauseLiterals.length),
    metCount: new Int32Array(clauseCount.length),
    counted: new Int32Array(clauseCount.length),
    allowed: new Int32Array(clauseCount.length),
    ids,
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
    const step = a.step;
    const stateSeen = a.stateSeen;
    const classes = a.classes;
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
        if (stateSeen[state] !== mark) this.reach(state);
      }
    }
    this.alreadyNormal = normal;
    const seen = a.seen;
    if (sawNonAscii) {
      for (let k = 0; k < a.nonAscii.length; k++) {
        const id = a.nonAscii[k]!;
        if (seen[id] !== mark && text.includes(a.nonAsciiText[k]!)) this.meet(id);
      }
    }
  }

  /** The text reached `state`: the clauses of every literal it completes are met. */
  private reach(state: number): void {
    const a = this.automaton;
    a.stateSeen[state] = this.stamp;
    for (let k = a.hitStart[state]!; k < a.hitStart[state + 1]!; k++)
      this.meetClause(a.hitClauses[k]!);
  }

  /** Literal `id` occurs: its clauses are met. */
  private meet(id: number): void {
    const a = this.automaton;
    a.seen[id] = this.stamp;
    const clauses = a.clausesOf[id]!;
    for (let k = 0; k < clauses.length; k++) this.meetClause(clauses[k]!);
  }

  /** `clause` is met; a pattern with all its clauses met is allowed. */
  private meetClause(clause: number): void {
    const a = this.automaton;
    const mark = this.stamp;
    if (a.met[clause] === mark) return;
    a.met[clause] = mark;
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

/** The root state: state numbers start at 1 so that no row is 0 (see `Automaton.step`). */
const ROOT = 1;

/** Compute, remember and return the encoded transition from `state` on `cls`. */
function resolve(a: Automaton, state: number, cls: number): number {
  const slot = state * a.classes + cls;
  const known = a.step[slot]!;
  if (known !== 0) return known;
  // No trie edge: where the suffix link goes on `cls` (from the root, the root).
  const encoded = state === ROOT ? ROOT * a.classes : resolve(a, a.fail[state]!, cls);
  a.step[slot] = encoded;
  return encoded;
}

/** Stamp of the latest scan (see {@link LiteralsIn}). */
let stamp = 0;
