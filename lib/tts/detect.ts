// Language detection, in the worker process only (its n-gram tables take memory the service need not
// hold). The scripts that name one language decide first; Latin and Cyrillic text goes to eld
// (Nito-ELD, its smallest table `eld/extrasmall`): on this project's samples tinyld took plain English
// prose for Vietnamese ("The harbour master walks the quay before sunrise" -> vi), eld got every one
// right. Its table takes a few seconds to load on a busy machine, so a worker starts loading it at
// once, in the background, and only a text that needs detecting waits for it.

let detector: Promise<typeof import("eld/extrasmall").eld> | undefined
export const loadDetector = () => (detector ??= import("eld/extrasmall").then((m) => m.eld))

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
export async function detectLanguage(text: string): Promise<string | undefined> {
  const sample = text.slice(0, 4000)
  const letters = sample.match(/\p{L}/gu)?.length ?? 0
  if (letters === 0) return undefined
  for (const [script, lang] of SCRIPTS) {
    const n = sample.match(new RegExp(script.source, "gu"))?.length ?? 0
    if (n > 0 && (lang === "ja" || n / letters > 0.3)) return lang
  }
  if (letters < 12) return undefined
  const result = (await loadDetector()).detect(sample)
  return result.language && result.isReliable() ? result.language : undefined
}
