/**
 * SCAN012 over a whole input: duplicate, case-only and look-alike names (tools whose
 * names share a confusable skeleton form a group), and names that camouflage themselves.
 *
 * A group is reported once per member: each tool of a group gets one SCAN012 finding that
 * counts the other members by relation and names the first {@link MAX_NAMED_COLLISIONS}
 * of them. A finding per pair would make findings, time and output grow with the square
 * of the group (1,000 copies of one tool: a million findings); this way they grow with
 * the input.
 */
import { nameSkeleton, skeletonHash } from "../confusables.js";
import type { Finding, LoadedTool, NameCollision, NameRelation } from "../types.js";

/**
 * Most other members of a look-alike group that one SCAN012 finding names (in its
 * message and its `collisions.tools`); the rest are counted.
 *
 * @example
 * ```ts
 * import { MAX_NAMED_COLLISIONS } from "agent-airlock/scan";
 * console.log(MAX_NAMED_COLLISIONS); // 5
 * ```
 */
export const MAX_NAMED_COLLISIONS = 5;

/**
 * SCAN012 findings by tool index. `definitionKey(i)` is a text equal for two tools exactly
 * when their definitions are the same (it is asked only of tools whose name is listed more
 * than once). A tool listed again with the very same definition under the same server (the
 * same config read twice) warns; any other collision fails, on every tool of the group.
 */
export function nameFindings(
  tools: readonly LoadedTool[],
  definitionKey: (index: number) => string,
): Map<number, Finding[]> {
  const out = new Map<number, Finding[]>();
  for (const group of lookAlikeGroups(tools)) {
    const relations = new GroupRelations(tools, group, definitionKey);
    for (const i of group) out.set(i, [relations.finding(i)]);
  }
  for (let i = 0; i < tools.length; i++) {
    const own = singleNameFinding(tools[i]!.definition.name);
    if (own !== null) out.set(i, [...(out.get(i) ?? []), own]);
  }
  return out;
}

/**
 * The indexes of tools whose names share a skeleton, two or more per group, each group in
 * index order and the groups in the order of their first member. Names are first grouped
 * by {@link skeletonHash} (no string built); only names whose hashes meet get a skeleton.
 */
export function lookAlikeGroups(tools: readonly LoadedTool[]): number[][] {
  const firstWithHash = new Map<number, number>();
  const candidate: boolean[] = [];
  let anyMeet = false;
  for (let i = 0; i < tools.length; i++) {
    const hash = skeletonHash(tools[i]!.definition.name);
    const first = firstWithHash.get(hash);
    if (first === undefined) {
      firstWithHash.set(hash, i);
      continue;
    }
    candidate[first] = true;
    candidate[i] = true;
    anyMeet = true;
  }
  if (!anyMeet) return [];
  const bySkeleton = new Map<string, number[]>();
  for (let i = 0; i < tools.length; i++) {
    if (candidate[i] !== true) continue;
    const key = nameSkeleton(tools[i]!.definition.name);
    const list = bySkeleton.get(key);
    if (list) list.push(i);
    else bySkeleton.set(key, [i]);
  }
  return [...bySkeleton.values()].filter((group) => group.length > 1);
}

const increment = <K>(map: Map<K, number>, key: K) => map.set(key, (map.get(key) ?? 0) + 1);

/**
 * One group's members counted by exact name, by lower-cased name and by identity (server
 * and definition), so each member's relations to all the others are a few lookups.
 */
class GroupRelations {
  readonly #tools: readonly LoadedTool[];
  readonly #group: readonly number[];
  readonly #byName = new Map<string, number>();
  readonly #byLower = new Map<string, number>();
  /** Per server, per definition key: members listed under the same name more than once. */
  readonly #byIdentity = new Map<string | null, Map<string, number>>();
  readonly #lower = new Map<number, string>();
  readonly #identity = new Map<number, string>();

