/**
 * A readable, field-by-field diff of two versions of one tool definition: what an
 * operator reads before re-approving a tool whose pin drifted. The description is
 * diffed word by word; `inputSchema`, `outputSchema` and `annotations` as JSON-pointer
 * additions, removals and changes (a boolean that changed is a flip). Only the pinned
 * fields are compared, with the same reading as a version 2 pin: in `annotations` and
 * `outputSchema` a null member is the same as an absent one, and `{}` the same as none.
 *
 * The diff is plain data (JSON-serialisable); `renderDefinitionDiff` (render-diff.ts)
 * turns it into text. Work is bounded on hostile input: deep or cyclic values, huge documents and huge
 * descriptions give a coarser diff marked `truncated`, never a stack overflow.
 */
import { preview } from "./json-preview.js";
import type { PinnedField, ToolDefinition } from "./types.js";

/** One run of words in a description diff. */
export interface TextPart {
  op: "same" | "add" | "remove";
  text: string;
}

/** The description diff. `before`/`after` are null when the field is absent. */
export interface TextDiff {
  before: string | null;
  after: string | null;
  parts: TextPart[];
}

/** One change inside a JSON field, addressed by an RFC 6901 JSON pointer. */
export interface JsonChange {
  op: "add" | "remove" | "change";
  /** JSON pointer from the field's root (`""` is the whole field). */
  pointer: string;
  /** The old value (absent for `add`). */
  before?: unknown;
  /** The new value (absent for `remove`). */
  after?: unknown;
}

/** How one pinned field moved. */
export type FieldDiff =
  | { field: "description"; text: TextDiff }
  | { field: "inputSchema" | "outputSchema" | "annotations"; changes: JsonChange[] };

/** The result of {@link diffToolDefinitions}. */
export interface DefinitionDiff {
  /** The tool's name (from `after`, else `before`). */
  toolName: string;
  /** The name itself changed (the two are different tools by pin). */
  renamed: { before: string; after: string } | null;
  /** One entry per pinned field that differs, in pin order. */
  fields: FieldDiff[];
  /** A limit was hit: some part of the diff is coarser than it could be. */
  truncated: boolean;
}

/** Limits of {@link diffToolDefinitions}. */
export interface DiffOptions {
  /** Fields to compare (default: all four pinned fields). */
  fields?: readonly PinnedField[];
  /** Deepest JSON nesting walked; deeper differences are reported whole (default 200). */
  maxDepth?: number;
  /** JSON nodes visited per field before the rest is reported whole (default 50,000). */
  maxNodes?: number;
  /** JSON changes kept per field (default 500). */
  maxChanges?: number;
  /** Edit distance explored in the word diff before it falls back to whole replacement (default 1,000). */
  maxTextEdits?: number;
}

const PINNED_FIELDS: readonly PinnedField[] = [
  "description",
  "inputSchema",
  "annotations",
  "outputSchema",
];

/**
 * Diff two definitions of a tool, field by field.
 *
 * @example
 * ```ts
 * import { diffToolDefinitions, renderDefinitionDiff } from "agent-airlock";
 * const diff = diffToolDefinitions(
 *   { name: "send", description: "Send a mail.", annotations: { readOnlyHint: true } },
 *   { name: "send", description: "Send a mail to everyone.", annotations: { readOnlyHint: false } },
 * );
 * console.log(diff.fields.map((f) => f.field)); // ["description", "annotations"]
 * console.log(renderDefinitionDiff(diff));
 * ```
 */
