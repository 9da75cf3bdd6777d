/**
 * Flow label inference: from one tool definition (and the policy's corrections) to its
 * flow labels, each with its evidence. It starts from capability inference
 * (capabilities.ts: the access and the domains), then reads the name, the arguments, the
 * annotations and two kinds of description phrase. Most authoritative first: a policy
 * entry, the tool's own `capabilities` list, then inference. A pure function of its
 * inputs, so the proxy can label a listing the same way scan-tools does.
 */
import type { ToolDefinition } from "../../pins/types.js";
import { type CapabilityProfile, inferCapabilities } from "../capabilities.js";
import { ScanOptionsError, ScanPolicyError } from "../errors.js";
import { PERMISSIVE_POLICY, type SecurityPolicy } from "../policy.js";
import { splitWords, wordStartFilter } from "../tokens.js";
import { compileFlowLabels, type FlowLabelMatcher } from "./declared.js";
import { FLOW_LABELS } from "./labels.js";
import {
  ADDRESS_ARGUMENTS,
  CAPABILITY_LABELS,
  FREE_TEXT_ARGUMENTS,
  HOST_ARGUMENTS,
  PATH_ARGUMENTS,
  RECIPIENT_ARGUMENT_NAMES,
  RECIPIENT_ARGUMENTS,
  UNTRUSTED_BIGRAMS,
  WEB_BIGRAMS,
} from "./lexicon.js";
import { describesDestruction, describesTheWeb } from "./phrases.js";
import type { FlowLabel, FlowLabelEvidence, FlowLabelSource } from "./types.js";
import { type FlaggedTokens, firstWith, flagTokens, W } from "./word-flags.js";

/** Options of {@link inferFlowLabels}. */
export interface FlowLabelOptions {
  /** The tool's server, for policy entries that name `server/tool` (default: null, unknown). */
  server?: string | null;
  /**
   * The policy whose `flows.labels` correct the inference and whose
   * `annotationsMayNarrow` capability inference follows (default: `PERMISSIVE_POLICY`).
   */
  policy?: SecurityPolicy;
}

const isObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === "object" && v !== null && !Array.isArray(v);

/**
 * A tool's flow labels, in `FLOW_LABELS` order, each with the first reason found. A
 * policy entry (`flows.labels`) that matches the tool decides alone; else the tool's own
 * `capabilities` list decides alone; else the labels are inferred (a documented
 * heuristic: docs/toxic-flows.md). Never throws on a hostile definition; a server that is
 * not a string is `SCAN_OPTIONS_INVALID`, a policy that is not one or whose `flows`
 * entries are invalid is `SCAN_POLICY_INVALID`.
 *
 * @example
 * ```ts
 * import { inferFlowLabels } from "agent-airlock/scan";
 * const fetch = { name: "fetch_html", inputSchema: { type: "object", properties: { url: { type: "string" } } } };
 * console.log(inferFlowLabels(fetch).map((l) => l.label)); // ["untrusted-content", "public-sink"]
 * console.log(inferFlowLabels({ name: "read_file" }).map((l) => l.label)); // ["private-data"]
 * ```
 */
export function inferFlowLabels(
  tool: ToolDefinition,
  options: FlowLabelOptions = {},
): FlowLabelEvidence[] {
  const policy = options.policy ?? PERMISSIVE_POLICY;
  const server = options.server ?? null;
  if (server !== null && typeof server !== "string")
    throw new ScanOptionsError(
      `inferFlowLabels: server must be a string or null (got ${typeof server})`,
    );
  if (!isObject(policy) || !isObject(policy.capabilities))
    throw new ScanPolicyError(
      "SCAN_POLICY_INVALID",
      "inferFlowLabels: policy must be a SecurityPolicy (resolvePolicy, parsePolicy or a preset)",
    );
  const profile = inferCapabilities(tool, {
    annotationsMayNarrow: policy.capabilities.annotationsMayNarrow,
  });
  return judgeFlowLabels(tool, server, profile, compileFlowLabels(policy));
}

