/**
 * The literals every match of a regular expression must contain, read off its source:
 * a conjunction of clauses, each a set of alternatives. `\bsilently\b[^\n]{0,9}(?:forward|send)`
 * needs "silently" and one of "forward" / "send"; a small optional or alternative part
 * inside a run of plain text is spelled out (`all (?:available )?tools` needs "all tools"
 * or "all available tools"), and a class of a few plain characters is a clause of them.
 * Any construct the reader does not understand (wide classes, lookarounds, repeated
 * groups) adds no clause, so the result is always a necessary condition, never more. The
 * literal gate (literal-gate.ts) uses it.
 *
 * `\s` is read as a space or a line feed: the gate only reads texts in matching form
 * (normalize.ts), whose only whitespace characters are those two (a test checks it).
 * Literals are lower case, like the lower-case twin the gate reads (case-fold.ts).
 */

/** A conjunction of clauses; each clause is satisfied by any one of its literals (lower case). */
export type LiteralClauses = readonly (readonly string[])[];

interface Item {
  /** `assertion`: zero-width (`\b`, `\B`, `^`, `$`, a lookaround); `other`: anything else unread. */
  kind: "char" | "space" | "group" | "assertion" | "other";
  /** One character, or a run of plain characters that carries no quantifier. */
  char?: string;
  branches?: Item[][];
  min: number;
  /** True when the item matches at most once (no quantifier, `?`, `{0,1}`): it can be spelled out. */
  once?: boolean;
}

