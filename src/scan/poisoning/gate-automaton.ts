/**
 * The literal gate's Aho-Corasick automaton as flat tables (literal-gate.ts scans with
 * them), how they are built from the gate's literals, and how they are packed into
 * gate-clauses.ts for the built-in patterns: building them runs once per process, and a
 * fresh `airlock scan-tools` process spent milliseconds of interpreted code on it.
 */

/** The root state: state numbers start at 1 so that no row (`state * classes`) is 0. */
export const ROOT = 1;

/** The automaton's tables. */
export interface GateTables {
  /** Character class of each ASCII character; 0 is "no literal has this character". */
  classOf: Uint8Array;
  classes: number;
  states: number;
  /**
   * `step[row + class]`, where `row` is `state * classes`: the next state's row, or the
   * bitwise complement of the next state (negative) when it completes a literal; 0 until
   * first needed. Built with the trie's edges only; the rest is filled while scanning.
   */
  step: Int32Array;
  /** Suffix links: the state of the longest proper suffix that is also in the trie. */
  fail: Int32Array;
  /**
   * For each state that completes literals (itself or down its suffix chain), the clauses
   * those literals satisfy: `hitClauses[hitStart[state] .. hitStart[state + 1])`.
   */
  hitStart: Int32Array;
  hitClauses: Int32Array;
}

/**
 * Build the tables for `literals` (ids are positions; ids in `skip`, the literals with a
 * character past ASCII, are looked up apart and stay out of the automaton), where
 * `clausesOf[id]` lists the clauses literal `id` satisfies.
 *
 * @example
 * ```ts
 * import { buildGateTables } from "./gate-automaton.js";
 * const tables = buildGateTables(["he", "she"], new Set(), [[0], [1]]);
 * // The root is state 1 (no row is 0), then h, he, s, sh, she.
 * console.log(tables.states); // 7
 * ```
 */
export function buildGateTables(
  literals: readonly string[],
  skip: ReadonlySet<number>,
  clausesOf: readonly (readonly number[])[],
): GateTables {
  // Alphabet: every ASCII character some literal uses gets its own class.
  const classOf = new Uint8Array(128);
  let classes = 1;
  literals.forEach((literal, id) => {
    if (skip.has(id)) return;
    for (let k = 0; k < literal.length; k++) {
      const c = literal.charCodeAt(k);
      if (classOf[c] === 0) classOf[c] = classes++;
    }
  });
  for (let c = 0x41; c <= 0x5a; c++) classOf[c] = classOf[c + 0x20]!;
  // While building, `step` holds the trie: `step[row + class]` is the child's row, 0 for
  // none. Each state spells one string, so it ends at most one literal.
  let capacity = ROOT + 1;
  for (const literal of literals) capacity += literal.length;
  const trie = new Int32Array(capacity * classes);
  const literalAt = new Int32Array(capacity).fill(-1);
  // Each state's children as a linked list, so the breadth-first pass below visits the
  // trie's edges rather than every (state, class) slot.
  const firstChild = new Int32Array(capacity);
  const nextSibling = new Int32Array(capacity);
  const edgeClass = new Int32Array(capacity);
  let states = ROOT + 1;
  literals.forEach((literal, id) => {
    if (skip.has(id)) return;
    let state = ROOT;
    for (let k = 0; k < literal.length; k++) {
      const cls = classOf[literal.charCodeAt(k)]!;
      const slot = state * classes + cls;
      if (trie[slot] === 0) {
        const child = states++;
        trie[slot] = child * classes;
        edgeClass[child] = cls;
        nextSibling[child] = firstChild[state]!;
        firstChild[state] = child;
      }
      state = trie[slot]! / classes;
    }
    literalAt[state] = id;
  });
  // Breadth-first over the trie edges only: suffix links, and for each state the nearest
  // state on its suffix chain (itself included) that ends a literal.
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
      while (f !== ROOT && trie[f * classes + cls] === 0) f = fail[f]!;
      const edge = trie[f * classes + cls]!;
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
  // The scan table: the trie's edges, those into a state that completes a literal in
  // their complemented form.
  const step = new Int32Array(states * classes);
  for (let state = ROOT; state < states; state++) {
    for (let to = firstChild[state]!; to !== 0; to = nextSibling[to]!) {
      step[state * classes + edgeClass[to]!] = output[to] !== -1 ? ~to : to * classes;
    }
  }
  // What reaching each such state means, worked out once: the clauses of every literal it
  // completes, so a hit in the text is one short loop.
  const hitStart = new Int32Array(states + 1);
  const hitList: number[] = [];
  const lastAdded = new Int32Array(
    clausesOf.reduce((n, list) => Math.max(n, ...list, -1), -1) + 1,
  ).fill(-1);
  for (let state = 0; state < states; state++) {
    hitStart[state] = hitList.length;
    if (state < ROOT || output[state] === -1) continue;
    for (let o = output[state]!; o !== -1; o = outputLink[o]!) {
      for (const clause of clausesOf[literalAt[o]!]!) {
        if (lastAdded[clause] === state) continue;
        lastAdded[clause] = state;
        hitList.push(clause);
      }
    }
  }
  hitStart[states] = hitList.length;
  return { classOf, classes, states, step, fail, hitStart, hitClauses: new Int32Array(hitList) };
}

