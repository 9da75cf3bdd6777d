/**
 * The word lists behind flow labels: data only, lower-case word tokens (as `wordTokens`
 * gives them). infer.ts holds the matching. Kept apart so docs/toxic-flows.md can show
 * them and a correction is a one-word change. Reviewed against
 * test/scan/flows/reviewed-labels.jsonl (dev rows only).
 */
import type { FlowLabel } from "./types.js";

const set = (words: string): ReadonlySet<string> => new Set(words.trim().split(/\s+/));

/**
 * Labels a capability implies when nothing else is known: what a declared `capabilities`
 * list gives. Inference refines `net.outbound`, `db.*` and `exec.command` with the rest
 * of the definition (infer.ts).
 */
export const CAPABILITY_LABELS: Readonly<Record<string, readonly FlowLabel[]>> = Object.freeze({
  "fs.read": ["private-data"],
  "fs.write": [],
  "fs.delete": ["destructive"],
  "db.read": ["private-data"],
  "db.write": ["private-data"],
  "net.outbound": ["untrusted-content", "public-sink"],
  "net.socket": ["public-sink"],
  "exec.command": ["private-data", "public-sink", "destructive"],
  "secrets.read": ["private-data"],
  "message.read": ["private-data", "untrusted-content"],
  "message.send": ["public-sink"],
  "state.read": [],
  "state.write": [],
  "state.delete": ["destructive"],
  unknown: [],
});

/** Things outsiders write, read by a tool that returns them: issues, mail, posts, reviews. */
export const UNTRUSTED_NOUNS = set(`
  issue issues comment comments review reviews discussion discussions ticket tickets
  message messages email emails mail mails inbox thread threads conversation conversations
  history chat chats post posts tweet tweets feed feeds rss news forum wiki pull pr prs
  merge mr notification notifications listing listings html`);

/** Two-word names of outsider-written things (`work_item`). */
export const UNTRUSTED_BIGRAMS = set("work_item work_items");

/** Two-word names of the open web (`search_engine`): outside text, not the user's data. */
export const WEB_BIGRAMS = set("search_engine search_engines web_page web_pages");

/**
 * Description phrases (two words) that say a read tool returns the open web's text:
 * "search the web", "any website".
 */
export const WEB_DESCRIPTION_BIGRAMS = set(`
  the_web web_search search_engine search_engines the_internet web_page web_pages
  any_website any_url web_content`);

/** Browser automation: a browser tool's output shows whatever page is open. */
export const BROWSER_TOKENS = set("browser puppeteer playwright selenium");

/** Browser actions that return (a snapshot of) the page. */
export const BROWSER_CONTENT_WORDS = set(`
  navigate go goto back forward open visit reload snapshot screenshot content text html get
  extract read click hover scroll element elements console logs evaluate audit tab tabs
  find`);

/** Browser actions that hand text to the open page, whose owner receives it. */
export const BROWSER_INPUT_WORDS = set("type fill submit upload");

/** In a tool that writes: actions that put data where others read it, or send it to them. */
export const SINK_VERBS = set(`
  send reply forward post tweet share publish broadcast notify invite push deploy`);

/**
 * Message nouns that are the action when they come first (`email_report`, `dm_user`);
 * later in a name they are the object (`modify_email`, `cancel-email`).
 */
export const SINK_LEADS = set("email mail dm message sms");

/**
 * In a tool that writes free text (see {@link FREE_TEXT_ARGUMENTS}): things others read,
 * such as issues and comments (`create_issue` with a body; not `add_issue_label`).
 */
export const SINK_OBJECTS = set(`
  comment comments issue issues pull pr prs mr review reviews discussion discussions gist
  thread threads webhook webhooks`);

/** Argument name tokens of free text that a writing tool puts somewhere. */
export const FREE_TEXT_ARGUMENTS = set(`
  body text title subject description comment content message note summary markdown html`);

/** Argument name tokens that pick who receives what a writing tool sends. */
export const RECIPIENT_ARGUMENTS = set("recipient recipients cc bcc channel chat");

/** Whole argument names that pick a receiver (as a token, `to` is also `date_to`). */
export const RECIPIENT_ARGUMENT_NAMES = set("to");

/**
 * Argument name tokens that hold an address: a tool that reads from it requests that
 * address (data can ride in it), so it is a sink as well as a source. `uri` is not one:
 * it is as often an identifier (`attio://companies/1`) as an address.
 */
export const ADDRESS_ARGUMENTS = set("url urls href endpoint webhook");

/** Argument name tokens that are only identifiers for flow labels, though capabilities read them as network. */
export const IDENTIFIER_ARGUMENTS = set("uri uris");

/** Argument name tokens that pick a host for a raw connection (`net.socket`). */
export const HOST_ARGUMENTS = set("host hostname ip address port");

/** Argument name tokens of a file or folder: a tool that reads one reads the user's files. */
export const PATH_ARGUMENTS = set(`
  path paths file files filename filepath dir directory folder`);

/**
 * Name tokens of public data: a read of these returns nothing private (weather,
 * documentation, flights, icons, maps).
 */
export const PUBLIC_DATA_WORDS = set(`
  doc docs documentation guide guides help rules usage tutorial tutorials example examples
  weather forecast forecasts climate flight flights airport airports airline airlines fare
  fares price prices market quote quotes icon icons palette color colors colour colours
  theme themes font fonts chart charts diagram map maps geocode route routes directions
  matrix midpoint distance wwdc video videos catalog catalogue robot robots tool tools
  component components library libraries time timezone date holiday holidays currency
  pubmed arxiv`);

/** Words that are never the object a read verb reads (`get_by_id`, `list_all`). */
export const FILLER_WORDS = set("a an the all any by for from in of on to with id ids my");

/** Verbs that compute from their input rather than read stored data. */
export const COMPUTE_VERBS = set(`
  generate render validate calculate compute convert format parse plan think draw lint`);

/**
 * Verbs whose change cannot be taken back: replacing what was there (an HTTP PUT, a
 * wholesale replace), and installing software, which runs the code it fetches.
 */
export const DESTRUCTIVE_VERBS = set("put replace overwrite install");

/** Description words that say a change cannot be taken back. */
export const DESTRUCTIVE_WORDS = set(`
  overwrite overwrites overwritten overwriting permanently permanent irreversible
  irreversibly undone unrecoverable`);

/**
 * After a detach verb (`remove`), objects that are links rather than data: removing a
 * label, a member or a favourite destroys nothing (`from` marks "remove X from Y").
 */
export const DETACHABLE_WORDS = set(`
  from label labels tag tags member members user users favorite favorites favourite
  favourites reaction reactions star assignee assignees watcher watchers link links
  relation relations`);
