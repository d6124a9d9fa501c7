// The first half of a synthesis, in a speech worker process: a request's text to a reading plan. The
// document is read (front matter, Markdown or plain text), its language settled (front matter `lang`,
// else the `voice` key's locale, else detected from the text, else the default voice's locale),
// split into sentences and cue pieces by that language's rules, and each piece gets the words an
// back end should say for it (normalised: numbers, dates, URLs, ...), while the cue keeps what was
// written.
import { invalid } from "../errors/errors.ts"
import { detectLanguage } from "./detect.ts"
import { checkSpoken, primary } from "./lang.ts"
import { readDocument } from "./markdown.ts"
import { normalize } from "./normalize.ts"
import { planSpeech } from "./sentences.ts"
import { voiceOf, type Voice } from "./voice.ts"

export interface Piece {
  /** As written: the cue's text. */
  text: string
  /** As said: what the back end gets. */
  spoken: string
}

export interface Plan {
  voice: Voice
  /** Sentences, each a list of pieces. Empty when there is nothing to read. */
  sentences: Piece[][]
}

export async function prepare(text: string, defaultVoice: string): Promise<Plan> {
  const document = readDocument(text)
  const detected =
    document.attributes.lang === undefined && document.attributes.voice === undefined
      ? await detectLanguage(document.blocks.join("\n"))
      : undefined
  const voice = voiceOf(document.attributes, defaultVoice, detected)
  checkSpoken(voice.lang)
  const lang = primary(voice.lang)
  const sentences = planSpeech(document.blocks, voice.lang).map((pieces) =>
    pieces.map((piece) => ({ text: piece, spoken: normalize(piece, lang) })).filter((p) => p.text.trim()),
  )
  return { voice, sentences: sentences.filter((s) => s.length > 0) }
}

export const emptyText = () => invalid("text has nothing to read aloud (it is empty, or only code)", "empty_text")
