// Speakable blocks to sentences, and sentences to cue pieces: a sentence longer than a subtitle line
// is split at its commas, semicolons, colons and dashes, and, where a clause is still too long, between
// words. Pieces are cut only at spaces, so a sentence's pieces joined with " " give the sentence back.

/** The most words one cue carries. */
export const MAX_CUE_WORDS = 16

// Words that end with a period without ending a sentence.
const ABBREVIATIONS = new Set(
  "mr mrs ms dr prof sr jr st vs etc e.g i.e cf fig no approx dept est inc ltd co corp jan feb mar apr jun jul aug sep sept oct nov dec".split(" "),
)

function endsSentence(word: string, next: string | undefined): boolean {
  if (next === undefined) return true
  const m = /^(.*?)([.!?…]+)["'”’)\]]*$/u.exec(word)
  if (!m) return false
  if (m[2] !== ".") return true
  const stem = m[1]!.replace(/^["'“‘(\[]+/u, "").toLowerCase()
  if (ABBREVIATIONS.has(stem) || /^\p{L}$/u.test(stem) || /^(\p{L}\.)+\p{L}$/u.test(stem)) return false
  return /^["'“‘(\[]*[\p{Lu}\p{N}]/u.test(next)
}

/** The sentences of one block of text, whitespace collapsed. A block always ends a sentence. */
export function splitSentences(block: string): string[] {
  const words = block.split(/\s+/).filter(Boolean)
  const sentences: string[] = []
  let current: string[] = []
  words.forEach((word, i) => {
    current.push(word)
    if (endsSentence(word, words[i + 1])) {
      sentences.push(current.join(" "))
      current = []
    }
  })
  return sentences
}

/** Splits words into `parts` runs of nearly equal length. */
function evenRuns(words: string[], parts: number): string[][] {
  return Array.from({ length: parts }, (_, k) => words.slice(Math.round((k * words.length) / parts), Math.round(((k + 1) * words.length) / parts)))
}

/** A sentence as cue pieces of at most `maxWords` words, preferring clause boundaries. */
export function cuePieces(sentence: string, maxWords = MAX_CUE_WORDS): string[] {
  const words = sentence.split(" ")
  if (words.length <= maxWords) return [sentence]
  const clauses: string[][] = [[]]
  for (const word of words) {
    clauses.at(-1)!.push(word)
    if (/[,;:]["'”’)\]]*$|^[–—-]$/u.test(word)) clauses.push([])
  }
  const pieces: string[][] = []
  for (const clause of clauses.filter((c) => c.length > 0)) {
    const last = pieces.at(-1)
    if (last && last.length + clause.length <= maxWords) last.push(...clause)
    else pieces.push(...evenRuns(clause, Math.ceil(clause.length / maxWords)))
  }
  return pieces.map((p) => p.join(" "))
}

/** Blocks to the reading plan: sentences, each a list of cue pieces. */
export function planSpeech(blocks: readonly string[], maxWords = MAX_CUE_WORDS): string[][] {
  return blocks.flatMap(splitSentences).map((s) => cuePieces(s, maxWords))
}