/** {@link inferFlowLabels} with the capability profile and the policy entries at hand. */
export function judgeFlowLabels(
  tool: ToolDefinition,
  server: string | null,
  profile: CapabilityProfile,
  declared: FlowLabelMatcher,
): FlowLabelEvidence[] {
  const name = typeof tool.name === "string" ? tool.name : "";
  const entry = declared.match(name, server);
  const found = new Found();
  if (entry !== null) {
    for (const label of entry.labels)
      found.add(label, "policy", `policy flows.labels ${JSON.stringify(entry.tools)}`);
    return found.list();
  }
  if (profile.capabilities.length > 0 && profile.capabilities[0]!.source === "explicit") {
    for (const c of profile.capabilities)
      for (const label of labelsOf(c.capability))
        found.add(label, "explicit", `capabilities list has ${JSON.stringify(c.capability)}`);
    return found.list();
  }
  inferLabels(tool, name, profile, found);
  return found.list();
}

/** The labels a capability implies; none for a name outside the vocabulary. */
function labelsOf(capability: string): readonly FlowLabel[] {
  return Object.hasOwn(CAPABILITY_LABELS, capability) ? CAPABILITY_LABELS[capability]! : [];
}

/** The first reason of each label. */
class Found {
  // At most four entries: a list is cheaper than a map.
  private readonly found: FlowLabelEvidence[] = [];

  add(label: FlowLabel, source: FlowLabelSource, evidence: string): void {
    if (!this.has(label)) this.found.push({ label, source, evidence });
  }

  has(label: FlowLabel): boolean {
    for (const e of this.found) if (e.label === label) return true;
    return false;
  }

  list(): FlowLabelEvidence[] {
    if (this.found.length < 2) return this.found;
    const out: FlowLabelEvidence[] = [];
    for (const label of FLOW_LABELS) for (const e of this.found) if (e.label === label) out.push(e);
    return out;
  }
}

/** What the definition shows, read once: name tokens, argument tokens, access. */
interface Reading {
  tokens: readonly string[];
  /** The name's tokens with their lexicon bits. */
  name: FlaggedTokens;
  /** Top-level argument names that hold a word the rules read, with the union of their bits. */
  args: readonly Argument[];
  profile: CapabilityProfile;
  reads: boolean;
  writes: boolean;
  /** Reads the network (a fetch, a web search) or a browser page. */
  webRead: boolean;
  browser: boolean;
  /** The first argument that holds an address the tool requests, if any. */
  address: string | null;
  /** A web phrase of the name (`search engine`), if any. */
  web: string | null;
}

function inferLabels(
  tool: ToolDefinition,
  name: string,
  profile: CapabilityProfile,
  found: Found,
): void {
  const tokens = splitWords(name);
  const flagged = flagTokens(tokens);
  const access = profile.access;
  const browser = (flagged.all & W.BROWSER) !== 0;
  const args = argumentsOf(tool.inputSchema);
  const address = argumentWith(args, W.ADDRESS)?.name ?? null;
  const r: Reading = {
    tokens,
    name: flagged,
    args,
    profile,
    reads: access === "read",
    writes: access !== null && access !== "read",
    webRead: false,
    browser,
    address,
    web: webBigram(tokens),
  };
  r.webRead = browser || r.web !== null;
  if (access === "read" && !r.webRead)
    for (const c of profile.capabilities) if (reachesNetwork(r, c)) r.webRead = true;
  const text = typeof tool.description === "string" ? tool.description : "";
  const web = r.reads && text !== "" ? describesTheWeb(text) : null;
  // A read the description places on the open web returns outside text, not the user's.
  if (web !== null) r.webRead = true;
  capabilityLabels(r, found);
  annotationLabels(tool, profile, found);
  nameLabels(r, found);
  argumentLabels(r, found);
  if (web !== null) found.add("untrusted-content", "description", `description says "${web}"`);
  if (r.writes && text !== "" && !found.has("destructive")) {
    const gone = describesDestruction(text);
    if (gone !== null) found.add("destructive", "description", `description says "${gone}"`);
  }
}

