// Language detection, in the worker process only (its n-gram tables take memory the service need not
// hold). The scripts that name one language decide first; Latin and Cyrillic text goes to eld
// (Nito-ELD, `eld/medium`): on this project's samples tinyld took plain English prose for Vietnamese
// ("The harbour master walks the quay before sunrise" -> vi), eld got every one right.
import { eld } from "eld/medium"

/** Letters of the scripts that name their language outright. */
const SCRIPTS: [RegExp, string][] = [
  [/[\u3040-\u30ff]/u, "ja"], // kana: Japanese, even among kanji
  [/[\uac00-\ud7af]/u, "ko"],
  [/\p{Script=Han}/u, "zh"],
  [/\p{Script=Arabic}/u, "ar"],
  [/\p{Script=Hebrew}/u, "he"],
  [/\p{Script=Thai}/u, "th"],
  [/\p{Script=Greek}/u, "el"],
]

/** The language of a text, or undefined when it cannot be told (too short, or not reliably). */
export function detectLanguage(text: string): string | undefined {
  const sample = text.slice(0, 4000)
  const letters = sample.match(/\p{L}/gu)?.length ?? 0
  if (letters === 0) return undefined
  for (const [script, lang] of SCRIPTS) {
    const n = sample.match(new RegExp(script.source, "gu"))?.length ?? 0
    if (n > 0 && (lang === "ja" || n / letters > 0.3)) return lang
  }
  if (letters < 12) return undefined
  const result = eld.detect(sample)
  return result.language && result.isReliable() ? result.language : undefined
}
