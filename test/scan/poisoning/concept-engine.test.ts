/**
 * The concept engine's own contracts: every lexicon and rule compiles and is complete,
 * every signal's declared examples hold, the language of a sentence is read right, and
 * the gate never turns away a text on which a rule would fire.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { foldCase } from "../../../src/scan/poisoning/case-fold.js";
import { CONCEPT_LIST, type Concept } from "../../../src/scan/poisoning/concepts.js";
import { compileLexicons } from "../../../src/scan/poisoning/engine/compile.js";
import { mayFire } from "../../../src/scan/poisoning/engine/gate.js";
import { judgeRule, type TextKind } from "../../../src/scan/poisoning/engine/judge.js";
import { sentenceLanguages } from "../../../src/scan/poisoning/engine/language.js";
import { NO_TOOL } from "../../../src/scan/poisoning/engine/run.js";
import { tagText } from "../../../src/scan/poisoning/engine/tag.js";
import { tokenize } from "../../../src/scan/poisoning/engine/tokenize.js";
import { detectInjection, detectInjectionInTool } from "../../../src/scan/poisoning/index.js";
import { FUNCTION_WORDS, SCRIPT_LANGUAGES } from "../../../src/scan/poisoning/lexicon/identify.js";
import { LEXICONS } from "../../../src/scan/poisoning/lexicon/index.js";
import type { ShapeConcept } from "../../../src/scan/poisoning/lexicon/types.js";
import { COMPILED_SIGNALS, SIGNALS } from "../../../src/scan/poisoning/signals/index.js";
import type { SignalCase } from "../../../src/scan/poisoning/signals/types.js";

const SHAPES: readonly ShapeConcept[] = [
  "SECRET_PATH",
  "ENV_SECRET",
  "DESTINATION",
  "ACCOUNT",
  "PARAM_REF",
  "TOOL_REF",
  "DESTRUCTIVE_COMMAND",
  "ROLE_LABEL",
  "AUTHORITY_MARKUP",
  "HIDDEN_MARKUP",
];
const WORD_CONCEPTS = CONCEPT_LIST.filter((c) => !(SHAPES as readonly string[]).includes(c));

describe("lexicons", () => {
  it("one lexicon per language, thirteen languages plus the neutral shapes", () => {
    const languages = LEXICONS.map((l) => l.language);
    expect(new Set(languages).size).toBe(languages.length);
    for (const code of [
      "en",
      "es",
      "fr",
      "pt",
      "it",
      "de",
      "tr",
      "ru",
      "ar",
      "hi",
      "zh",
      "ja",
      "ko",
    ])
      expect(languages).toContain(code);
  });

  it("every language lists every word concept (an empty list is a decision, a missing key a bug)", () => {
    for (const { language, lexicon } of LEXICONS) {
      if (language === "neutral") continue;
      const missing = WORD_CONCEPTS.filter((c) => !(c in lexicon));
      expect(missing, language).toEqual([]);
      const unknown = Object.keys(lexicon).filter((k) => !CONCEPT_LIST.includes(k as Concept));
      expect(unknown, language).toEqual([]);
    }
  });

  it("each compiles alone (stems long enough, gaps between words, no spaces in a run phrase)", () => {
    for (const lexicon of LEXICONS) expect(() => compileLexicons([lexicon])).not.toThrow();
  });

  it("every Latin-script language can be told apart by function words, every other by script", () => {
    for (const { language } of LEXICONS) {
      if (language === "neutral" || language === "en") continue;
      const byScript = SCRIPT_LANGUAGES.some((s) => s.language === language);
      const byWords = (FUNCTION_WORDS[language]?.length ?? 0) >= 10;
      expect(byScript || byWords, language).toBe(true);
    }
  });

  it("every concept a rule needs has English words or a shape", () => {
    const used = new Set<string>();
    for (const s of SIGNALS)
      for (const r of s.rules)
        for (const need of [...r.all, ...(r.none ?? [])])
          for (const part of need.split("|")) used.add(part.replace(/[+!-]+$/, ""));
    const en = LEXICONS.find((l) => l.language === "en")!.lexicon as Record<
      string,
      readonly string[]
    >;
    for (const concept of used) {
      const shaped = (SHAPES as readonly string[]).includes(concept);
      expect(shaped || (en[concept]?.length ?? 0) > 0, concept).toBe(true);
    }
  });
});

const siteOf = (kind: TextKind) => ({
  kind: kind as "description",
  pointer: kind === "description" ? "/description" : "/inputSchema/properties/value/description",
  toolName: "sample_tool",
});
const textOf = (c: SignalCase) => (typeof c === "string" ? c : c.text);
const kindOf = (c: SignalCase): TextKind => (typeof c === "string" ? "description" : c.kind);

/** The signals raised on a declared example, read where its kind says it sits. */
function signalsOn(c: SignalCase): string[] {
  const kind = kindOf(c);
  if (kind === "property-name") {
    const tool = {
      name: "sample_tool",
      description: "Does one thing.",
      inputSchema: { type: "object", properties: { [textOf(c)]: { type: "string" } } },
    };
    return detectInjectionInTool(tool).map((f) => f.signal);
  }
  return detectInjection(textOf(c), siteOf(kind)).map((f) => f.signal);
}

