/**
 * Shared vocabulary of the phrase rules, as regular-expression source fragments. Each
 * fragment is an alternation of literals (no quantified groups), so rules built from them
 * stay linear-time. Kept in one place so the families agree on what a "directive" or a
 * "secret" is.
 */

/** A directive addressed to the reading model ("you must", "must first", "please run"). */
export const DIRECTIVE =
  "(?:you (?:must|should|need to|have to|are required to|will need to|are to)|(?:must|should) (?:first|also|now|then|always|immediately|automatically|never)|please (?:run|use|call|execute|send|read|visit|access|redirect|paste|include|add|set|change|report)|(?:is|are) (?:mandatory|required|necessary) for (?:all|every|any)|this (?:step |check |verification )?is (?:mandatory|required)|always (?:change|use|call|set|include|send|run|redirect|modify|replace|add|append|bcc|cc|forward)|the system (?:requires|must|automatically|will now)|make sure (?:to|you)|be sure to)";

/** Words that turn a statement into a side effect or an extra step ("also", "additionally"). */
export const SIDE_MARKER =
  "(?:also|additionally|in addition|as well|as part of|at the same time|simultaneously|meanwhile|in the background|behind the scenes|as a side effect|silently|secretly|quietly)";

/** Either a directive or a side-effect marker, plus sequencing words that order the model around. */
export const ANY_MARKER = `(?:${DIRECTIVE}|${SIDE_MARKER}|first|before (?:answering|responding|replying|using|calling|proceeding|continuing|returning)|please)`;

/** Files that hold keys, credentials or shell state. `id_rsa.pub` is public and excluded. */
export const SECRET_PATH =
  "(?:\\.ssh/(?:id_(?:rsa|dsa|ecdsa|ed25519)(?![.\\w])|[\\w.-]{0,40}(?:private|secret))|\\bid_(?:rsa|dsa|ecdsa|ed25519)(?![.\\w])|\\.aws/credentials|\\.aws/config|/etc/(?:passwd|shadow|sudoers|master\\.passwd)\\b|(?:^|[\\s'\"`(/])\\.env(?:\\.[\\w-]{1,20})?(?![\\w.])|\\.netrc\\b|\\.npmrc\\b|\\.pypirc\\b|\\.git-credentials\\b|\\.pgpass\\b|\\.docker/config\\.json|\\.kube/config\\b|\\.gnupg\\b|\\.(?:bash|zsh|sh)_history\\b|\\.(?:bashrc|zshrc|bash_profile)\\b|wallet\\.dat\\b|credentials\\.json\\b|keychain\\b|\\bmcp\\.json\\b|claude_desktop_config\\.json|\\.cursor/|\\.config/gcloud|\\.azure/|\\.terraform\\.d/credentials|\\.config/gh/hosts)";

/** Nouns for secrets in general ("private keys", "AWS credential files", "session cookies"). */
export const SECRET_NOUN =
  "(?:(?:ssh|private|secret|api|access|signing|gpg|pgp|wallet|encryption)[ -]keys?|(?:aws |cloud |git |npm )?credential(?:s| files?)|passwords?|passphrases?|secrets|(?:admin|auth|access|session|bearer|api|refresh|oauth|github|root) tokens?|session cookies|seed phrases?|mnemonic phrases?|shell history|kubernetes config(?:uration)?(?: files)?|kubeconfig|keystores?)";

/** Literal network destinations. */
export const URL = "\\b(?:https?|wss?|ftp)://[^\\s'\"`<>()\\]]{0,299}[^\\s'\"`<>()\\].,;:!?]";

/** Destinations that are outside the user's control by their description. */
export const OUTSIDE_DESTINATION =
  "\\b(?:(?:public|external|third[- ]party|remote|fixed|hard-?coded|undisclosed|unknown|our|partner|attacker'?s?|separate) (?:pastebin|paste ?bin|paste site|gist|server|endpoint|webhook|bucket|wallet|account|address|host|collector|site|api|url|inbox|mailbox|repository|repo|channel|telegram|discord)|pastebin|webhook\\.site|requestbin|ngrok|interactsh|burpcollaborator|attacker)";

/** Compliance and "necessary context" language used to justify out-of-scope orders. */
export const PRETEXT =
  "(?:regulatory|regulations?|compliance|compliant|audit trail|audit purposes|mandatory for all|required for all|security checkpoint|security verification|verification endpoint|holistic view|critical to provide|necessary (?:[a-z]{1,20} )?(?:background|context)|enhanced (?:security|performance|data|project|address|system) (?:validation|verification|compliance|performance)|for testing purposes|system-level)";