const CONTROL_ESCAPES: Readonly<Record<string, string>> = {
  n: "\n",
  t: "\t",
  r: "\r",
  f: "\f",
  v: "\v",
};
/** Characters that stand for themselves in a pattern, several in a row. */
const PLAIN_RUN = /[A-Za-z0-9 _'",:;!@#%&=<>~`-]+/y;
/** `{m}`, `{m,}` or `{m,n}` right at `lastIndex`. */
const BOUNDS = /\{(\d+)(?:,(\d*))?\}/y;

function isAlphanumeric(ch: string): boolean {
  const c = ch.charCodeAt(0);
  return (c >= 0x30 && c <= 0x39) || (c >= 0x41 && c <= 0x5a) || (c >= 0x61 && c <= 0x7a);
}

/** True when `count` hex digits start at `at`. */
function hexDigits(source: string, at: number, count: number): boolean {
  if (at + count > source.length) return false;
  for (let k = at; k < at + count; k++) {
    const c = source.charCodeAt(k);
    const digit = c >= 0x30 && c <= 0x39;
    const letter = (c >= 0x41 && c <= 0x46) || (c >= 0x61 && c <= 0x66);
    if (!digit && !letter) return false;
  }
  return true;
}

/** Most characters a class may list and still be read as a set of one-character literals. */
const MAX_CLASS_CHARACTERS = 6;

/**
 * A class that lists a few plain characters (`['"“‘]`) as a group of one-character
 * branches: a match holds one of them. Negated classes, ranges, escapes and longer
 * lists constrain nothing the gate can use.
 */
function smallClass(body: string): Item {
  if (body.startsWith("^") || body.includes("\\") || body.length > MAX_CLASS_CHARACTERS) {
    return { kind: "other", min: 1 };
  }
  if (body.length > 1 && body.slice(1, -1).includes("-")) return { kind: "other", min: 1 };
  const members = [...new Set(body)];
  return {
    kind: "group",
    branches: members.map((member) => [{ kind: "char", char: member, min: 1 }]),
    min: 1,
  };
}

/** Parse a pattern source into alternatives of items; unknown constructs become `other`. */
function parse(source: string): Item[][] {
  let i = 0;
  const alternation = (): Item[][] => {
    const branches: Item[][] = [[]];
    while (i < source.length) {
      const c = source[i]!;
      if (c === ")") return branches;
      if (c === "|") {
        branches.push([]);
        i++;
        continue;
      }
      const items = branches[branches.length - 1]!;
      // A run of plain characters is one item; its last character stays apart when a
      // quantifier follows, since the quantifier binds to that character alone.
      PLAIN_RUN.lastIndex = i;
      const run = PLAIN_RUN.exec(source);
      if (run !== null) {
        let text = run[0];
        const after = source[i + text.length];
        if (text.length > 1 && (after === "?" || after === "*" || after === "+" || after === "{"))
          text = text.slice(0, -1);
        i += text.length;
        if (text.length > 1) {
          items.push({ kind: "char", char: text, min: 1 });
          continue;
        }
        i -= 1;
      }
      items.push(atom());
      quantifier(items);
    }
    return branches;
  };
  const atom = (): Item => {
    const c = source[i]!;
    if (c === "\\") return escaped();
    if (c === "[") {
      const start = ++i;
      if (source[i] === "^") i++;
      if (source[i] === "]") i++;
      while (i < source.length && source[i] !== "]") i += source[i] === "\\" ? 2 : 1;
      i++;
      return smallClass(source.slice(start, i - 1));
    }
    if (c === "(") {
      i++;
      let look = false;
      if (source[i] === "?") {
        const next = source[i + 1];
        if (next === ":") i += 2;
        else if (next === "=" || next === "!") {
          look = true;
          i += 2;
        } else if (next === "<" && (source[i + 2] === "=" || source[i + 2] === "!")) {
          look = true;
          i += 3;
        } else if (next === "<") {
          const close = source.indexOf(">", i);
          i = close === -1 ? source.length : close + 1;
        } else look = true;
      }
      const branches = alternation();
      i++; // ")"
      return look ? { kind: "assertion", min: 1 } : { kind: "group", branches, min: 1 };
    }
    i++;
    if (c === "^" || c === "$") return { kind: "assertion", min: 1 };
    if (c === ".") return { kind: "other", min: 1 };
    return { kind: "char", char: c, min: 1 };
  };
  const escaped = (): Item => {
    const e = source[i + 1] ?? "";
    i += 2;
    const control = CONTROL_ESCAPES[e];
    if (control !== undefined) return { kind: "char", char: control, min: 1 };
    if (e === "s") return { kind: "space", min: 1 };
    if (e === "x" && hexDigits(source, i, 2)) {
      i += 2;
      return {
        kind: "char",
        char: String.fromCharCode(Number.parseInt(source.slice(i - 2, i), 16)),
        min: 1,
      };
    }
    if (e === "u" && hexDigits(source, i, 4)) {
      i += 4;
      return {
        kind: "char",
        char: String.fromCharCode(Number.parseInt(source.slice(i - 4, i), 16)),
        min: 1,
      };
    }
    // Classes (\s \w \d ...), assertions (\b), back-references, \c, \p: no literal.
    if (e === "b" || e === "B") return { kind: "assertion", min: 1 };
    if (isAlphanumeric(e)) return { kind: "other", min: 1 };
    return { kind: "char", char: e, min: 1 };
  };
  const quantifier = (items: Item[]): void => {
    const c = source[i];
    let min: number | undefined;
    let once = false;
    if (c === "*" || c === "?") {
      min = 0;
      once = c === "?";
    } else if (c === "+") min = 1;
    else if (c === "{") {
      BOUNDS.lastIndex = i;
      const m = BOUNDS.exec(source);
      if (m === null) return; // a literal "{"
      min = Number(m[1]);
      once = m[2] === undefined ? min <= 1 : m[2] !== "" && Number(m[2]) <= 1;
      i += m[0].length - 1;
    } else return;
    i++;
    if (source[i] === "?") i++; // lazy
    const last = items[items.length - 1]!;
    // A repeated character is still required once, but it ends the literal run.
    items[items.length - 1] = { ...last, min: Math.min(min, 1), once };
    if ((last.kind === "char" || last.kind === "space") && min >= 1)
      items.push({ kind: "other", min: 1 });
  };
  return alternation();
}

function shortest(clause: readonly string[]): number {
  let min = Number.POSITIVE_INFINITY;
  for (const literal of clause) min = Math.min(min, literal.length);
  return min;
}

/** Rank a clause: longer shortest literal first, then fewer literals. */
function better(a: readonly string[], b: readonly string[]): boolean {
  const ma = shortest(a);
  const mb = shortest(b);
  return ma !== mb ? ma > mb : a.length < b.length;
}

/**
 * A match of `A1 ∧ A2 | B1 ∧ B2` satisfies every `Ai ∨ Bj`. Each clause of each branch is
 * joined with the best clause of every other branch, so a branch's rarer clauses (an
 * `@`, a keyword at the end) still count even when its best one is common.
 */
function clausesOfAlternation(branches: Item[][], top = false): string[][] {
  if (branches.length === 1) return clausesOfSequence(branches[0]!);
  const perBranch: string[][][] = [];
  const bests: string[][] = [];
  for (const branch of branches) {
    const clauses = clausesOfSequence(branch);
    if (clauses.length === 0) return [];
    let best = clauses[0]!;
    for (const clause of clauses) if (better(clause, best)) best = clause;
    perBranch.push(clauses);
    bests.push(best);
  }
  if (!top) return [[...new Set(bests.flat())]];
  const joined: string[][] = [];
  const seen = new Set<string>();
  perBranch.forEach((clauses, k) => {
    const others = bests.filter((_, j) => j !== k).flat();
    for (const clause of clauses) {
      const union = [...new Set([...clause, ...others])];
      const key = [...union].sort().join("\u0000");
      if (seen.has(key)) continue;
      seen.add(key);
      joined.push(union);
    }
  });
  return joined;
}

/** Most spellings of one literal run (each `\s` doubles them); past it the run is cut. */
const MAX_SPELLINGS = 4;

/** True when `item` matches at most once, so its text can be spelled into a literal run. */
const atMostOnce = (item: Item) => item.once !== false;

/**
 * Every text a group can match when each branch is plain characters and `\s` (at most
 * `MAX_SPELLINGS` of them), or undefined: "(?:this|it)" is "this" or "it".
 */
function spellingsOf(branches: Item[][], limit = MAX_SPELLINGS): string[] | undefined {
  const out: string[] = [];
  for (const branch of branches) {
    let spellings = [""];
    for (const item of branch) {
      if (!atMostOnce(item)) return undefined;
      let options: string[];
      if (item.kind === "char") options = [item.char!.toLowerCase()];
      else if (item.kind === "space") options = [" ", "\n"];
      else return undefined;
      if (item.min < 1) options = ["", ...options];
      spellings = spellings.flatMap((spelling) => options.map((option) => spelling + option));
      if (spellings.length > limit) return undefined;
    }
    out.push(...spellings);
    if (out.length > limit) return undefined;
  }
  return out;
}

/**
 * A clause's spellings without the ones that hold another ("say " holds "say"): a text
 * with the longer one has the shorter, so the longer adds nothing but automaton states.
 */
function shortestForms(spellings: readonly string[]): string[] {
  const unique = [...new Set(spellings)];
  return unique.filter((s) => !unique.some((other) => other !== s && s.includes(other)));
}

function clausesOfSequence(items: Item[]): string[][] {
  const clauses: string[][] = [];
  // The current literal run, in every spelling its `\s` items and small optional or
  // alternative parts allow ("set (?:this|it) to" is "set this to" or "set it to").
  let run: string[] = [""];
  const flush = () => {
    if (run.every((spelling) => spelling !== "")) clauses.push(shortestForms(run));
    run = [""];
  };
  const extend = (options: readonly string[]): boolean => {
    if (run.length * options.length > MAX_SPELLINGS) return false;
    run = run.flatMap((spelling) => options.map((option) => spelling + option));
    return true;
  };
  for (const item of items) {
    if (item.kind === "char" && item.min >= 1) {
      const text = item.char!.toLowerCase();
      run = run.map((spelling) => spelling + text);
      continue;
    }
    if (item.kind === "space" && item.min >= 1) {
      if (!extend([" ", "\n"])) {
        flush();
        extend([" ", "\n"]);
      }
      continue;
    }
    if (
      atMostOnce(item) &&
      (item.kind === "char" || item.kind === "space" || item.kind === "group")
    ) {
      const spellings =
        item.kind === "group"
          ? spellingsOf(item.branches!)
          : item.kind === "char"
            ? [item.char!.toLowerCase()]
            : [" ", "\n"];
      if (spellings !== undefined && extend(item.min >= 1 ? spellings : ["", ...spellings]))
        continue;
    }
    flush();
    if (item.kind === "group" && item.min >= 1)
      clauses.push(...clausesOfAlternation(item.branches!));
  }
  flush();
  return clauses;
}

/**
 * The literals every match of `pattern` contains, as a conjunction of clauses (lower
 * case). An empty list means the pattern constrains nothing the gate can check.
 *
 * @example
 * ```ts
 * import { requiredLiterals } from "./required-literals.js";
 * console.log(requiredLiterals(/\bsilently (?:forward|send)\b/gi)); // [["silently forward", "silently send"]]
 * ```
 */
export function requiredLiterals(pattern: RegExp): LiteralClauses {
  if (pattern.unicode || pattern.flags.includes("v")) return [];
  return clausesOfAlternation(parse(pattern.source), true).map(shortestForms);
}

/** Most leading literals read off a pattern (a long alternation of verbs is common). */
const MAX_LEADING = 128;

/**
 * The literals one of which every match of `pattern` starts with (after zero-width
 * assertions such as `\b`), lower case, or undefined when the pattern does not begin
 * with plain text: `\b(?:send|post) to` starts with "send" or "post". A scan need not
 * look for a match before the first place one of them occurs.
 *
 * @example
 * ```ts
 * import { leadingLiterals } from "./required-literals.js";
 * console.log(leadingLiterals(/\b(?:send|post)\s(?:it )?to\b/g)); // ["send", "post"]
 * console.log(leadingLiterals(/[a-z]+@x/g)); // undefined
 * ```
 */
export function leadingLiterals(pattern: RegExp): readonly string[] | undefined {
  if (pattern.unicode || pattern.flags.includes("v")) return undefined;
  const out: string[] = [];
  for (const branch of parse(pattern.source)) {
    const first = branch.find((item) => item.kind !== "assertion");
    if (first === undefined || first.min < 1) return undefined;
    if (first.kind === "char") out.push(first.char!.toLowerCase());
    else if (first.kind === "group" && atMostOnce(first)) {
      const spellings = spellingsOf(first.branches!, MAX_LEADING);
      if (spellings === undefined) return undefined;
      out.push(...spellings);
    } else return undefined;
  }
  // Not cut to shortest forms: "copy and paste" does not start with "paste".
  return out.length === 0 || out.includes("") ? undefined : [...new Set(out)];
}
