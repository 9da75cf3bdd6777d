/**
 * SCAN012's grouping of look-alike names (before the speed work, commit 4b6c34c), kept
 * verbatim as an oracle: test/scan/fast-paths.test.ts checks that the faster code gives
 * the same answers.
 */
import { nameSkeleton } from "../../../src/scan/confusables.js";
import type { Finding, LoadedTool } from "../../../src/scan/types.js";

/**
 * SCAN012 over a whole input: exact duplicates, case-only differences and look-alikes
 * (same confusable skeleton), plus names that camouflage themselves (invisible
 * characters fail, mixed scripts warn). Returns findings by tool index. A tool listed twice with the
 * very same definition under the same server (the same config read twice) is a warning;
 * any other collision fails, on every tool involved.
 */
export function referenceNameFindings(
  tools: readonly LoadedTool[],
  same: (a: number, b: number) => boolean,
): Map<number, Finding[]> {
  const bySkeleton = new Map<string, number[]>();
  tools.forEach((t, i) => {
    const key = nameSkeleton(t.definition.name);
    const list = bySkeleton.get(key);
    if (list) list.push(i);
    else bySkeleton.set(key, [i]);
  });
  const out = new Map<number, Finding[]>();
  for (const group of bySkeleton.values()) {
    if (group.length < 2) continue;
    for (const i of group) {
      const me = tools[i]!;
      for (const j of group) {
        if (j === i) continue;
        const other = tools[j]!;
        const where = `${other.server === null ? "" : `server ${quote(other.server)}, `}${other.source}`;
        let kind: string;
        let grade: Finding["grade"] = "fail";
        if (other.definition.name === me.definition.name) {
          const identical = other.server === me.server && same(i, j);
          kind = identical ? "listed again with an identical definition" : "duplicate name";
          if (identical) grade = "warn";
        } else if (other.definition.name.toLowerCase() === me.definition.name.toLowerCase()) {
          kind = `differs only in case from ${quote(other.definition.name)}`;
        } else {
          kind = `looks like ${quote(other.definition.name)} (${describeDifference(me.definition.name, other.definition.name)})`;
        }
        const list = out.get(i) ?? [];
        list.push({
          code: "SCAN012",
          grade,
          pointer: "/name",
          message: `${quote(me.definition.name)} ${kind} (${where}): one tool can shadow the other`,
        });
        out.set(i, list);
      }
    }
  }
  tools.forEach((t, i) => {
    const own = singleNameFinding(t.definition.name);
    if (own !== null) out.set(i, [...(out.get(i) ?? []), own]);
  });
  return out;
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