/**
 * The argument names that may hold a word the rules read, with their tokens; the others
 * (most of them: `owner`, `page`, `limit`) are never tokenised.
 */
interface Argument {
  name: string;
  /** The union of its tokens' lexicon bits. */
  bits: number;
}

function argumentsOf(schema: unknown): Argument[] {
  const props = isObject(schema) ? schema.properties : undefined;
  if (!isObject(props)) return [];
  const out: Argument[] = [];
  for (const name of Object.keys(props)) {
    const bits = argumentBits(name);
    if (bits !== 0) out.push({ name, bits });
  }
  return out;
}

/**
 * Argument names repeat across tools and listings (`owner`, `page`, `path`): their bits
 * are kept, for at most {@link MAX_REMEMBERED_ARGUMENTS} names (then forgotten at once),
 * so memory stays bounded whatever the input. Null: no word the rules read.
 */
const REMEMBERED = new Map<string, number>();
const MAX_REMEMBERED_ARGUMENTS = 4096;

/** The lexicon bits of an argument name (0: none), a whole-name `to` as a receiver. */
function argumentBits(name: string): number {
  const known = REMEMBERED.get(name);
  if (known !== undefined) return known;
  let bits = mayHoldArgumentWord(name) ? flagTokens(splitWords(name)).all : 0;
  if (RECIPIENT_ARGUMENT_NAMES.has(name.toLowerCase())) bits |= W.RECIPIENT;
  if (REMEMBERED.size >= MAX_REMEMBERED_ARGUMENTS) REMEMBERED.clear();
  REMEMBERED.set(name, bits);
  return bits;
}

const ARGUMENT_WORDS = [
  ...ADDRESS_ARGUMENTS,
  ...PATH_ARGUMENTS,
  ...RECIPIENT_ARGUMENTS,
  ...FREE_TEXT_ARGUMENTS,
  ...HOST_ARGUMENTS,
];
const LONG_WORDS = wordStartFilter(ARGUMENT_WORDS.filter((w) => w.length >= 3));
const SHORT_WORDS = ARGUMENT_WORDS.filter((w) => w.length < 3);
const mayHoldArgumentWord = (name: string) => {
  if (LONG_WORDS(name)) return true;
  const lower = name.toLowerCase();
  if (RECIPIENT_ARGUMENT_NAMES.has(lower)) return true;
  for (const w of SHORT_WORDS) if (lower.includes(w)) return true;
  return false;
};

/** The first argument with a token of the lexicon `bit`. */
function argumentWith(args: readonly Argument[], bit: number): Argument | undefined {
  for (const a of args) if ((a.bits & bit) !== 0) return a;
  return undefined;
}

/**
 * A `net.outbound` that flow labels count: inferred (not only `openWorldHint`), and
 * the tool goes out (a name word such as fetch, web, download) or takes an address. A
 * network noun alone (`get_api_key`, `upload_file` to the server's own store) does not.
 */
function reachesNetwork(r: Reading, c: CapabilityProfile["capabilities"][number]): boolean {
  if (c.capability !== "net.outbound" || c.source === "annotation") return false;
  return r.profile.openWorldEvidence !== null || r.address !== null;
}

/** A lexicon of `first_second` entries as first word to second words, read without joining. */
function bigramTable(entries: ReadonlySet<string>): ReadonlyMap<string, ReadonlySet<string>> {
  const table = new Map<string, Set<string>>();
  for (const e of entries) {
    const [first, second] = e.split("_") as [string, string];
    const seconds = table.get(first);
    if (seconds === undefined) table.set(first, new Set([second]));
    else seconds.add(second);
  }
  return table;
}

