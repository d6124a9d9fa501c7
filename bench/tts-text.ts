// bench/tts-text: what reading hostile text for speech costs. Each bomb (inputs that were once
// quadratic or deeper than the stack) is read as Markdown, normalised and planned as sentences,
// against ordinary prose of the same length read the same way in the same run: the ratio is the
// bomb's median time over the prose's. Linear reading keeps it near 1; a quadratic one shows in the
// hundreds at the 50,000-character limit.
// Run: bun bench/tts-text.ts
import { readDocument } from "#lib/tts/markdown.ts"
import { normalize } from "#lib/tts/normalize.ts"
import { planSpeech } from "#lib/tts/sentences.ts"
import { median, ratio } from "./support.ts"

const ROUNDS = 5
const sentence = "The harbour master walked along the quay before sunrise, while 3 ships waited outside. "
const prose = (length: number) => sentence.repeat(Math.ceil(length / sentence.length)).slice(0, length)

const bombs: [string, string][] = [
  ["quote bomb", "> ".repeat(9000) + "x"],
  ["list bomb", "- ".repeat(8000) + "x"],
  ["deep list bomb", "- ".repeat(24999) + "x"],
  ["numbered bomb", "1. ".repeat(16000) + "x"],
  ["stars", "*".repeat(50000)],
  ["emphasis bomb", "*a".repeat(25000)],
  ["brackets", "[".repeat(50000)],
  ["setext bomb", "a\n".repeat(25000) + "==="],
  ["mixed nesting", "> - 1. ".repeat(7000) + "x"],
  ["words without a stop", "word ".repeat(10000)],
  ["digits and commas", "1,".repeat(25000)],
  ["dollars", "$".repeat(50000)],
  ["underscores", "_a".repeat(25000)],
  ["slashes", "1/".repeat(25000)],
  ["stops", "x.".repeat(25000)],
  ["at signs", "@.".repeat(25000)],
]

/** Median milliseconds to read `text` as a document, normalise its blocks and plan its sentences. */
function timed(text: string): number {
  const runs: number[] = []
  for (let i = 0; i < ROUNDS; i++) {
    const started = performance.now()
    planSpeech(readDocument(text).blocks.map((block) => normalize(block, "en")))
    runs.push(performance.now() - started)
  }
  return median(runs)
}

timed(prose(10_000)) // warm up the parser and the JIT
for (const [name, bomb] of bombs)
  ratio(`${name} (${bomb.length} characters) vs prose of that length`, timed(bomb), timed(prose(bomb.length)), " ms")