export function diffToolDefinitions(
  before: ToolDefinition,
  after: ToolDefinition,
  options: DiffOptions = {},
): DefinitionDiff {
  const limits = {
    maxDepth: options.maxDepth ?? 200,
    maxNodes: options.maxNodes ?? 50_000,
    maxChanges: options.maxChanges ?? 500,
  };
  const wanted = new Set(options.fields ?? PINNED_FIELDS);
  const beforeName = typeof before.name === "string" ? before.name : String(before.name);
  const afterName = typeof after.name === "string" ? after.name : String(after.name);
  const fields: FieldDiff[] = [];
  let truncated = false;
  for (const field of PINNED_FIELDS) {
    if (!wanted.has(field)) continue;
    if (field === "description") {
      const a = readOwn(before, "description") ?? null;
      const b = readOwn(after, "description") ?? null;
      if (Object.is(a, b)) continue;
      if ((a === null || typeof a === "string") && (b === null || typeof b === "string")) {
        const text = diffText(a, b, options.maxTextEdits ?? 1_000);
        truncated ||= text.truncated;
        fields.push({ field, text: text.diff });
        continue;
      }
      // A description that is not a string: shown replaced whole when it differs.
      const walked = diffJson(a, b, limits);
      truncated ||= walked.truncated;
      if (walked.changes.length > 0) {
        fields.push({
          field,
          text: { before: safeString(a), after: safeString(b), parts: textParts(a, b) },
        });
      }
      continue;
    }
    const walked = diffJson(
      normalise(field, readOwn(before, field)),
      normalise(field, readOwn(after, field)),
      limits,
    );
    truncated ||= walked.truncated;
    if (walked.changes.length > 0) fields.push({ field, changes: walked.changes });
  }
  return {
    toolName: afterName,
    renamed: beforeName === afterName ? null : { before: beforeName, after: afterName },
    fields,
    truncated,
  };
}

function safeString(value: unknown): string | null {
  if (value === undefined || value === null) return null;
  return typeof value === "string" ? value : preview(value, 2_000);
}

function textParts(a: unknown, b: unknown): TextPart[] {
  const parts: TextPart[] = [];
  const sa = safeString(a);
  const sb = safeString(b);
  if (sa !== null) parts.push({ op: "remove", text: sa });
  if (sb !== null) parts.push({ op: "add", text: sb });
  return parts;
}

function readOwn(definition: ToolDefinition, field: string): unknown {
  return Object.hasOwn(definition, field) ? definition[field] : undefined;
}

/**
 * Version 2 pin reading: annotations and outputSchema drop null members at any depth and
 * read `{}` as absent. Iterative, so a deep value cannot overflow the stack; values past
 * 10,000 levels are left as they are (the JSON walk reports them whole).
 */
function normalise(field: PinnedField, value: unknown): unknown {
  if (value === undefined) return undefined;
  if (field !== "annotations" && field !== "outputSchema") return value;
  if (value === null) return undefined;
  const root = stripNulls(value);
  if (isPlainObject(root) && Object.keys(root).length === 0) return undefined;
  return root;
}

function stripNulls(value: unknown): unknown {
  if (!isContainer(value)) return value;
  // One copy per source container, shared by every reference to it: an in-memory value
  // whose parts are shared (a DAG) is copied in linear time, never once per path.
  const copies = new Map<object, unknown[] | Record<string, unknown>>();
  const copyOf = (node: object): unknown[] | Record<string, unknown> => {
    const copy: unknown[] | Record<string, unknown> = Array.isArray(node)
      ? new Array(node.length)
      : Object.create(null);
    copies.set(node, copy);
    return copy;
  };
  const rootCopy = copyOf(value);
  const stack: { source: object; target: unknown[] | Record<string, unknown>; depth: number }[] = [
    { source: value, target: rootCopy, depth: 0 },
  ];
  while (stack.length > 0) {
    const { source, target, depth } = stack.pop()!;
    const entries: [string | number, unknown][] = Array.isArray(source)
      ? source.map((v, i) => [i, v] as [number, unknown])
      : Object.keys(source).map((k) => [k, (source as Record<string, unknown>)[k]]);
    for (const [key, child] of entries) {
      if (child === null && !Array.isArray(source)) continue;
      let out: unknown = child;
      if (isContainer(child) && depth < 10_000) {
        out = copies.get(child);
        if (out === undefined) {
          out = copyOf(child);
          stack.push({
            source: child,
            target: out as unknown[] | Record<string, unknown>,
            depth: depth + 1,
          });
        }
      }
      (target as Record<string | number, unknown>)[key] = out;
    }
  }
  return rootCopy;
}

interface JsonLimits {
  maxDepth: number;
  maxNodes: number;
  maxChanges: number;
}

/** A pair to compare, or the marker that leaves the containers a pair entered. */
type DiffStep =
  | { a: unknown; b: unknown; pointer: string; depth: number }
  | { leave: [object, object] };

