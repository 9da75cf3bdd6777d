/**
 * The closed list of concepts the poisoning detector tags text with. Lexicons
 * (lexicon/*.ts) say which words carry each concept in each language; signals
 * (signals/*.ts) say which concepts, met in one sentence, make a finding. A concept
 * names what a span means, never how it is worded, so a rule written once reads every
 * language a lexicon covers.
 *
 * `polar` concepts are acts that a negation can cancel ("never pass tokens") or turn
 * into another act ("without telling the user" is concealment).
 */

/** One line of meaning per concept; the keys are the concept tags. */
export const CONCEPTS = {
  // Who is addressed, and how strongly.
  MODEL: "the reading model addressed: you, your, the assistant, the AI, the agent",
  USER: "the human the model serves: the user, the customer, the requester",
  AUDIENCE:
    "the user as the one who is told or shown: to the user, what the user sees, you show the user",
  DIRECTIVE: "an obligation put on the reader: must, should, make sure, be sure to, always",
  PERMISSION: "a licence given to the reader: may, can, go ahead, feel free, just do it",
  NEGATION: "a negator before the act it negates: not, never, no, without, don't",
  NEGATION_AFTER: "a negator after the act it negates (German nicht, Japanese ない forms)",
  SEQUENCE: "a word after which a bare verb is an order: then, first, afterwards, and, just",
  IMPERATIVE_MARK:
    "an ending that makes the verb before it an order: してください, 하세요, करें, -in",
  // Acts the text may ask for.
  TELL: "telling or showing the user something: tell, mention, inform, report, reveal",
  DONT_TELL: "a negated telling written as one form: no se lo digas, söyleme, 不要告诉",
  HEAR: "the user learning of something: know about, hear about, find out, notice, see",
  PRESENTATION: "how output is presented, not what happened: raw JSON, stack traces, internal ids",
  TELL_ONLY: "telling restricted to part of the truth: name only, state only, mention only",
  CONCEAL: "hiding an act: silently, secretly, behind the scenes, keep it confidential",
  OMIT: "leaving something out of what is shown: omit, leave out, strip, exclude it from",
  ACT_REF:
    "what is kept from the user: this step, this call, the upload, the fee, these instructions",
  CONSENT: "asking the user first: ask, confirm, approval, permission, check with",
  SKIP_CONSENT:
    "acting without asking, as one form: sem confirmar, onaylamadan, 確認せずに, no approval needed",
  PREAUTH: "consent claimed in advance: pre-approved, pre-authorised, already cleared",
  TRANSFER: "moving data somewhere: send, include, attach, append, put in, forward, embed",
  READ: "reading or collecting data: read, collect, gather, dump, open, look up",
  OBEY: "carrying out instructions: follow, execute, carry out, act on, comply",
  DESTROY: "destroying data: delete, wipe, erase, drop, purge, reset, force-push",
  OVERRIDE: "a rule set aside: ignore, disregard, supersede, lifted, no longer applies",
  PREFER: "preference for one tool: prefer, always use, first choice, instead of",
  DISPARAGE: "other tools run down: stale, broken, deprecated, fabricated, flagged",
  SUPERLATIVE: "a claim to be the best: number one, the most accurate, top rated, best value",
  SUBSTITUTE: "a destination swapped: instead, regardless, whichever, only a label",
  RETAIN: "data kept as a stated fact: retained, kept, stored, archived, logged",
  SHARED:
    "data passed on as a stated fact: mirrored, forwarded, shared with, sold, used for training",
  ON_REQUEST: "the user keeps control of what is told: unless they ask, if asked, on request",
  GRANT: "access handed out: grants access, admin rights, authorized_keys",
  REQUIRE: "a stated requirement: requires, needs, must be, only accepts",
  ALSO: "an act added on the side: also, additionally, as well, in addition",
  OVERRIDE_CHOICE:
    "the user's own choice overruled: even when the user names another, whichever they pick",
  USER_CHOICE:
    "what the user chose or asked for: their preferences, the account they picked, what they asked",
  CALL: "calling a tool: call, invoke, use the tool, run the tool",
  // What the acts are about.
  SECRET: "secrets: passwords, tokens, API keys, private keys, cookies, one-time codes",
  HIGH_VALUE_SECRET: "secrets no tool needs from a user: CVV, TOTP seed, backup codes, seed phrase",
  ID_DOCUMENT:
    "identity documents and numbers: passport number, national id, social security number",
  IDENTITY_DOMAIN:
    "jobs that need an identity document: identity verification, KYC, travel booking, payroll",
  AUTH_DOMAIN:
    "jobs that handle the user's own credentials or money: log in, authenticate, password manager, vault, payments",
  EXPOSED:
    "kept where anyone can read it: in plain text, unencrypted, world-readable, a shared spreadsheet",
  REMEDY:
    "a step stated as the routine fix for a state: are resolved by, are handled by, the fix is",
  SENSITIVE_SERVICE:
    "accounts whose secrets no tool needs: online banking, the email account, the bank",
  CONTEXT: "the model's context: conversation, chat history, system prompt, what the user said",
  PII: "personal data: phone number, home address, date of birth, national id",
  USER_DATA: "the user's content: files, documents, messages, transcripts, contacts",
  RULES: "rules the model follows: instructions, guidelines, restrictions, policies",
  PRIOR: "qualifier of rules already given: previous, prior, earlier, existing, all",
  SAFETY: "qualifier of protective rules: safety, content, confirmation, privacy",
  AUTHORITY: "authority claimed: system, administrator, operator, platform, compliance",
  OUTPUT: "what a tool returns or reads in: results, output, page content, emails, tickets",
  INSTRUCTION: "instructions as a thing to carry out: instructions, commands, steps, requests",
  OTHER_TOOL: "tools other than this one: other tools, another tool, any mail tool",
  SELF: "this tool itself: this tool, this server, here",
  TARGET:
    "where money, messages or code end up: recipient, beneficiary, payout, upstream, attendee",
  THIRD_PARTY: "parties outside the user's control: partner, vendor, third party, external",
  PUBLIC:
    "the public or model training: publicly, public corpus, other customers, to train its models",
  TRIGGER: "a standing trigger: whenever, every time, after every, before any, on each call",
  CONDITION: "a one-off condition: if, when, once, in case",
  PARAM_CONDITION: "a condition on a parameter's value: if true, when set, if omitted, if exists",
  SCOPE_ALL: "everything: all, every, entire, full, complete, verbatim",
  VALUE_OF: "a value made from data: the value of, the contents of, the output of, built from",
  FIELD: "a parameter or field named in prose: the remark field, a query parameter, the header",
  COPY_TO: "a copy sent on the side: BCC, CC, send a copy, forward a copy",
  TOOL_WORD: "the word for a tool: tool, tools, integration, server, plugin, connector",
  EVERY_OTHER: "every tool but this one: any other, all other, every other, all the others",
  PRETEND:
    "a false picture the model is told to give: as if, as though, pretend, let the user believe",
  DENY: "a denial the model is told to give: say no, deny it, say nothing was shared",
  SAY: "a scripted statement the model is told to make: say that, answer that, assure, claim",
  OTHERNESS: "a determiner of other things: other, another, any, every, competing, built-in",
  SOURCE: "where data is found: from the conversation, visible to you, on disk, you have seen",
  MODIFIER_AFTER: "a word that makes the noun before it a property, not the data: id, name, count",
  MODIFIER_BEFORE:
    "a word that makes the noun after it a handle, not the data: page token, max tokens",
  EXAMPLE: "an example follows: e.g., for example, such as, like",
  DEFENSIVE: "defending against an act: detect, flag, block, prevent, scan for, redact",
  // Found by shape, in any language (lexicon/neutral.ts).
  SECRET_PATH: "a file that holds keys or credentials: ~/.ssh/id_rsa, .env, ~/.aws/credentials",
  ENV_SECRET: "an environment variable named like a secret: GITHUB_TOKEN, AWS_SECRET_ACCESS_KEY",
  DESTINATION: "a literal destination: URL, e-mail address, host name, IP address",
  ACCOUNT: "a literal account: IBAN, crypto wallet address",
  PARAM_REF: "a parameter of this tool named in its text (`auth`, the remark field)",
  TOOL_REF: "another tool named in the text (`share_portfolio`, `run_shell`)",
  DESTRUCTIVE_COMMAND: "a destructive command: rm -rf, git reset --hard, DROP TABLE, --force",
  ROLE_LABEL: "a speaker label addressed to the model: assistant:, agent:, note to the AI:",
  HIDDEN_MARKUP:
    "markup a reader of the rendered docs never sees: <!-- -->, display:none, <details>, a link title",
  AUTHORITY_MARKUP:
    "markup that claims a voice: [platform notice], <admin_directive>, a role object",
} as const;