  constructor(tools: readonly LoadedTool[], group: readonly number[], key: (i: number) => string) {
    this.#tools = tools;
    this.#group = group;
    for (const i of group) {
      const name = tools[i]!.definition.name;
      const lower = name.toLowerCase();
      this.#lower.set(i, lower);
      increment(this.#byName, name);
      increment(this.#byLower, lower);
    }
    for (const i of group) {
      const { definition, server } = tools[i]!;
      if (this.#byName.get(definition.name)! < 2) continue;
      const identity = key(i);
      this.#identity.set(i, identity);
      const perServer = this.#byIdentity.get(server) ?? new Map<string, number>();
      this.#byIdentity.set(server, increment(perServer, identity));
    }
  }

  /** The one SCAN012 finding of member `i`: every other member counted, the first few named. */
  finding(i: number): Finding {
    const me = this.#tools[i]!;
    const name = me.definition.name;
    const sameName = this.#byName.get(name)! - 1;
    const identical =
      sameName === 0 ? 0 : this.#byIdentity.get(me.server)!.get(this.#identity.get(i)!)! - 1;
    const sameLower = this.#byLower.get(this.#lower.get(i)!)! - 1;
    const others = this.#group.length - 1;
    const counts: Record<NameRelation, number> = {
      identical,
      duplicate: sameName - identical,
      case: sameLower - sameName,
      "look-alike": others - sameLower,
    };
    const listed: NameCollision[] = [];
    for (const j of this.#group) {
      if (listed.length === MAX_NAMED_COLLISIONS) break;
      if (j !== i) listed.push(this.#collision(i, j));
    }
    return {
      code: "SCAN012",
      grade: counts.identical === others ? "warn" : "fail",
      pointer: "/name",
      message: collisionMessage(name, others, counts, listed),
      collisions: { count: others, tools: listed },
    };
  }

  #collision(i: number, j: number): NameCollision {
    const me = this.#tools[i]!;
    const other = this.#tools[j]!;
    const name = other.definition.name;
    let relation: NameRelation;
    if (name === me.definition.name) {
      const identical =
        other.server === me.server && this.#identity.get(i) === this.#identity.get(j);
      relation = identical ? "identical" : "duplicate";
    } else {
      relation = this.#lower.get(i) === this.#lower.get(j) ? "case" : "look-alike";
    }
    return { name, server: other.server, source: other.source, relation };
  }
}

const RELATION_COUNT: Record<NameRelation, (n: number) => string> = {
  identical: (n) => `${n} identical ${n === 1 ? "relisting" : "relistings"}`,
  duplicate: (n) => `${n} ${n === 1 ? "duplicate" : "duplicates"} of the name`,
  case: (n) => `${n} differing only in case`,
  "look-alike": (n) => `${n} ${n === 1 ? "look-alike" : "look-alikes"}`,
};

/**
 * One member's message. With a single other member it reads as before groups were
 * counted (`"a" duplicate name (memory): ...`); with more, it counts them by relation and
 * names the first few.
 */
function collisionMessage(
  name: string,
  others: number,
  counts: Record<NameRelation, number>,
  listed: readonly NameCollision[],
): string {
  const described = listed.map((other) => `${relationText(name, other)} (${whereText(other)})`);
  if (others === 1) return `${quote(name)} ${described[0]}: one tool can shadow the other`;
  const summary = (Object.keys(RELATION_COUNT) as NameRelation[])
    .filter((relation) => counts[relation] > 0)
    .map((relation) => RELATION_COUNT[relation](counts[relation]))
    .join(", ");
  const more = others > listed.length ? `; and ${others - listed.length} more` : "";
  return `${quote(name)} collides with ${others} other tools (${summary}): ${runs(described).join("; ")}${more}: one tool can shadow another`;
}

/** Equal neighbours said once with a count: `duplicate name (memory) ×3`. */
function runs(texts: readonly string[]): string[] {
  const out: string[] = [];
  for (let i = 0; i < texts.length; ) {
    let j = i + 1;
    while (j < texts.length && texts[j] === texts[i]) j++;
    out.push(j - i === 1 ? texts[i]! : `${texts[i]} ×${j - i}`);
    i = j;
  }
  return out;
}

function relationText(name: string, other: NameCollision): string {
  switch (other.relation) {
    case "identical":
      return "listed again with an identical definition";
    case "duplicate":
      return "duplicate name";
    case "case":
      return `differs only in case from ${quote(other.name)}`;
    case "look-alike":
      return `looks like ${quote(other.name)} (${describeDifference(name, other.name)})`;
  }
}

function whereText(other: NameCollision): string {
  return `${other.server === null ? "" : `server ${quote(other.server)}, `}${other.source}`;
}

const INVISIBLE = /[\p{Default_Ignorable_Code_Point}\p{Cc}\p{Cf}]/u;
const LATIN = /\p{Script=Latin}/u;
const LOOKALIKE_SCRIPTS =
  /[\p{Script=Cyrillic}\p{Script=Greek}\p{Script=Armenian}\p{Script=Cherokee}]/u;

/**
 * A name can camouflage itself without a twin in the input: invisible characters (a
 * zero-width joiner or a bidi override makes two different names render the same) fail;
 * Latin mixed with Cyrillic, Greek, Armenian or Cherokee letters warns.
 */
function singleNameFinding(name: string): Finding | null {
  if (/^[\u0020-\u007e]*$/.test(name)) return null;
  const hidden = INVISIBLE.exec(name);
  if (hidden) {
    return {
      code: "SCAN012",
      grade: "fail",
      pointer: "/name",
      message: `name contains the invisible character U+${hidden[0].codePointAt(0)!.toString(16).toUpperCase().padStart(4, "0")}: it renders like a different name`,
    };
  }
  if (LATIN.test(name) && LOOKALIKE_SCRIPTS.test(name)) {
    return {
      code: "SCAN012",
      grade: "warn",
      pointer: "/name",
      message: "name mixes Latin letters with look-alike letters of another script",
    };
  }
  return null;
}

/** A name for a message: quoted, and cut at 100 characters. */
function quote(name: string): string {
  return JSON.stringify(name.length > 100 ? `${name.slice(0, 100)}…` : name);
}

function describeDifference(a: string, b: string): string {
  const odd = [...new Set([...a, ...b])].filter((c) => c.charCodeAt(0) > 0x7e || c < " ");
  if (odd.length === 0) return "confusable characters";
  return `non-ASCII ${odd
    .slice(0, 6)
    .map((c) => `U+${c.codePointAt(0)!.toString(16).toUpperCase().padStart(4, "0")}`)
    .join(" ")}`;
}
