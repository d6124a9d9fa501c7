import { expect, test } from "bun:test"
import { cuePieces, MAX_CUE_CHARS, planSpeech, splitSentences, width } from "#lib/tts/sentences.ts"

test("sentences end where the locale's rules end them, not at abbreviations, initials or inside quotes", () => {
  expect(splitSentences("Hello there. How are you? Fine!  Really…  Yes.")).toEqual([
    "Hello there.",
    "How are you?",
    "Fine!",
    "Really…",
    "Yes.",
  ])
  expect(splitSentences("Dr. Smith met J. R. Tolkien, e.g. at 3.5 p.m. on Monday. Then he left.")).toEqual([
    "Dr. Smith met J. R. Tolkien, e.g. at 3.5 p.m. on Monday.",
    "Then he left.",
  ])
  expect(splitSentences("We met at St. James St. yesterday. It rained.")).toEqual([
    "We met at St. James St. yesterday.",
    "It rained.",
  ])
  expect(splitSentences('He said "Stop." Then 42 people ran. (Quietly.) Done')).toEqual([
    'He said "Stop."',
    "Then 42 people ran.",
    "(Quietly.)",
    "Done",
  ])
  expect(splitSentences("lower case. continues here")).toEqual(["lower case. continues here"])
  expect(splitSentences("  \n ")).toEqual([])
})

test("CJK, Arabic and French sentences", () => {
  expect(splitSentences("今天天气很好。我们去公园吧！你来吗？", "zh")).toEqual([
    "今天天气很好。",
    "我们去公园吧！",
    "你来吗？",
  ])
  expect(splitSentences("今日は晴れです。公園に行きましょう！", "ja")).toEqual([
    "今日は晴れです。",
    "公園に行きましょう！",
  ])
  expect(splitSentences("هل أنت بخير؟ نعم، شكرا.", "ar")).toEqual(["هل أنت بخير؟", "نعم، شكرا."])
  expect(splitSentences("« Bonjour ! » dit-il. Il est parti.", "fr")).toEqual([
    "« Bonjour ! » dit-il.",
    "Il est parti.",
  ])
  expect(splitSentences("Il a crié « Au secours ! » Personne n'est venu.", "fr")).toEqual([
    "Il a crié « Au secours ! »",
    "Personne n'est venu.",
  ])
})

test("short sentences are one piece; long ones split at clauses, then between words, within two subtitle lines", () => {
  expect(cuePieces("A short one.")).toEqual(["A short one."])
  const long =
    "When the harbour opened in the early morning, the ships that had waited all night outside the breakwater came in one after another, and the crews, tired but glad, tied up at the long quay that the town had built."
  const pieces = cuePieces(long)
  expect(pieces.join(" ")).toBe(long)
  expect(pieces.length).toBeGreaterThan(1)
  for (const p of pieces) expect(width(p)).toBeLessThanOrEqual(MAX_CUE_CHARS)
  expect(pieces[0]).toBe("When the harbour opened in the early morning,")
})

test("a long sentence without punctuation is split into near-equal runs; a word longer than a cue is cut", () => {
  const words = Array.from({ length: 40 }, (_, i) => `word${i}`)
  const pieces = cuePieces(words.join(" "))
  expect(pieces.join(" ")).toBe(words.join(" "))
  const lengths = pieces.map((p) => p.length)
  expect(Math.max(...lengths) - Math.min(...lengths)).toBeLessThan(12)
  const token = "x.".repeat(90)
  const cut = cuePieces(token)
  expect(cut.join("")).toBe(token)
  for (const p of cut) expect(p.length).toBeLessThanOrEqual(MAX_CUE_CHARS)
})

test("CJK text is measured in columns (two a character) and split at its commas", () => {
  const zh =
    "今天天气很好，我们去公园吧，然后我们一起去吃饭，吃完饭以后我们去看电影，电影结束以后我们回家睡觉，明天早上我们再见面。"
  const pieces = cuePieces(zh, "zh")
  expect(pieces.join("")).toBe(zh)
  for (const p of pieces) expect(width(p)).toBeLessThanOrEqual(MAX_CUE_CHARS)
  expect(pieces.every((p, i) => i === pieces.length - 1 || p.endsWith("，"))).toBe(true)
})

test("the plan keeps every word in order (its cost on long input: bench/tts-text.ts)", () => {
  const blocks = ["First block. Second sentence here.", "Another block without a stop", "x ".repeat(50)]
  const plan = planSpeech(blocks)
  expect(plan.flat().join(" ")).toBe(blocks.map((b) => b.replace(/\s+/g, " ").trim()).join(" "))
  expect(plan.length).toBe(4)
  expect(
    planSpeech(["word ".repeat(10000)])
      .flat()
      .join(" "),
  ).toBe("word ".repeat(10000).trim())
})