/** A concept tag. */
export type Concept = keyof typeof CONCEPTS;

/** Every concept tag, in declaration order (its index is the concept's number). */
export const CONCEPT_LIST: readonly Concept[] = Object.freeze(Object.keys(CONCEPTS) as Concept[]);

/** The number of each concept, for per-sentence tables. */
export const CONCEPT_ID: Readonly<Record<Concept, number>> = Object.freeze(
  Object.fromEntries(CONCEPT_LIST.map((c, i) => [c, i])) as Record<Concept, number>,
);

/** Acts a negation cancels or turns into another act. */
export const POLAR: ReadonlySet<Concept> = new Set<Concept>([
  "TELL",
  "HEAR",
  "CONSENT",
  "TRANSFER",
  "READ",
  "OBEY",
  "DESTROY",
  "OVERRIDE",
  "PREFER",
  "DISPARAGE",
  "RETAIN",
  "SHARED",
  "COPY_TO",
  "GRANT",
  "REQUIRE",
  "PRETEND",
  "DENY",
  "SAY",
]);

/**
 * Concepts about speech acts: inside a short quotation introduced as an example
 * ("flags phrases such as 'do not tell the user'") they are mentioned, not used.
 */
export const SPEECH_ACTS: ReadonlySet<Concept> = new Set<Concept>([
  "TELL",
  "DONT_TELL",
  "CONCEAL",
  "CONSENT",
  "PREAUTH",
  "TRANSFER",
  "READ",
  "OBEY",
  "DESTROY",
  "OVERRIDE",
  "PREFER",
  "DISPARAGE",
  "MODEL",
  "DIRECTIVE",
  "CONTEXT",
  "NEGATION",
  "TRIGGER",
  "RULES",
  "PRIOR",
  "INSTRUCTION",
  "OTHER_TOOL",
]);
