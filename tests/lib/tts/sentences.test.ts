import { expect, test } from "bun:test"
import { cuePieces, MAX_CUE_WORDS, planSpeech, splitSentences } from "../../../lib/tts/sentences.ts"

test("sentences end at . ! ? … followed by a capital or a digit, not at abbreviations or initials", () => {
  expect(splitSentences("Hello there. How are you? Fine!  Really…  Yes.")).toEqual(["Hello there.", "How are you?", "Fine!", "Really…", "Yes."])
  expect(splitSentences("Dr. Smith met J. R. Tolkien, e.g. at 3.5 p.m. on Monday. Then he left.")).toEqual([
    "Dr. Smith met J. R. Tolkien, e.g. at 3.5 p.m. on Monday.",
    "Then he left.",
  ])
  expect(splitSentences('He said "Stop." Then 42 people ran. (Quietly.) Done')).toEqual(['He said "Stop."', "Then 42 people ran.", "(Quietly.)", "Done"])
  expect(splitSentences("lower case. continues here")).toEqual(["lower case. continues here"])
  expect(splitSentences("  \n ")).toEqual([])
})

test("short sentences are one piece; long ones split at clauses, then between words", () => {
  expect(cuePieces("A short one.")).toEqual(["A short one."])
  const long =
    "When the harbour opened in the early morning, the ships that had waited all night outside the breakwater came in one after another, and the crews, tired but glad, tied up at the long quay that the town had built."
  const pieces = cuePieces(long)
  expect(pieces.join(" ")).toBe(long)
  expect(pieces.length).toBeGreaterThan(1)
  for (const p of pieces) expect(p.split(" ").length).toBeLessThanOrEqual(MAX_CUE_WORDS)
  expect(pieces.every((p, i) => i === pieces.length - 1 || /[,;:]$/.test(p))).toBe(true)
})

test("a long sentence without punctuation is split into near-equal word runs", () => {
  const words = Array.from({ length: 40 }, (_, i) => `w${i}`)
  const pieces = cuePieces(words.join(" "), 16)
  expect(pieces.map((p) => p.split(" ").length)).toEqual([13, 14, 13])
  expect(pieces.join(" ")).toBe(words.join(" "))
})

test("the plan keeps every word in order", () => {
  const blocks = ["First block. Second sentence here.", "Another block without a stop", "x ".repeat(50)]
  const plan = planSpeech(blocks)
  expect(plan.flat().join(" ")).toBe(blocks.map((b) => b.replace(/\s+/g, " ").trim()).join(" "))
  expect(plan.length).toBe(4)
})
