// Speakable blocks to sentences, and sentences to cue pieces. Sentences come from Intl.Segmenter with
// the text's locale (so CJK 。！？ and Arabic ؟ end sentences), then are joined again where the
// segmenter cut after an abbreviation or an initial ("Dr. Smith", "J. R. Tolkien"), before a lower-case
// word, or before a closing quote ("« Bonjour ! »" stays whole). A sentence longer than one cue (two
// subtitle lines) is split at its commas, semicolons, colons and dashes, and, where a clause is still
// too long, between words of near-equal runs. Linear in the text.

/** Columns of one subtitle line, and of one cue (two lines); a CJK character takes two (width()). */
export const LINE_CHARS = 42
export const MAX_CUE_CHARS = 2 * LINE_CHARS

// Words that end with a period without ending a sentence (lower case, without the period).
const ABBREVIATIONS = new Set(
  (
    "mr mrs ms dr prof sr jr st vs etc e.g i.e cf fig no nr approx dept est inc ltd co corp jan feb mar apr jun jul aug sep sept oct nov dec " +
    "mt ave rd blvd gen col lt sgt capt rev hon z.b d.h bzw usw ca evtl ggf u.a mme mlle env p.ex sra sres srta ud uds p.ej a.m p.m"
  ).split(" "),
)

/** Scripts written without spaces between words. */
const UNSPACED = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Thai}]/u
export const isUnspaced = (text: string) => UNSPACED.test(text)

const WIDE =
  /[\u1100-\u115f\u2e80-\ua4cf\uac00-\ud7a3\uf900-\ufaff\ufe30-\ufe4f\uff00-\uff60\uffe0-\uffe6]|[\u{20000}-\u{3fffd}]/u

/** Columns a text takes on screen: 2 for a wide (CJK) character, 1 for others. */
export function width(text: string): number {
  let n = 0
  for (const ch of text) n += WIDE.test(ch) ? 2 : 1
  return n
}

const segmenters = new Map<string, { sentence: Intl.Segmenter; word: Intl.Segmenter }>()
function segmenter(lang: string) {
  let s = segmenters.get(lang)
  if (!s) {
    let locale = "en"
    try {
      locale = Intl.getCanonicalLocales(lang)[0] ?? "en"
    } catch {}
    s = {
      sentence: new Intl.Segmenter(locale, { granularity: "sentence" }),
      word: new Intl.Segmenter(locale, { granularity: "word" }),
    }
    segmenters.set(lang, s)
  }
  return s
}

/** Does the segment end where a sentence cannot end (an abbreviation, an initial, before lower case)? */
function endsEarly(segment: string, next: string): boolean {
  if (/^\s*[\p{Ll}]/u.test(next)) return true // "lower case. continues", « Bonjour ! » dit-il
  const m = /(\S+)\.\s*$/u.exec(segment)
  if (!m) return false
  const stem = m[1]!.replace(/^["'“‘«(\[]+/u, "").toLowerCase()
  return ABBREVIATIONS.has(stem) || /^\p{L}$/u.test(stem) || /^(\p{L}\.)+\p{L}$/u.test(stem)
}

const CLOSING = /^\s*[»”’)\]」』]+/u

/** The sentences of one block of text, whitespace collapsed. A block always ends a sentence. */
export function splitSentences(block: string, lang = "en"): string[] {
  const text = block.replace(/\s+/g, " ").trim()
  if (!text) return []
  // ICU does not end a sentence at an ellipsis; a capital after one starts the next
  const parts = [...segmenter(lang).sentence.segment(text)].flatMap((s) => s.segment.split(/(?<=…\s+)(?=\p{Lu})/u))
  const sentences: string[] = []
  let current = ""
  for (let i = 0; i < parts.length; i++) {
    current += parts[i]
    let next = parts[i + 1]
    const closing = next === undefined ? null : CLOSING.exec(next)
    if (closing) {
      // a closing quote (French « ... ! » with its space) belongs to the sentence it closes
      current += closing[0]
      next = parts[i + 1] = next!.slice(closing[0].length)
    }
    if (next === undefined || (next.trim() && !endsEarly(current, next))) {
      if (current.trim()) sentences.push(current.trim())
      current = ""
    }
  }
  if (current.trim()) sentences.push(current.trim())
  return sentences
}

/** Splits `words` (each with its trailing joiner) into runs of at most `max` characters, near-equal. */
function evenRuns(words: string[], max: number): string[] {
  const total = words.reduce((n, w) => n + width(w), 0)
  const parts = Math.ceil(total / max)
  const target = total / parts
  const runs: string[] = []
  let run = ""
  let size = 0
  for (const word of words) {
    const n = width(word)
    if (size > 0 && (size + n > max || (size + n / 2 > target && runs.length < parts - 1))) {
      runs.push(run)
      run = ""
      size = 0
    }
    // a single word longer than a cue is cut
    if (n > max) {
      if (run) runs.push(run)
      const chars = [...word]
      const step = Math.max(1, Math.floor((max * chars.length) / n))
      for (let at = 0; at < chars.length; at += step) runs.push(chars.slice(at, at + step).join(""))
      run = ""
      size = 0
      continue
    }
    run += word
    size += n
  }
  if (run) runs.push(run)
  return runs.filter((r) => r.trim())
}

/** The words of a sentence, each with the space (or, unspaced, nothing) that follows it. */
function wordsOf(sentence: string, lang: string): string[] {
  if (!isUnspaced(sentence)) return sentence.split(" ").map((w, i, all) => (i < all.length - 1 ? `${w} ` : w))
  const words: string[] = []
  for (const { segment, isWordLike } of segmenter(lang).word.segment(sentence)) {
    if (!isWordLike && words.length > 0 && !/^\s+$/.test(segment))
      words[words.length - 1] += segment // punctuation stays with its word
    else words.push(segment)
  }
  return words
}

const CLAUSE_END = /[,;:，、；：]["'”’»)\]]*\s*$|^[–—-]\s*$/u

/** A sentence as cue pieces of at most `max` characters, preferring clause boundaries. */
export function cuePieces(sentence: string, lang = "en", max = MAX_CUE_CHARS): string[] {
  if (width(sentence) <= max) return [sentence]
  const clauses: string[][] = [[]]
  for (const word of wordsOf(sentence, lang)) {
    clauses.at(-1)!.push(word)
    if (CLAUSE_END.test(word)) clauses.push([])
  }
  const pieces: string[] = []
  let last = ""
  for (const clause of clauses.filter((c) => c.length > 0)) {
    const text = clause.join("")
    if (last && width(last) + width(text) <= max + 1) last += text
    else {
      if (last) pieces.push(last)
      const runs = width(text) <= max + 1 ? [text] : evenRuns(clause, max)
      last = runs.pop()!
      pieces.push(...runs)
    }
  }
  if (last) pieces.push(last)
  return pieces.map((p) => p.trim()).filter(Boolean)
}

/** Blocks to the reading plan: sentences, each a list of cue pieces. */
export function planSpeech(blocks: readonly string[], lang = "en", max = MAX_CUE_CHARS): string[][] {
  return blocks.flatMap((b) => splitSentences(b, lang)).map((s) => cuePieces(s, lang, max))
}