function diffJson(
  a: unknown,
  b: unknown,
  limits: JsonLimits,
): { changes: JsonChange[]; truncated: boolean } {
  const changes: JsonChange[] = [];
  let truncated = false;
  let nodes = 0;
  // The containers on the current path (with how often each is on it): a cycle check is
  // one lookup, where a list of ancestors per node would cost the depth on every node.
  const onPath = new Map<object, number>();
  const enter = (o: object) => onPath.set(o, (onPath.get(o) ?? 0) + 1);
  const leave = (o: object) => {
    const n = onPath.get(o)! - 1;
    if (n === 0) onPath.delete(o);
    else onPath.set(o, n);
  };
  const stack: DiffStep[] = [{ a, b, pointer: "", depth: 0 }];
  const push = (change: JsonChange) => {
    if (changes.length >= limits.maxChanges) {
      truncated = true;
      return;
    }
    changes.push(change);
  };
  // Depth-first, children pushed in reverse so changes come out in document order.
  while (stack.length > 0) {
    const item = stack.pop()!;
    if ("leave" in item) {
      leave(item.leave[0]);
      leave(item.leave[1]);
      continue;
    }
    nodes++;
    if (changes.length >= limits.maxChanges) {
      truncated = true;
      break;
    }
    const { pointer } = item;
    if (item.a === undefined && item.b === undefined) continue;
    if (item.a === undefined) {
      push({ op: "add", pointer, after: item.b });
      continue;
    }
    if (item.b === undefined) {
      push({ op: "remove", pointer, before: item.a });
      continue;
    }
    if (Object.is(item.a, item.b)) continue;
    const bothArrays = Array.isArray(item.a) && Array.isArray(item.b);
    const bothObjects = isPlainObject(item.a) && isPlainObject(item.b);
    if (!bothArrays && !bothObjects) {
      push({ op: "change", pointer, before: item.a, after: item.b });
      continue;
    }
    const objA = item.a as object;
    const objB = item.b as object;
    const cyclic = onPath.has(objA) || onPath.has(objB);
    if (item.depth >= limits.maxDepth || nodes >= limits.maxNodes || cyclic) {
      // Too deep, too big or cyclic to walk: report the subtree whole.
      truncated = true;
      push({ op: "change", pointer, before: item.a, after: item.b });
      continue;
    }
    enter(objA);
    enter(objB);
    stack.push({ leave: [objA, objB] });
    const children = childPairs(objA, objB, bothArrays, pointer, item.depth + 1);
    for (let i = children.length - 1; i >= 0; i--) stack.push(children[i]!);
  }
  return { changes, truncated };
}

/** The member pairs of two arrays (by index) or two objects (by sorted key). */
function childPairs(
  objA: object,
  objB: object,
  arrays: boolean,
  pointer: string,
  depth: number,
): DiffStep[] {
  const children: DiffStep[] = [];
  if (arrays) {
    const arrA = objA as unknown[];
    const arrB = objB as unknown[];
    const length = Math.max(arrA.length, arrB.length);
    for (let i = 0; i < length; i++) {
      children.push({
        a: i < arrA.length ? arrA[i] : undefined,
        b: i < arrB.length ? arrB[i] : undefined,
        pointer: `${pointer}/${i}`,
        depth,
      });
    }
    return children;
  }
  const recA = objA as Record<string, unknown>;
  const recB = objB as Record<string, unknown>;
  const keys = new Set([...Object.keys(recA), ...Object.keys(recB)]);
  for (const key of [...keys].sort()) {
    children.push({
      a: Object.hasOwn(recA, key) ? recA[key] : undefined,
      b: Object.hasOwn(recB, key) ? recB[key] : undefined,
      pointer: `${pointer}/${escapePointer(key)}`,
      depth,
    });
  }
  return children;
}

function escapePointer(key: string): string {
  return key.replaceAll("~", "~0").replaceAll("/", "~1");
}

function isContainer(value: unknown): value is object {
  return typeof value === "object" && value !== null;
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return isContainer(value) && !Array.isArray(value);
}

/** Words, runs of whitespace, and single punctuation marks, as separate tokens. */
function tokenize(text: string): string[] {
  return text.match(/\s+|[\p{L}\p{N}\p{M}_]+|[^\s\p{L}\p{N}\p{M}_]/gu) ?? [];
}

