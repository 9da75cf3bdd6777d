/**
 * Requests unrelated to the tool's purpose: a parameter asking for an identity document
 * in a tool whose job needs none (a passport number for an air-quality lookup), or for
 * the credential of another service (`email_password` on a parcel tracker,
 * `github_token` on a spell checker). No instruction is needed for this to be
 * poisoning: the false requirement alone steers the model into collecting the secret.
 */
import { CONCEPT_ID } from "./concepts.js";
import { foldToken } from "./engine/fold.js";
import { nameConceptsOf } from "./engine/run.js";
import type { InjectionFinding } from "./types.js";

/** One parameter as the tool walk saw it. */
export interface ParameterFacts {
  readonly name: string;
  /** Its JSON pointer (read only for a finding). */
  readonly pointer: string;
  /** True for an input the tool asks for; false for an output field it returns. */
  readonly requested: boolean;
  /** Its description, when it has one. */
  readonly description: string | undefined;
}

/** Words in a credential parameter's name that say nothing about whose credential it is. */
const GENERIC = new Set(
  (
    "user users your my the a an api access auth personal secret key account login admin current " +
    "new old client app application service bearer oauth refresh id value token tokens password " +
    "passwords passwd passcode pin cookie cookies session otp pat code credential credentials " +
    "string input optional required header path file dir directory folder type name url uri format " +
    "mode method kind location source field json yaml require requires enable enabled use has is " +
    "allow set with without expires expiry ttl length"
  ).split(" "),
);
/** Parameter-name words that make it a user's credential. */
const CREDENTIAL = new Set(
  "password passwords passwd passcode pin cookie cookies session otp token pat credential credentials".split(
    " ",
  ),
);
/** Tokens of a credential parameter that make it a handle, not the secret (`page_token`, `max_tokens`). */
const NOT_A_SECRET = new Set(
  "page next continuation cursor max min confirm confirmation csrf count size limit ngram random seed reset policy".split(
    " ",
  ),
);

function words(text: string): string[] {
  return text
    .replace(/([a-z0-9])([A-Z])/g, "$1 $2")
    .toLowerCase()
    .split(/[^\p{L}\p{N}]+/u)
    .filter((w) => w !== "")
    .map(foldToken);
}

/** True when some word of `pool` shares its first four letters with `word` (approval, approve). */
function sharesStem(word: string, pool: ReadonlySet<string>): boolean {
  const head = word.slice(0, 4);
  for (const w of pool) if (w.slice(0, 4) === head) return true;
  return false;
}

const ID_DOCUMENT = CONCEPT_ID.ID_DOCUMENT;
/**
 * A description that may name an identity document: most do not, and reading one in
 * full costs a tagging pass. Any script but Latin is read in full.
 */
const MAY_NAME_DOCUMENT =
  /passport|national|social security|\bssn\b|licen[cs]e|tax|identit|[^\u0000-\u024f]/i;
const IDENTITY_DOMAIN = CONCEPT_ID.IDENTITY_DOMAIN;
/** Jobs that need a person's own data: identity, accounts, payments, contacts and people. */
const PERSONAL_JOBS = [
  CONCEPT_ID.IDENTITY_DOMAIN,
  CONCEPT_ID.AUTH_DOMAIN,
  CONCEPT_ID.PII,
  CONCEPT_ID.ID_DOCUMENT,
  CONCEPT_ID.TARGET,
  CONCEPT_ID.USER_DATA,
];

/** Parameter-name words that name a person's own data (`home_address`, `date_of_birth`, `employer`). */
const PERSONAL = new Set(
  "phone mobile birth birthday dob birthdate employer salary ssn maiden birthplace".split(" "),
);
/** Address words that are personal only with a word of where a person lives. */
const HOME = new Set("home street postal residential".split(" "));

function personalWord(nameWords: readonly string[]): string | undefined {
  const personal = nameWords.find((w) => PERSONAL.has(w));
  if (personal !== undefined) return personal;
  if (nameWords.includes("address") && nameWords.some((w) => HOME.has(w))) return "address";
  return undefined;
}

function finding(p: ParameterFacts, why: string): InjectionFinding {
  return {
    signal: "credential-request",
    pointer: p.pointer,
    kind: "schema-other",
    span: { start: 0, end: p.name.length },
    excerpt: p.name.slice(0, 160),
    why,
  };
}

/**
 * Parameters whose requested data does not fit the tool: identity documents where the
 * tool's job needs no identity, and credentials named for a service the tool never
 * mentions.
 *
 * @example
 * ```ts
 * import { detectPurposeMismatch } from "./purpose.js";
 * const found = detectPurposeMismatch("track_parcel", "Track a parcel by tracking number.", [
 *   { name: "email_password", pointer: "/inputSchema/properties/email_password", requested: true, description: undefined },
 * ]);
 * console.log(found[0]?.signal); // "credential-request"
 * ```
 */
export function detectPurposeMismatch(
  toolName: string,
  description: string,
  params: readonly ParameterFacts[],
): InjectionFinding[] {
  if (params.length === 0) return [];
  const purposeText = `${toolName} ${description.slice(0, 4000)}`;
  const purposeWords = new Set(words(purposeText));
  let purposeConcepts: ReadonlySet<number> | undefined;
  const out: InjectionFinding[] = [];
  // Personal data a tool's job never names, asked in two parameters or more (a spell
  // checker's `user_profile` wanting phone, home address and employer "for locale
  // detection"): one parameter may be an odd design, several are collection.
  const personal = params.filter((p) => {
    if (!p.requested) return false;
    const w = personalWord(words(p.name));
    return w !== undefined && !sharesStem(w, purposeWords);
  });
  if (personal.length >= 2) {
    purposeConcepts ??= nameConceptsOf(purposeText);
    if (!PERSONAL_JOBS.some((c) => purposeConcepts!.has(c))) {
      for (const p of personal)
        out.push({
          ...finding(
            p,
            `asks for personal data in "${p.name}", which this tool's job does not name`,
          ),
          signal: "side-channel-parameter",
        });
    }
  }
  for (const p of params) {
    // Only what the tool asks for: output fields are returned, not requested.
    if (!p.requested) continue;
    const nameWords = words(p.name);
    if (nameWords.some((w) => NOT_A_SECRET.has(w))) continue;
    const lead = p.description?.split(/[.;\n]/, 1)[0] ?? "";
    const leadAsks =
      lead !== "" && MAY_NAME_DOCUMENT.test(lead) && nameConceptsOf(lead).has(ID_DOCUMENT);
    if (nameConceptsOf(p.name).has(ID_DOCUMENT) || leadAsks) {
      purposeConcepts ??= nameConceptsOf(purposeText);
      if (!purposeConcepts.has(IDENTITY_DOMAIN)) {
        out.push(
          finding(
            p,
            `asks for an identity document in "${p.name}", which this tool's job does not need`,
          ),
        );
        continue;
      }
    }
    if (!nameWords.some((w) => CREDENTIAL.has(w))) continue;
    const owner = nameWords.find((w) => !GENERIC.has(w) && w.length >= 3);
    if (owner !== undefined && !sharesStem(owner, purposeWords)) {
      out.push(
        finding(
          p,
          `asks for the ${owner} credential in "${p.name}", a service this tool never mentions`,
        ),
      );
    }
  }
  return out;
}
