// Languages: the tag a text is read in (front matter `lang`, else the `voice` key's locale, else
// detected from the text, else the default voice's locale), and which offline voice speaks it:
// flite's cmu_us_slt for English, espeak-ng's voices for the rest. Tags are taken the way people write
// them (`zh`, `zh-CN`, `pt-BR`, `EN_us`); a language no offline voice speaks is a 400 naming it.
import { invalid } from "../errors/errors.ts"

/** espeak-ng 1.51's voices (Debian), from `espeak-ng --voices`. */
const ESPEAK_VOICES = new Set(
  (
    "af am an ar as az ba be bg bn bpy bs ca cmn cs cv cy da de el en-029 en-gb en-gb-scotland en-gb-x-rp en-us eo es es-419 et eu fa fi " +
    "fr-be fr-ch fr-fr ga gd gn grc gu hak haw he hi hr ht hu hy hyw ia id io is it ja jbo ka kk kl kn ko kok ku ky la lb lfn lt ltg lv mi " +
    "mk ml mr ms mt my nb nci ne nl nog om or pa pap pl pt pt-br py qu quc ro ru sd shn si sk sl smj sq sr sv sw ta te th tk tn tr tt ug uk " +
    "ur uz vi yue"
  ).split(" "),
)

/** Tags whose espeak-ng voice has another name. */
const ESPEAK_ALIASES: Record<string, string> = {
  zh: "cmn",
  "zh-cn": "cmn",
  "zh-sg": "cmn",
  "zh-hans": "cmn",
  "zh-tw": "cmn",
  "zh-hant": "cmn",
  "zh-hk": "yue",
  "zh-mo": "yue",
  cmn: "cmn",
  yue: "yue",
  "pt-pt": "pt",
  "pt-br": "pt-br",
  fr: "fr-fr",
  "fr-ca": "fr-fr",
  "fr-fr": "fr-fr",
  "fr-be": "fr-be",
  "fr-ch": "fr-ch",
  en: "en-us",
  "en-us": "en-us",
  "en-gb": "en-gb",
  "en-au": "en-gb",
  "en-ie": "en-gb",
  "en-nz": "en-gb",
  "en-in": "en-gb",
  "es-mx": "es-419",
  "es-419": "es-419",
  "es-ar": "es-419",
  "es-co": "es-419",
  "es-us": "es-419",
  no: "nb",
  "nb-no": "nb",
  "nn-no": "nb",
  iw: "he",
  in: "id",
}

/** "EN_us" -> "en-US"; script and region subtags kept, case as BCP 47 writes them. */
export function canonicalTag(tag: string): string {
  return tag
    .trim()
    .replace(/_/g, "-")
    .split("-")
    .map((part, i) =>
      i === 0
        ? part.toLowerCase()
        : part.length === 2
          ? part.toUpperCase()
          : part.length === 4
            ? part[0]!.toUpperCase() + part.slice(1).toLowerCase()
            : part.toLowerCase(),
    )
    .join("-")
}

/** The espeak-ng voice for a tag, or undefined when espeak-ng has none. */
export function espeakVoice(tag: string): string | undefined {
  const t = canonicalTag(tag).toLowerCase()
  const parts = t.split("-")
  for (const candidate of [t, `${parts[0]}-${parts.at(-1)}`, parts[0]!]) {
    const name = ESPEAK_ALIASES[candidate] ?? (ESPEAK_VOICES.has(candidate) ? candidate : undefined)
    if (name) return name
  }
  return undefined
}

export const isEnglish = (tag: string) => canonicalTag(tag).split("-")[0] === "en"

/** The language's primary subtag ("zh-CN" -> "zh"), used to pick rules (normalisation, sentences). */
export const primary = (tag: string) => canonicalTag(tag).split("-")[0]!

/** Throws the 400 that names a language no offline voice speaks. */
export function checkSpoken(tag: string): void {
  if (!espeakVoice(tag))
    throw invalid(
      `no offline voice speaks the language "${tag}"; languages spoken: English (flite), and espeak-ng's (de, fr, es, zh, ja, ar, pt-BR, ...)`,
      "unsupported_language",
    )
}