function diffText(
  a: string | null,
  b: string | null,
  maxEdits: number,
): { diff: TextDiff; truncated: boolean } {
  const ta = tokenize(a ?? "");
  const tb = tokenize(b ?? "");
  let start = 0;
  while (start < ta.length && start < tb.length && ta[start] === tb[start]) start++;
  let endA = ta.length;
  let endB = tb.length;
  while (endA > start && endB > start && ta[endA - 1] === tb[endB - 1]) {
    endA--;
    endB--;
  }
  const middle = myers(ta.slice(start, endA), tb.slice(start, endB), maxEdits);
  const ops: TextPart[] = [];
  const emit = (op: TextPart["op"], text: string) => {
    if (text === "") return;
    const last = ops[ops.length - 1];
    if (last && last.op === op) last.text += text;
    else ops.push({ op, text });
  };
  emit("same", ta.slice(0, start).join(""));
  let truncated = false;
  if (middle === null) {
    truncated = true;
    emit("remove", ta.slice(start, endA).join(""));
    emit("add", tb.slice(start, endB).join(""));
  } else {
    for (const part of absorbWhitespace(middle)) emit(part.op, part.text);
  }
  emit("same", ta.slice(endA).join(""));
  return { diff: { before: a, after: b, parts: ops }, truncated };
}

/**
 * Myers' O((N+M)·D) shortest edit script over tokens; null when more than `maxEdits`
 * edits are needed (the caller then shows the middle as replaced whole).
 */
/**
 * Readability: a run of edits separated only by whitespace or punctuation reads as one
 * replacement (`[-a colleague-]{+everyone+}`), not as alternating one-word edits.
 */
function absorbWhitespace(parts: TextPart[]): TextPart[] {
  const out: TextPart[] = [];
  let removed = "";
  let added = "";
  let inRun = false;
  const flush = () => {
    if (removed !== "") out.push({ op: "remove", text: removed });
    if (added !== "") out.push({ op: "add", text: added });
    removed = "";
    added = "";
    inRun = false;
  };
  for (let i = 0; i < parts.length; i++) {
    const part = parts[i]!;
    if (part.op === "remove") {
      removed += part.text;
      inRun = true;
    } else if (part.op === "add") {
      added += part.text;
      inRun = true;
    } else if (
      inRun &&
      !/[\p{L}\p{N}]/u.test(part.text) &&
      parts[i + 1] &&
      parts[i + 1]!.op !== "same"
    ) {
      removed += part.text;
      added += part.text;
    } else {
      flush();
      out.push(part);
    }
  }
  flush();
  return out;
}

const MAX_DIFF_TOKENS = 40_000;

function myers(a: string[], b: string[], maxEdits: number): TextPart[] | null {
  const n = a.length;
  const m = b.length;
  // Beyond these, the edit script costs more than it tells: show a whole replacement.
  if (Math.abs(n - m) > maxEdits || n + m > MAX_DIFF_TOKENS) return null;
  const max = Math.min(n + m, maxEdits);
  const offset = max + 1;
  let v = new Int32Array(2 * max + 3);
  const trace: Int32Array[] = [];
  for (let d = 0; d <= max; d++) {
    trace.push(v.slice());
    const next = v.slice();
    for (let k = -d; k <= d; k += 2) {
      let x: number;
      if (k === -d || (k !== d && v[offset + k - 1]! < v[offset + k + 1]!)) {
        x = v[offset + k + 1]!;
      } else {
        x = v[offset + k - 1]! + 1;
      }
      let y = x - k;
      while (x < n && y < m && a[x] === b[y]) {
        x++;
        y++;
      }
      next[offset + k] = x;
      if (x >= n && y >= m) {
        trace.push(next);
        return backtrack(trace, a, b, offset, d);
      }
    }
    v = next;
  }
  return null;
}

function backtrack(
  trace: Int32Array[],
  a: string[],
  b: string[],
  offset: number,
  dFinal: number,
): TextPart[] {
  const reversed: TextPart[] = [];
  let x = a.length;
  let y = b.length;
  for (let d = dFinal; d > 0; d--) {
    const v = trace[d]!;
    const k = x - y;
    const prevK = k === -d || (k !== d && v[offset + k - 1]! < v[offset + k + 1]!) ? k + 1 : k - 1;
    const prevX = v[offset + prevK]!;
    const prevY = prevX - prevK;
    while (x > prevX && y > prevY) {
      reversed.push({ op: "same", text: a[x - 1]! });
      x--;
      y--;
    }
    if (x === prevX) reversed.push({ op: "add", text: b[y - 1]! });
    else reversed.push({ op: "remove", text: a[x - 1]! });
    x = prevX;
    y = prevY;
  }
  while (x > 0 && y > 0) {
    reversed.push({ op: "same", text: a[x - 1]! });
    x--;
    y--;
  }
  return reversed.reverse();
}