const WEB_PAIRS = bigramTable(WEB_BIGRAMS);
const UNTRUSTED_PAIRS = bigramTable(UNTRUSTED_BIGRAMS);

/** The first two adjacent tokens that form an entry of `pairs`, as evidence, or null. */
function pairIn(
  tokens: readonly string[],
  pairs: ReadonlyMap<string, ReadonlySet<string>>,
): string | null {
  for (let i = 0; i + 1 < tokens.length; i++)
    if (pairs.get(tokens[i]!)?.has(tokens[i + 1]!) === true)
      return `name tokens "${tokens[i]} ${tokens[i + 1]}"`;
  return null;
}

const webBigram = (tokens: readonly string[]) => pairIn(tokens, WEB_PAIRS);

function capabilityLabels(r: Reading, found: Found): void {
  let hasDb = false;
  for (const c of r.profile.capabilities) if (c.capability.startsWith("db.")) hasDb = true;
  for (const c of r.profile.capabilities) {
    const why = `capability ${c.capability} (${c.evidence})`;
    switch (c.capability) {
      case "fs.read":
      case "db.read":
      case "secrets.read":
      case "message.read":
        found.add("private-data", "capability", why);
        break;
      case "net.socket": {
        const host = argumentWith(r.args, W.HOST);
        if (host !== undefined)
          found.add("public-sink", "argument", `argument ${JSON.stringify(host.name)} (${why})`);
        break;
      }
      case "exec.command":
        execLabels(r, hasDb, why, found);
        break;
      case "net.outbound":
        if (reachesNetwork(r, c)) networkLabels(r, why, found);
        break;
    }
  }
}

/**
 * Code or commands the model chooses read, reach and change anything (SQL stays inside
 * its database); a lone run verb (`knip-run`) runs a fixed program over the user's files.
 */
function execLabels(r: Reading, hasDb: boolean, why: string, found: Found): void {
  found.add("private-data", "capability", why);
  if (r.profile.evidenceAccess?.access !== "exec") return;
  if (!hasDb) found.add("public-sink", "capability", why);
  found.add("destructive", "capability", why);
}

/** A network reach: a read returns outside text, and an address it takes is a sink. */
function networkLabels(r: Reading, why: string, found: Found): void {
  if (r.reads || r.profile.access === null) {
    // A browser tool's page text is the browser rule's to judge (nameLabels).
    if (!r.browser) found.add("untrusted-content", "capability", why);
    if (r.address !== null)
      found.add("public-sink", "argument", `argument ${JSON.stringify(r.address)} (${why})`);
  } else if (r.writes && r.profile.openWorldEvidence !== null && !r.browser) {
    // A write over the network sends data out; a URL argument of a writing tool is as
    // often a stored link, so only a name word that goes out counts.
    found.add("public-sink", "capability", why);
  }
}

function annotationLabels(tool: ToolDefinition, profile: CapabilityProfile, found: Found): void {
  const a = isObject(tool.annotations) ? tool.annotations : null;
  if (
    a !== null &&
    a.destructiveHint === true &&
    !(a.readOnlyHint === true && profile.access === "read")
  )
    found.add("destructive", "annotation", "destructiveHint: true");
}

const token = (t: string) => `name token ${JSON.stringify(t)}`;

function nameLabels(r: Reading, found: Found): void {
  const { tokens, profile } = r;
  if (profile.access === "delete") {
    const firm = profile.evidenceAccess?.access === "delete";
    const detached = firstWith(r.name, W.DETACHABLE);
    if (firm || detached === undefined)
      found.add("destructive", "name", profile.evidenceAccess?.evidence ?? "delete access");
  }
  if (r.writes) {
    const gone = firstWith(r.name, W.DESTRUCTIVE_VERB);
    if (gone !== undefined) found.add("destructive", "name", token(gone));
    const sink = sinkWord(r);
    if (sink !== null) found.add("public-sink", "name", sink);
  }
  if (r.browser) {
    const content = firstWith(r.name, W.BROWSER_CONTENT);
    if (r.reads || content !== undefined)
      found.add("untrusted-content", "name", `browser tool (${token(content ?? tokens[0]!)})`);
    const input = firstWith(r.name, W.BROWSER_INPUT);
    if (input !== undefined) found.add("public-sink", "name", `browser tool (${token(input)})`);
  }
  if (!r.reads) return;
  const outsider = r.web ?? untrustedNoun(r.name);
  if (outsider !== null) found.add("untrusted-content", "name", outsider);
  const object = privateObject(r);
  if (object !== null) found.add("private-data", "name", object);
}

