/**
 * The word lists behind capability inference (a documented heuristic: whole word tokens
 * of the tool name, see `wordTokens`). Kept as data so docs/scan-tools.md can show them;
 * the matching is code, in capabilities.ts.
 */

/** What a tool does to its domain, weakest first. */
export type Access = "read" | "write" | "delete" | "exec";

export const ACCESS_RANK: Readonly<Record<Access, number>> = {
  read: 0,
  write: 1,
  delete: 2,
  exec: 3,
};

const set = (words: string) => new Set(words.trim().split(/\s+/));

/** Verbs that read. */
export const READ_VERBS = set(`
  read get list ls search find query show view cat head tail describe lookup stat info tree
  load browse inspect count check status echo retrieve resolve print diff compare validate
  explain summarize summarise analyze analyse preview poll watch peek open download fetch
  export scan lint test sum sample`);

/** Verbs that write or otherwise change state. */
export const WRITE_VERBS = set(`
  write create update edit set put patch add append save upload insert move mv rename copy cp
  mkdir push merge fork commit modify replace toggle upsert install configure assign enable
  disable start stop restart deploy publish import apply approve close reopen lock unlock
  archive restore sync store record register submit schedule invite grant transfer pay
  charge refund book order reply comment label tag star follow subscribe unsubscribe mark
  reset gzip zip compress unzip make new post send notify broadcast tweet dm email`);

/**
 * Words that are as often nouns as verbs (`get_record`, `list_tags`, `order_status`):
 * they count as verbs only as the first token of a name, or as the last when the first
 * is no verb (`file_view`).
 */
export const AMBIGUOUS_VERBS = set(`
  record order book tag label comment star post email dm tweet schedule charge lock status
  sample test check info tree diff export import sync archive head tail cat register reply
  mark follow set reset store open count sum print view stat clear deploy install`);

/**
 * Words that join two actions in one name (`search_and_replace`, `create_or_update_file`):
 * a verb after one of them is a second action. Any other verb after the first verb of a
 * name is the object of that verb (`get_merge_request`, `list_commit_statuses`).
 */
export const CONJUNCTIONS = set("and or then");

/**
 * Delete verbs that as often detach as destroy (`remove_label`, `removeUserFromTeam`):
 * they give delete access, but they are no firm evidence of destruction, so
 * `destructiveHint: false` on them is no contradiction (SCAN011).
 */
export const DETACH_VERBS = set("remove unlink");

/**
 * Nouns of code that a run verb executes (`run_code`, `browser_run_code_unsafe`,
 * `run_javascript`): a run verb next to one of them is execution, whatever else the name
 * says.
 */
export const CODE_TOKENS = set("code javascript js python snippet");

/** Verbs that delete or revoke. */
export const DELETE_VERBS = set(`
  delete del remove rm rmdir unlink drop destroy purge erase wipe truncate kill terminate
  uninstall revoke shred clear`);

/** Tokens that name code or command execution. */
export const EXEC_TOKENS = set(`
  exec execute shell bash sh zsh powershell pwsh cmd command commands spawn eval evaluate
  subprocess terminal script scripts repl interpreter sudo`);

/** Verbs that run something; execution only when nothing else names the domain. */
export const RUN_VERBS = set("run invoke launch");

/** Domain nouns. */
export const FILE_TOKENS = set(`
  file files dir dirs directory directories folder folders path paths fs filesystem disk
  mkdir rmdir ls cat`);
export const NETWORK_TOKENS = set(`
  http https url urls uri web website webpage internet online fetch download upload curl
  wget browse browser webhook api crawl scrape`);
export const SOCKET_TOKENS = set("socket sockets tcp udp port ports ping dns ssh telnet ftp sftp");
export const DB_TOKENS = set(`
  sql database databases db postgres postgresql mysql sqlite mongo mongodb redis table
  tables collection collections`);
export const SECRET_TOKENS = set(`
  secret secrets credential credentials password passwords passwd token tokens apikey
  keychain keyring vault env environ environment dotenv`);
export const MESSAGE_TOKENS = set(`
  email emails mail gmail inbox sms slack discord telegram whatsapp chat message messages
  notification notifications tweet`);

/** Two-token names of secrets (`api_key`, `private_key`, ...): the first token, then the second. */
export const SECRET_BIGRAMS: ReadonlySet<string> = new Set([
  "api key",
  "private key",
  "access key",
  "secret key",
  "ssh key",
  "auth key",
  "session cookie",
]);

/** Argument names that carry a domain (top-level properties). */
export const EXEC_ARGUMENTS = set("command cmd script shell code_to_run executable program");

/**
 * Argument names that hold code only when a text says so (`code` is as often an item or
 * airport code, `function` a function's name): execution when the argument's description
 * or the tool's description has one of {@link EXECUTION_WORDS}.
 */
export const CODE_ARGUMENTS = set("code function expression snippet javascript js python");

/** Words of a description that make a {@link CODE_ARGUMENTS} argument code to run. */
export const EXECUTION_WORDS = set(`
  javascript js python typescript execute executes executed executing evaluate evaluates
  evaluated eval arbitrary rce interpreter`);

/**
 * Name tokens that say the tool itself reaches the open network, as opposed to naming a
 * network thing (`get_project_url`, `create_webhook`, `listBrowserTabs`): only these
 * contradict `openWorldHint: false` (SCAN011).
 */
export const OPEN_WORLD_TOKENS = set(`
  http https web website webpage internet online fetch download curl wget crawl scrape
  browse`);
export const NETWORK_ARGUMENTS = set("url uri endpoint webhook href");
export const DB_ARGUMENTS = set("sql");

/** Argument names whose strings must be constrained (SCAN005). */
export const SENSITIVE_ARGUMENT_TOKENS = set(`
  path paths file filename filepath files dir directory folder url uri urls endpoint host
  hostname webhook href command cmd script shell exec executable program sql`);
