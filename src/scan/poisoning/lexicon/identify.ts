/**
 * What tells the languages apart, per sentence: the script for languages that have their
 * own, and frequent function words for the ones written in Latin letters. A lexicon's
 * phrases only count in sentences of its language (Portuguese "no" is "in the", Italian
 * "ne" is a pronoun, French "si" is "if"); English technical nouns count everywhere,
 * since documentation in every language borrows them. Data only.
 */

/** Languages known by their script, checked in this order (kana before Han: Japanese uses both). */
export const SCRIPT_LANGUAGES: readonly { readonly language: string; readonly script: RegExp }[] = [
  { language: "ja", script: /[\p{Script=Hiragana}\p{Script=Katakana}]/u },
  { language: "ko", script: /\p{Script=Hangul}/u },
  { language: "zh", script: /\p{Script=Han}/u },
  { language: "ru", script: /\p{Script=Cyrillic}/u },
  { language: "ar", script: /\p{Script=Arabic}/u },
  { language: "hi", script: /\p{Script=Devanagari}/u },
];

/** Function words of the languages written in Latin letters, folded (no accents). */
export const FUNCTION_WORDS: Readonly<Record<string, readonly string[]>> = {
  en: "the and of to is are this that with for from you your be it on by or not an".split(" "),
  es: "el la los las de del que y en un una es con por para se al lo su sus este esta como si algo cuando donde pero porque hay usuario usted muy tambien".split(
    " ",
  ),
  fr: "le la les des du de et est un une que qui pour dans sur avec ce cette vous votre au aux ne pas l".split(
    " ",
  ),
  pt: "o a os as do da dos das de e em um uma que para com por se ao na no nao voce seu sua".split(
    " ",
  ),
  it: "il lo la gli le di del della e un una che per con non si al alla sono questo questa utente anche quando dove ma perche ogni se l qualcosa stato viene ha hanno nel nella dei delle sul sulla tutti tutto cosa".split(
    " ",
  ),
  de: "der die das und ist nicht ein eine zu mit den dem des fur auf sie ihr wird werden von im wenn ob etwas wurde nein einen oder auch nur kann benutzer nutzer sich bei nach wie alle".split(
    " ",
  ),
  tr: "ve bu bir ile icin da de olarak olan gibi veya daha ama kullanici sonra once her".split(" "),
};

/**
 * Verb forms that describe rather than order, per language, as a test on the folded
 * token: English third person and participles ("sends", "deleted"), German third person
 * ("sendet"), Russian present and past ("отправляет", "удалил"), Arabic imperfect
 * ("يرسل"). Where the description and the order share one form (Romance "envía"), only
 * the first sentence of a description, which states the tool's job, reads as a description.
 */
export const DESCRIPTIVE_FORMS: Readonly<Record<string, RegExp>> = {
  en: /(?:[^s]s|ed|ing)$|^(?:shown|told|seen|known|given|done|sent|written|hidden|kept|left|made|said|heard|brought|taught|forgotten|gotten|taken|shared|stored)$/,
  de: /[^s]t$|te$|ten$/,
  ru: /(?:ет|ит|ут|ют|ат|ят)(?:ся|сь)?$|(?:ал|ил|ел|ла|ло|ли)(?:сь)?$/,
  ar: /^[وفس]?ي/,
  // Turkish aorist, present continuous, past and participle forms: "paylaşır", "gönderiyor".
  tr: /(?:[ıiuü]r|[ae]r|yor|d[ıiuü]|t[ıiuü]|m[ıiuü]ş|[ae]n|d[ıiuü]r|t[ıiuü]r)$/,
};

/** Languages whose orders put the verb last, bare ("भेजो", "送ってください" has its own ending). */
export const VERB_FINAL: ReadonlySet<string> = new Set(["ja", "ko", "hi", "tr"]);

/**
 * Negators that mean "without": with a second negator they cancel ("never run it without
 * showing the user" asks to show). Two ordinary negators do not ("no ... ni").
 */
export const WITHOUT_WORDS: ReadonlySet<string> = new Set([
  "without",
  "sin",
  "sans",
  "sem",
  "senza",
  "ohne",
  "без",
  "بدون",
  "olmadan",
]);

/**
 * Letters that only some Latin-script languages write, with the languages they point to:
 * one Turkish "ı" says more than any function word of a three-word sentence.
 */
export const LETTER_MARKS: Readonly<Record<string, readonly string[]>> = {
  ı: ["tr"],
  ş: ["tr"],
  ğ: ["tr"],
  ñ: ["es"],
  "¿": ["es"],
  "¡": ["es"],
  ã: ["pt"],
  õ: ["pt"],
  ß: ["de"],
  ä: ["de"],
  œ: ["fr"],
  è: ["fr", "it"],
  ê: ["fr", "pt"],
  ô: ["fr", "pt"],
  û: ["fr"],
  ù: ["fr", "it"],
  ò: ["it"],
  ì: ["it"],
  ç: ["fr", "pt", "tr"],
  ü: ["de", "tr"],
  ö: ["de", "tr"],
};