/** Why a writing tool publishes or sends: an action, a message lead, or free text on a shared object. */
function sinkWord(r: Reading): string | null {
  const { tokens } = r;
  const verb = firstWith(r.name, W.SINK_VERB);
  if (verb !== undefined) return `name token ${JSON.stringify(verb)}`;
  const lead = tokens[0];
  if (lead !== undefined && (r.name.flags[0]! & W.SINK_LEAD) !== 0)
    return `name token ${JSON.stringify(lead)}`;
  const object = firstWith(r.name, W.SINK_OBJECT);
  if (object === undefined) return null;
  const text = argumentWith(r.args, W.FREE_TEXT);
  return text === undefined
    ? null
    : `name token ${JSON.stringify(object)} with free text (argument ${JSON.stringify(text.name)})`;
}

function untrustedNoun(name: FlaggedTokens): string | null {
  const pair = pairIn(name.tokens, UNTRUSTED_PAIRS);
  if (pair !== null) return pair;
  const noun = firstWith(name, W.UNTRUSTED_NOUN);
  return noun === undefined ? null : `name token ${JSON.stringify(noun)}`;
}

/**
 * A read of stored data: a read verb and, after it, an object that is no public data
 * (`get_work_item`, `list_hosts`; not `get_forecast`, `list_icons`, `generate_chart`).
 * Web and browser reads return outside text, not the user's.
 */
function privateObject(r: Reading): string | null {
  if (r.webRead) return null;
  const { tokens, flags, all } = r.name;
  if ((all & W.READ_VERB) === 0 || (all & (W.PUBLIC | W.COMPUTE)) !== 0) return null;
  let verb = 0;
  while ((flags[verb]! & W.READ_VERB) === 0) verb++;
  // The object follows the verb (`get_work_item`), or leads when the verb is last (`pods_list`).
  let object: string | undefined;
  for (let i = verb + 1; i < tokens.length && object === undefined; i++)
    if (isObjectWord(tokens[i]!, flags[i]!)) object = tokens[i];
  for (let i = 0; i < verb && object === undefined; i++)
    if (isObjectWord(tokens[i]!, flags[i]!)) object = tokens[i];
  return object === undefined
    ? null
    : `name reads ${JSON.stringify(object)} (${JSON.stringify(tokens[verb])})`;
}

/** A token that can be what a read verb reads: no filler word, no number. */
function isObjectWord(t: string, bits: number): boolean {
  if ((bits & W.FILLER) !== 0) return false;
  const c = t.charCodeAt(0);
  return !(c >= 48 && c <= 57);
}

function argumentLabels(r: Reading, found: Found): void {
  // A receiver is a sink only with something to send (`channel_id` and `text`, not a
  // reaction name).
  const text = argumentWith(r.args, W.FREE_TEXT);
  for (const a of r.args) {
    const quoted = JSON.stringify(a.name);
    if (r.reads && !r.webRead && (a.bits & W.PATH) !== 0)
      found.add("private-data", "argument", `argument ${quoted} (a file the tool reads)`);
    if (r.writes && text !== undefined && (a.bits & W.RECIPIENT) !== 0)
      found.add(
        "public-sink",
        "argument",
        `argument ${quoted} (who receives argument ${JSON.stringify(text.name)})`,
      );
  }
}
