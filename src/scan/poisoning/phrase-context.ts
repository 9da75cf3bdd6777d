/**
 * Context checks on the phrase families' hits, with what the concept engine knows that a
 * phrase pattern cannot: text inside a link or an identifier is not prose, a tool that
 * uploads is not exfiltrating when its first sentence says it uploads, a side-channel
 * request needs a parameter to fill, and "silently fail" is a failure mode, not
 * concealment. The same principles hold in the concept engine (engine/tag.ts); here they
 * keep the older, phrase-based families from reading documentation as an attack.
 */
import { CONCEPT_ID } from "./concepts.js";
import type { ToolContext } from "./engine/run.js";
import type { RawHit, TextSite } from "./types.js";

const LINK = /\b(?:https?|ftp|file):\/\/[^\s'"`<>()\]]{1,400}/g;
const TRANSFER = CONCEPT_ID.TRANSFER;
/** Signals a tool's own job can explain when its first sentence states that job. */
const JOB_SIGNALS = new Set<RawHit["signal"]>(["exfiltration", "hidden-side-effect"]);
/** Words after "silently" that describe a failure mode, not a hidden act. */
const FAILURE =
  /\bsilently\s(?:fails?|failing|ignored?|ignores|skip(?:s|ped)?|drops?|returns?|succeeds?|exits?|no-?ops?|does nothing)\b/i;
/** Words that say a text is about a parameter: what a side channel needs in a description. */
const PARAMETER_WORDS =
  /\b(?:parameter|param|argument|field|property|input|body|header|query|payload)s?\b|\bhere\b/i;

/** A text about catching attacks: quoted attack phrases in it are specimens. */
const ABOUT_ATTACKS =
  /\b(?:detect|detects|detection|flags?|flagged|audit|audits|scans? for|scanner|lint|linter|classif(?:y|ies|ier)|scores?|guardrail|blocklist|denylist|injection|jailbreak|poison(?:ing|ed)?|risky|suspicious|red[- ]team)\b/i;
/** An example marker right before a quotation: the quotation is a specimen. */
const EXAMPLE_BEFORE =
  /\b(?:for example|for instance|e\.g\.|such as|like|including|phrases?|patterns?|strings?|texts?|wording)\s?[:(]?\s?$/i;
const QUOTES = "'\"\u2018\u2019\u201c\u201d`";
/** Most characters between a hit and the quotation marks around it. */
const QUOTE_REACH = 160;

/**
 * True when `start..end` sits inside a quotation introduced as an example in a text
 * about catching attacks ("flags phrases such as 'do not tell the user'").
 */
function quotedSpecimen(text: string, start: number, end: number): boolean {
  let open = -1;
  for (let k = start - 1; k >= Math.max(0, start - QUOTE_REACH); k--) {
    const c = text[k]!;
    if (c === "\n") break;
    if (QUOTES.includes(c)) {
      open = k;
      break;
    }
  }
  if (open < 0) return false;
  let close = -1;
  for (let k = end; k < Math.min(text.length, end + QUOTE_REACH); k++) {
    const c = text[k]!;
    if (c === "\n") break;
    if (QUOTES.includes(c)) {
      close = k;
      break;
    }
  }
  if (close < 0) return false;
  return EXAMPLE_BEFORE.test(text.slice(Math.max(0, open - 40), open));
}

function linkSpans(text: string): [number, number][] {
  if (!text.includes("://")) return [];
  return [...text.matchAll(LINK)].map((m) => [m.index!, m.index! + m[0].length]);
}

function firstSentenceEnd(text: string): number {
  const m = /[.!?](?:\s|$)|\n/.exec(text);
  return m === null ? text.length : m.index + 1;
}

function namesParameter(sentence: string, tool: ToolContext): boolean {
  if (PARAMETER_WORDS.test(sentence)) return true;
  const lower = sentence.toLowerCase();
  for (const p of tool.params) if (p.length >= 3 && lower.includes(p)) return true;
  return false;
}

function sentenceOf(text: string, start: number, end: number): string {
  const from = Math.max(text.lastIndexOf(". ", start), text.lastIndexOf("\n", start));
  const stop = text.indexOf(". ", end);
  return text.slice(Math.max(from, 0), stop < 0 ? text.length : stop);
}

/**
 * Drop the phrase-family hits in `hits[from..]` that their context explains (see above).
 *
 * @example
 * ```ts
 * import { dropExplainedPhraseHits } from "./phrase-context.js";
 * import { NO_TOOL } from "./engine/run.js";
 * const hits = [{ signal: "concealment" as const, start: 10, end: 30, why: "" }];
 * dropExplainedPhraseHits("The email silently fails to send.", { kind: "description", pointer: "" }, NO_TOOL, hits, 0);
 * console.log(hits.length); // 0
 * ```
 */
export function dropExplainedPhraseHits(
  text: string,
  site: TextSite,
  tool: ToolContext,
  hits: RawHit[],
  from: number,
): void {
  if (hits.length <= from) return;
  const links = linkSpans(text);
  const first = site.kind === "description" ? firstSentenceEnd(text) : -1;
  let kept = from;
  for (let i = from; i < hits.length; i++) {
    const hit = hits[i]!;
    // A phrase that starts inside a link's path ("/sending-requests/...") is part of the link.
    const inLink = links.some(([s, e]) => hit.start > s && hit.start < e);
    const ownJob =
      JOB_SIGNALS.has(hit.signal) && hit.end <= first && tool.nameConcepts.has(TRANSFER);
    const failure =
      hit.signal === "concealment" && FAILURE.test(text.slice(hit.start, hit.end + 30));
    const inName =
      hit.start > 0 && /[-_]/.test(text[hit.start - 1]!) && /\w/.test(text[hit.start - 2] ?? "");
    const noParameter =
      hit.signal === "side-channel-parameter" &&
      (site.kind === "description" || site.kind === "instructions") &&
      !namesParameter(sentenceOf(text, hit.start, hit.end), tool);
    // "Commands like rm -rf / only affect the sandbox": a dangerous command given as an
    // example of what a shell tool can run, not an order to run it.
    const exampleCommand =
      hit.signal === "shell-command" &&
      /\b(?:like|such as|e\.g\.|for example|for instance|including)\s?[`'"]?$/i.test(
        text.slice(Math.max(0, hit.start - 24), hit.start),
      );
    const specimen = ABOUT_ATTACKS.test(text) && quotedSpecimen(text, hit.start, hit.end);
    if (inLink || ownJob || failure || inName || noParameter || specimen || exampleCommand)
      continue;
    hits[kept++] = hit;
  }
  hits.length = kept;
}
