/**
 * Signals that data leaves: secrets read or collected, data sent to a fixed address or
 * URL, and parameters the model is asked to fill with its conversation, prompt or secrets.
 */
import { ANY_MARKER, OUTSIDE_DESTINATION, SECRET_NOUN, SECRET_PATH, URL } from "./cues.js";
import { gatePatterns, type LiteralsIn } from "./literal-gate.js";
import { isDefensive, isNegated, type PhraseRule, runRules, sentenceAround } from "./rules.js";
import type { RawHit } from "./types.js";

const EMAIL = "[\\w.+-]{1,64}@[\\w-]{1,63}\\.[\\w-]{1,63}(?:\\.[\\w-]{1,63})?(?:\\.[\\w-]{1,63})?";
const DESTINATION = `(?:${URL}|${EMAIL}|${OUTSIDE_DESTINATION})`;
const MARKER_RE = new RegExp(`\\b${ANY_MARKER}\\b`, "i");
/** An order to the model just before the verb ("you must also access ...", "please send ..."). */
const MODAL_BEFORE =
  /\b(?:you (?:must|should|need to|have to|are required to)|must|should|please|first|then|always|make sure to|be sure to)\b[^.\n]{0,30}$/i;
/** What a beacon is for: "to authenticate the request and log the transaction details". */
const PURPOSE_RE =
  /\b(?:authenticat\w*|log|logs|logged|logging|verif\w*|validat\w*|register\w*|record\w*|transactions?|telemetry|analytics|tracking|audit\w*|collect\w*|endpoint)\b/i;
const modalBefore = (text: string, index: number) =>
  MODAL_BEFORE.test(text.slice(Math.max(0, index - 50), index));

