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
import { READ_VERBS } from "../vocabulary.js";
import { compileFlowLabels, type FlowLabelMatcher } from "./declared.js";
import { FLOW_LABELS } from "./labels.js";
import {
  ADDRESS_ARGUMENTS,
  BROWSER_CONTENT_WORDS,
  BROWSER_INPUT_WORDS,
  BROWSER_TOKENS,
  CAPABILITY_LABELS,
  COMPUTE_VERBS,
  DESTRUCTIVE_VERBS,
  DETACHABLE_WORDS,
  FILLER_WORDS,
  FREE_TEXT_ARGUMENTS,
  HOST_ARGUMENTS,
  PATH_ARGUMENTS,
  PUBLIC_DATA_WORDS,
  RECIPIENT_ARGUMENT_NAMES,
  RECIPIENT_ARGUMENTS,
  SINK_LEADS,
  SINK_OBJECTS,
  SINK_VERBS,
  UNTRUSTED_BIGRAMS,
  UNTRUSTED_NOUNS,
  WEB_BIGRAMS,
} from "./lexicon.js";
import { describesDestruction, describesTheWeb } from "./phrases.js";
import type { FlowLabel, FlowLabelEvidence, FlowLabelSource } from "./types.js";

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
  if (profile.capabilities.some((c) => c.source === "explicit")) {
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
  /** Top-level argument names with their lower-case word tokens. */
  args: readonly { name: string; tokens: readonly string[] }[];
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
  const access = profile.access;
  const browser = hasToken(tokens, BROWSER_TOKENS) !== undefined;
  const args = argumentsOf(tool.inputSchema);
  const address = argumentWith(args, ADDRESS_ARGUMENTS)?.name ?? null;
  const r: Reading = {
    tokens,
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
  r.webRead ||= access === "read" && profile.capabilities.some((c) => reachesNetwork(r, c));
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
function argumentsOf(schema: unknown): Reading["args"] {
  const props = isObject(schema) ? schema.properties : undefined;
  if (!isObject(props)) return [];
  const out: { name: string; tokens: readonly string[] }[] = [];
  for (const name of Object.keys(props)) {
    if (mayHoldArgumentWord(name)) out.push({ name, tokens: splitWords(name) });
  }
  return out;
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

function hasToken(tokens: readonly string[], words: ReadonlySet<string>): string | undefined {
  for (const t of tokens) if (words.has(t)) return t;
  return undefined;
}

/** The first argument with a token in `words`. */
function argumentWith(
  args: Reading["args"],
  words: ReadonlySet<string>,
): Reading["args"][number] | undefined {
  for (const a of args) if (hasToken(a.tokens, words) !== undefined) return a;
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

function webBigram(tokens: readonly string[]): string | null {
  for (let i = 0; i + 1 < tokens.length; i++)
    if (WEB_BIGRAMS.has(`${tokens[i]}_${tokens[i + 1]}`))
      return `name tokens "${tokens[i]} ${tokens[i + 1]}"`;
  return null;
}

function capabilityLabels(r: Reading, found: Found): void {
  const hasDb = r.profile.capabilities.some((c) => c.capability.startsWith("db."));
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
        const host = argumentWith(r.args, HOST_ARGUMENTS);
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

function nameLabels(r: Reading, found: Found): void {
  const { tokens, profile } = r;
  const token = (t: string) => `name token ${JSON.stringify(t)}`;
  if (profile.access === "delete") {
    const firm = profile.evidenceAccess?.access === "delete";
    const detached = hasToken(tokens, DETACHABLE_WORDS);
    if (firm || detached === undefined)
      found.add("destructive", "name", profile.evidenceAccess?.evidence ?? "delete access");
  }
  if (r.writes) {
    const gone = hasToken(tokens, DESTRUCTIVE_VERBS);
    if (gone !== undefined) found.add("destructive", "name", token(gone));
    const sink = sinkWord(r);
    if (sink !== null) found.add("public-sink", "name", sink);
  }
  if (r.browser) {
    const content = hasToken(tokens, BROWSER_CONTENT_WORDS);
    if (r.reads || content !== undefined)
      found.add("untrusted-content", "name", `browser tool (${token(content ?? tokens[0]!)})`);
    const input = hasToken(tokens, BROWSER_INPUT_WORDS);
    if (input !== undefined) found.add("public-sink", "name", `browser tool (${token(input)})`);
  }
  if (!r.reads) return;
  const outsider = r.web ?? untrustedNoun(tokens);
  if (outsider !== null) found.add("untrusted-content", "name", outsider);
  const object = privateObject(r);
  if (object !== null) found.add("private-data", "name", object);
}

/** Why a writing tool publishes or sends: an action, a message lead, or free text on a shared object. */
function sinkWord(r: Reading): string | null {
  const { tokens } = r;
  const verb = hasToken(tokens, SINK_VERBS);
  if (verb !== undefined) return `name token ${JSON.stringify(verb)}`;
  const lead = tokens[0];
  if (lead !== undefined && SINK_LEADS.has(lead)) return `name token ${JSON.stringify(lead)}`;
  const object = hasToken(tokens, SINK_OBJECTS);
  if (object === undefined) return null;
  const text = argumentWith(r.args, FREE_TEXT_ARGUMENTS);
  return text === undefined
    ? null
    : `name token ${JSON.stringify(object)} with free text (argument ${JSON.stringify(text.name)})`;
}

function untrustedNoun(tokens: readonly string[]): string | null {
  for (let i = 0; i < tokens.length; i++) {
    const t = tokens[i]!;
    if (i + 1 < tokens.length && UNTRUSTED_BIGRAMS.has(`${t}_${tokens[i + 1]}`))
      return `name tokens "${t} ${tokens[i + 1]}"`;
    if (UNTRUSTED_NOUNS.has(t)) return `name token ${JSON.stringify(t)}`;
  }
  return null;
}

/**
 * A read of stored data: a read verb and, after it, an object that is no public data
 * (`get_work_item`, `list_hosts`; not `get_forecast`, `list_icons`, `generate_chart`).
 * Web and browser reads return outside text, not the user's.
 */
function privateObject(r: Reading): string | null {
  if (r.webRead) return null;
  const { tokens } = r;
  const verb = tokens.findIndex((t) => READ_VERBS.has(t));
  if (verb < 0) return null;
  if (hasToken(tokens, PUBLIC_DATA_WORDS) !== undefined) return null;
  if (hasToken(tokens, COMPUTE_VERBS) !== undefined) return null;
  // The object follows the verb (`get_work_item`), or leads when the verb is last (`pods_list`).
  const object =
    tokens.slice(verb + 1).find(isObjectWord) ?? tokens.slice(0, verb).find(isObjectWord);
  return object === undefined
    ? null
    : `name reads ${JSON.stringify(object)} (${JSON.stringify(tokens[verb])})`;
}

const isObjectWord = (t: string) => !FILLER_WORDS.has(t) && !/^\d+$/.test(t);

function argumentLabels(r: Reading, found: Found): void {
  // A receiver is a sink only with something to send (`channel_id` and `text`, not a
  // reaction name).
  const text = argumentWith(r.args, FREE_TEXT_ARGUMENTS);
  for (const a of r.args) {
    const quoted = JSON.stringify(a.name);
    if (r.reads && !r.webRead && hasToken(a.tokens, PATH_ARGUMENTS) !== undefined)
      found.add("private-data", "argument", `argument ${quoted} (a file the tool reads)`);
    if (
      r.writes &&
      text !== undefined &&
      (RECIPIENT_ARGUMENT_NAMES.has(a.name.toLowerCase()) ||
        hasToken(a.tokens, RECIPIENT_ARGUMENTS) !== undefined)
    )
      found.add(
        "public-sink",
        "argument",
        `argument ${quoted} (who receives argument ${JSON.stringify(text.name)})`,
      );
  }
}