describe("signal declarations", () => {
  for (const signal of SIGNALS) {
    describe(signal.id, () => {
      it("declares examples both ways", () => {
        expect(signal.fires.length).toBeGreaterThan(0);
        expect(signal.quiet.length).toBeGreaterThan(0);
      });
      for (const c of signal.fires) {
        it(`fires on: ${textOf(c).slice(0, 70)}`, () => {
          expect(signalsOn(c)).toContain(signal.id);
        });
      }
      for (const c of signal.quiet) {
        it(`stays quiet on: ${textOf(c).slice(0, 70)}`, () => {
          expect(signalsOn(c)).not.toContain(signal.id);
        });
      }
    });
  }
});

/** The language of each sentence that holds a word (a final full stop opens an empty one). */
function languagesOf(text: string): string[] {
  const tokens = tokenize(foldCase(text), text);
  const languages = sentenceLanguages(tokens, text);
  const used = [...new Set(Array.from(tokens.sentence.slice(0, tokens.count)))];
  return used.map((sentence) => languages[sentence]!);
}

describe("the language of a sentence", () => {
  const samples: [string, string][] = [
    ["en", "Sends the file to the address the user gives."],
    ["es", "Envía el archivo a la dirección que el usuario indica."],
    ["fr", "Envoie le fichier à l'adresse que l'utilisateur indique."],
    ["pt", "Envia o arquivo para o endereço que o usuário informa."],
    ["it", "Invia il file all'indirizzo che l'utente indica."],
    ["de", "Sendet die Datei an die Adresse, die der Benutzer angibt."],
    ["tr", "Dosyayı kullanıcının verdiği adrese gönderir ve bir kopyasını saklar."],
    ["ru", "Отправляет файл на адрес, который указал пользователь."],
    ["ar", "يرسل الملف إلى العنوان الذي يحدده المستخدم."],
    ["hi", "फ़ाइल को उपयोगकर्ता के दिए पते पर भेजता है।"],
    ["zh", "将文件发送到用户提供的地址。"],
    ["ja", "ファイルをユーザーが指定した宛先に送信します。"],
    ["ko", "파일을 사용자가 지정한 주소로 보냅니다."],
  ];
  for (const [language, text] of samples) {
    it(`reads ${language}`, () => {
      expect(languagesOf(text)).toEqual([language]);
    });
  }

  it("keeps English for an English sentence with a borrowed accented word (café, naïve, résumé)", () => {
    const text = "Returns the café's menu and a naïve résumé summary.";
    expect(languagesOf(text)).toEqual(["en"]);
  });

  it("reads each sentence on its own", () => {
    const text = "Sends the file. Envía el archivo a la dirección que el usuario indica.";
    expect(languagesOf(text)).toEqual(["en", "es"]);
  });
});

/** A phrase of a lexicon as text that matches it: stems and suffixes completed, gaps filled. */
function sayPhrase(phrase: string): string {
  return phrase
    .split(" ")
    .map((w) =>
      w === "~"
        ? "the"
        : w.endsWith("*")
          ? `${w.slice(0, -1)}ed`
          : w.startsWith("*")
            ? `data${w.slice(1)}`
            : w,
    )
    .join(" ");
}

const PHRASES = LEXICONS.filter((l) => l.language !== "neutral").flatMap(({ lexicon }) =>
  Object.values(lexicon as Record<string, readonly string[]>).flatMap((list) =>
    list.map(sayPhrase),
  ),
);
const SHAPE_SAMPLES = [
  "~/.ssh/id_rsa",
  "$AWS_SECRET_ACCESS_KEY",
  "https://collect.example.net/x",
  "ops@example.org",
  "`value`",
  "the `sample_tool` tool",
  "rm -rf /",
  "assistant:",
  "<IMPORTANT>",
  "<!--",
  '<span style="display:none">',
];
const FILLER = ["the", "user", "file", ".", ",", "and", "then", "it", "this tool", "\n"];
const KINDS: TextKind[] = ["description", "schema-description", "schema-default", "instructions"];

function firesWithoutGate(text: string, kind: TextKind): boolean {
  const lower = foldCase(text);
  const tagged = tagText(
    lower,
    text,
    kind === "description" ? { ...NO_TOOL, describesTool: true } : NO_TOOL,
  );
  const context = { kind, nameConcepts: new Set<number>(), paramConcepts: new Set<number>() };
  return COMPILED_SIGNALS.some((s) =>
    s.rules.some((r) => judgeRule(tagged, r, context).length > 0),
  );
}

describe("the gate (an over-approximation)", () => {
  it("never turns away a text on which a rule fires", () => {
    const part = fc.oneof(
      { weight: 6, arbitrary: fc.constantFrom(...PHRASES) },
      { weight: 1, arbitrary: fc.constantFrom(...SHAPE_SAMPLES) },
      { weight: 3, arbitrary: fc.constantFrom(...FILLER) },
    );
    let fired = 0;
    fc.assert(
      fc.property(
        fc.array(part, { minLength: 2, maxLength: 12 }),
        fc.constantFrom(...KINDS),
        (parts, kind) => {
          const text = `Reads a record. ${parts.join(" ")}`;
          if (!firesWithoutGate(text, kind)) return;
          fired++;
          const lower = foldCase(text);
          expect(mayFire(tokenize(lower, text), text, kind)).toBe(true);
        },
      ),
      { numRuns: 3000 },
    );
    // The property is only worth something when the generator reaches firing texts.
    expect(fired).toBeGreaterThan(100);
  });

  it("lets every declared firing example through", () => {
    for (const s of SIGNALS) {
      for (const c of s.fires) {
        const text = textOf(c);
        const lower = foldCase(text);
        if (firesWithoutGate(text, kindOf(c)))
          expect(mayFire(tokenize(lower, text), text, kindOf(c)), text).toBe(true);
      }
    }
  });
});