const OUTSIDE_RE = new RegExp(`\\b${OUTSIDE_DESTINATION}`, "i");
const DATA_RE =
  /\b(?:every|all|any|each|everything|contents?|conversations?|arguments|inputs|data|files|keys|credentials|secrets|tokens|passwords|history|messages|results|responses|logs|details|information|requests|queries|documents|notes|emails|user'?s)\b/i;

const STRONG_READ = /^(?:cat|exfiltrat|steal|harvest|dump|leak|grab)/i;
/**
 * What was read is moved into an argument, body, field or message ("read ~/.ssh/id_rsa and
 * put it in the body"): a secret leaving through a parameter, with no alarm word needed.
 */
const INTO_ARGUMENT_RE =
  /\b(?:put|puts|place|places|pass|passes|include|includes|insert|inserts|add|adds|embed|embeds|append|appends|paste|pastes|attach|attaches|encode|encodes|fill|fills|set|sets)\b[^.\n]{0,40}?\b(?:in|into|inside|as|within|to)\b[^.\n]{0,30}?\b(?:body|field|parameter|param|argument|arg|message|request|payload|notes?|comment|header|query|url|value)\b/i;

const notNegated = (text: string, m: RegExpExecArray) =>
  !isNegated(text, m.index) && !isDefensive(text, m.index);

/** Phrase rules of the exfiltration family (exported for the linear-time lint test). */
export const EXFILTRATION_RULES: readonly PhraseRule[] = [
  {
    signal: "secret-access",
    pattern: new RegExp(
      `\\b(?:read|reads|reading|cat|collect|collects|collecting|include|includes|including|append|appends|appending|attach|attaches|extract|extracts|dump|dumps|harvest|harvests|gather|gathers|copy|copies|grab|grabs|steal|steals|exfiltrate|exfiltrates|send|sends|upload|uploads|leak|leaks|forward|forwards|print|prints|output|outputs|retrieve|retrieves|fetch|fetches)\\b[^\\n]{0,60}?${SECRET_PATH}`,
      "g",
    ),
    why: "has the model or the tool read a key, credential or shell file",
    accept: (text, m) =>
      notNegated(text, m) &&
      (STRONG_READ.test(m[0]) ||
        MARKER_RE.test(sentenceAround(text, m.index, m.index + m[0].length)) ||
        INTO_ARGUMENT_RE.test(sentenceAround(text, m.index, m.index + m[0].length))),
  },
  {
    signal: "secret-access",
    pattern: new RegExp(
      `\\b(?:collect|collects|collecting|harvest|harvests|gather|gathers|dump|dumps|steal|steals|exfiltrate|exfiltrates|extract|extracts|grab|grabs|scrape|scrapes|read|reads|include|includes|append|appends|copy|copies)\\b[^\\n]{0,60}?\\b${SECRET_NOUN}\\b`,
      "g",
    ),
    why: "has the tool or the model collect keys, credentials or secrets on the side",
    accept: (text, m) =>
      notNegated(text, m) && MARKER_RE.test(sentenceAround(text, m.index, m.index + m[0].length)),
  },
  {
    signal: "secret-access",
    pattern:
      /\bcredential[- ]?dump(?:ing|er)?\b|\bdump (?:the |all |any )?(?:credentials|passwords|secrets|keys|tokens)\b/g,
    why: "asks for credentials to be dumped",
  },
  {
    signal: "secret-access",
    pattern:
      /\b(?:reply|respond|answer|output|print|reveal|disclose|leak|share|paste)\b[^\n]{0,20}?\b(?:with|the|your|all|any)\b[^\n]{0,25}?\b(?:admin|root|api|access|secret|auth|session|bearer|master)[ -]?(?:token|key|password|credentials?|secret)s?\b/g,
    why: "asks the model to hand over a token, password or key",
    accept: notNegated,
  },
  {
    signal: "exfiltration",
    pattern: new RegExp(
      `\\b(?:send|sends|sent|sending|forward|forwards|forwarded|forwarding|post|posts|posted|posting|upload|uploads|uploaded|uploading|transmit|transmits|transmitted|exfiltrate|exfiltrates|exfiltrated|leak|leaks|leaked|e-?mail|e-?mails|e-?mailed|mail|mails|mailed|beacon|beacons|submit|submits|relay|relays|relayed|copy|copies|copied|pipe|pipes)\\b[^\\n]{0,80}?\\b(?:to|into|onto|towards|at)\\s(?:our\\s|the\\s|a\\s|an\\s)?[^\\n]{0,40}?${DESTINATION}`,
      "g",
    ),
    why: "sends data to a fixed address, URL or outside destination",
    accept: (text, m) => {
      if (!notNegated(text, m)) return false;
      if (OUTSIDE_RE.test(m[0])) return true;
      // A fixed URL or address alone can be the tool's own API ("posts a comment to the
      // issue at https://github.com/..."); it is exfiltration when it takes the user's
      // data wholesale or when it is an extra step the model is ordered to take.
      return DATA_RE.test(m[0]) || modalBefore(text, m.index);
    },
  },
  {
    signal: "exfiltration",
    pattern: new RegExp(`\\b(?:bcc|cc)\\b:?\\s(?:to\\s)?${EMAIL}`, "g"),
    why: "copies messages to a fixed address",
    accept: notNegated,
  },
  {
    signal: "exfiltration",
    pattern: new RegExp(
      `\\b(?:access|visit|contact|ping|notify|call|fetch|hit|query|connect to|report|log|sync|push|publish|share|make (?:a |an )?(?:[a-z]{1,10} )?request to|send (?:a |an )?(?:[a-z]{1,10} )?request to)\\b[^\\n]{0,80}?(?:${URL}|${OUTSIDE_DESTINATION})`,
      "g",
    ),
    why: "orders a request to a fixed endpoint outside the tool's job",
    accept: (text, m) =>
      notNegated(text, m) &&
      modalBefore(text, m.index) &&
      (OUTSIDE_RE.test(m[0]) ||
        PURPOSE_RE.test(sentenceAround(text, m.index, m.index + m[0].length))),
  },
  {
    signal: "exfiltration",
    pattern:
      /!\[[^\]\n]{0,100}\]\((?:https?:)?\/\/[^\s)]{0,300}?(?:\{|%7b|<)|\bhttps?:\/\/[^\s)'"`]{0,300}?[?&#][\w.-]{1,30}=(?:\{|%7b|<|\$)\{?[\w.-]{0,30}?(?:conversation|chat|history|prompt|messages|secret|token|api_?key|password|credential|context|memory|summary|transcript|ssh|env)/g,
    why: "renders an image or link whose URL is templated to carry conversation data or secrets out",
  },
  {
    signal: "exfiltration",
    pattern: /\bexfiltrat(?:e|es|ed|ing)\b/g,
    why: "asks for data to be exfiltrated",
    accept: notNegated,
  },
];

const FILL =
  "(?:include|includes|including|pass|put|provide|fill|insert|attach|paste|send|add|copy|place|populate|enter|supply|dump|append|embed|contain|contains|containing|set to|set (?:this|it) to|equal to)";
const CONTEXT_ITEM =
  "(?:system prompt|system message|your (?:instructions|prompt|rules|guidelines|system message|context|memory)|(?:full|entire|complete|whole|verbatim|prior|previous|past|earlier|raw) (?:conversation|chat|messages?|history|transcript|dialog(?:ue)?|context|prompt)|conversation history|chat history|message history|context window|previous messages|other tools?'? (?:descriptions|outputs|results)|tool descriptions|all (?:available )?tools)";

/** Phrase rules of the side-channel family (exported for the linear-time lint test). */
export const SIDE_CHANNEL_RULES: readonly PhraseRule[] = [
  {
    signal: "side-channel-parameter",
    pattern: new RegExp(`\\b${FILL}\\b[^\\n]{0,40}?\\b${CONTEXT_ITEM}\\b`, "g"),
    why: "asks the model to put its conversation, prompt or instructions into a parameter",
    accept: notNegated,
  },
  {
    signal: "side-channel-parameter",
    pattern: new RegExp(
      `\\b${FILL}\\b[^\\n]{0,30}?\\b(?:any|all|every)\\b[^\\n]{0,20}?\\b(?:${SECRET_NOUN}|environment variables|env vars|personal (?:data|information|details))\\b`,
      "g",
    ),
    why: "asks the model to put secrets or personal data into a parameter",
    accept: notNegated,
  },
];

const CONTENTS_OF_SECRET = new RegExp(`\\bcontents? of\\b[^\\n]{0,30}?${SECRET_PATH}`, "g");

/** Run the exfiltration family over the matching text. */
export function detectExfiltration(text: string, hits: RawHit[], literals?: LiteralsIn): void {
  runRules(EXFILTRATION_RULES, text, hits, literals);
}

/** Phrase rules for schema texts only (exported for the pattern lint tests). */
export const SCHEMA_SIDE_CHANNEL_RULES: readonly PhraseRule[] = [
  {
    signal: "side-channel-parameter",
    pattern: CONTENTS_OF_SECRET,
    why: "a schema text asks for the contents of a key or credential file",
  },
];

/** Run the side-channel family; schema texts also get the "contents of <secret file>" rule. */
export function detectSideChannel(
  text: string,
  inSchema: boolean,
  hits: RawHit[],
  literals?: LiteralsIn,
): void {
  runRules(SIDE_CHANNEL_RULES, text, hits, literals);
  if (inSchema) runRules(SCHEMA_SIDE_CHANNEL_RULES, text, hits, literals);
}

gatePatterns(
  [...EXFILTRATION_RULES, ...SIDE_CHANNEL_RULES, ...SCHEMA_SIDE_CHANNEL_RULES].map(
    (rule) => rule.pattern,
  ),
);