/** {@link GateTables} as text, for a generated source file. */
export interface PackedGateTables {
  readonly classes: number;
  readonly states: number;
  /** Base64 of little-endian 32-bit integers; `edges` holds (slot, value) pairs of `step`. */
  readonly classOf: string;
  readonly edges: string;
  readonly fail: string;
  readonly hitStart: string;
  readonly hitClauses: string;
}

const int32Base64 = (values: Int32Array) =>
  Buffer.from(values.buffer, values.byteOffset, values.byteLength).toString("base64");

/**
 * Pack tables as built (only the trie's edges in `step`).
 *
 * @example
 * ```ts
 * import { buildGateTables, packGateTables, unpackGateTables } from "./gate-automaton.js";
 * const tables = buildGateTables(["he", "she"], new Set(), [[0], [1]]);
 * console.log(unpackGateTables(packGateTables(tables))?.states); // 7
 * ```
 */
export function packGateTables(tables: GateTables): PackedGateTables {
  const edges: number[] = [];
  for (let slot = 0; slot < tables.step.length; slot++) {
    if (tables.step[slot] !== 0) edges.push(slot, tables.step[slot]!);
  }
  return {
    classes: tables.classes,
    states: tables.states,
    classOf: Buffer.from(tables.classOf).toString("base64"),
    edges: int32Base64(new Int32Array(edges)),
    fail: int32Base64(tables.fail),
    hitStart: int32Base64(tables.hitStart),
    hitClauses: int32Base64(tables.hitClauses),
  };
}

/** True on a little-endian machine, where packed integers read as they were written. */
const LITTLE_ENDIAN = new Uint8Array(new Uint32Array([1]).buffer)[0] === 1;

function int32s(base64: string): Int32Array {
  const bytes = Buffer.from(base64, "base64");
  // A copy: Buffer's pooled memory need not be aligned for 32-bit views.
  return new Int32Array(new Uint8Array(bytes).buffer);
}

/**
 * The tables {@link packGateTables} packed, with a fresh scan table; undefined on a
 * big-endian machine (the caller then builds them).
 *
 * @example
 * ```ts
 * import { buildGateTables, packGateTables, unpackGateTables } from "./gate-automaton.js";
 * const tables = buildGateTables(["he", "she"], new Set(), [[0], [1]]);
 * console.log(unpackGateTables(packGateTables(tables))?.hitClauses.length); // 3
 * ```
 */
export function unpackGateTables(packed: PackedGateTables): GateTables | undefined {
  if (!LITTLE_ENDIAN) return undefined;
  const step = new Int32Array(packed.states * packed.classes);
  const edges = int32s(packed.edges);
  for (let k = 0; k < edges.length; k += 2) step[edges[k]!] = edges[k + 1]!;
  return {
    classOf: new Uint8Array(Buffer.from(packed.classOf, "base64")),
    classes: packed.classes,
    states: packed.states,
    step,
    fail: int32s(packed.fail),
    hitStart: int32s(packed.hitStart),
    hitClauses: int32s(packed.hitClauses),
  };
}
