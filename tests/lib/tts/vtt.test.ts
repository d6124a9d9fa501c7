import { expect, test } from "bun:test"
import { escapeCueText, timestamp, wrapLines, writeVtt } from "#lib/tts/vtt.ts"
import { parseVtt } from "../../support/webvtt.ts"

test("timestamps are HH:MM:SS.mmm, rounded to the nearest millisecond and carried upwards", () => {
  expect(timestamp(0)).toBe("00:00:00.000")
  expect(timestamp(1.2346)).toBe("00:00:01.235")
  expect(timestamp(0.9996)).toBe("00:00:01.000")
  expect(timestamp(59.9996)).toBe("00:01:00.000")
  expect(timestamp(3599.9999)).toBe("01:00:00.000")
  expect(timestamp(36_000 + 61.0004)).toBe("10:01:01.000")
  for (let ms = 0; ms < 5000; ms += 7) expect(timestamp(ms / 1000 + 0.0004)).toMatch(/^\d\d:[0-5]\d:[0-5]\d\.\d{3}$/)
})

test("cue text is escaped and kept on one line", () => {
  expect(escapeCueText("a < b & c > d --> e")).toBe("a &lt; b &amp; c &gt; d --&gt; e")
  expect(escapeCueText("two\n\nlines ")).toBe("two lines")
})

test("the document parses without errors, cues in order with their times and texts", () => {
  const cues = [
    { start: 0.05, end: 1.9996, text: "Fish & chips <b>now</b>." },
    { start: 1.9996, end: 4.5, text: "Then --> arrows, and more." },
    { start: 4.5, end: 3725.25, text: "A long one." },
  ]
  const vtt = writeVtt(cues)
  expect(vtt.startsWith("WEBVTT\n\n")).toBe(true)
  const parsed = parseVtt(vtt)
  expect(parsed.errors).toEqual([])
  expect(parsed.cues.map((c) => [c.startTime, c.endTime])).toEqual([
    [0.05, 2],
    [2, 4.5],
    [4.5, 3725.25],
  ])
  expect(parsed.cues.map((c) => c.text)).toEqual([
    "Fish &amp; chips &lt;b&gt;now&lt;/b&gt;.",
    "Then --&gt; arrows, and more.",
    "A long one.",
  ])
})

test("overlapping or empty cues are written in order, never overlapping, never empty", () => {
  const vtt = writeVtt([
    { start: 1, end: 2, text: "one" },
    { start: 1.5, end: 1.7, text: "two" },
    { start: 3, end: 3, text: "three" },
  ])
  const parsed = parseVtt(vtt)
  expect(parsed.errors).toEqual([])
  const times = parsed.cues.map((c) => [c.startTime, c.endTime])
  expect(times).toEqual([
    [1, 2],
    [2, 2.001],
    [3, 3.001],
  ])
})

test("an empty cue list is still a valid document", () => {
  expect(parseVtt(writeVtt([])).errors).toEqual([])
})

test("cues are at most two lines of at most 42 columns, broken at a phrase boundary, without invisible characters", () => {
  expect(wrapLines("A short cue.")).toEqual(["A short cue."])
  expect(wrapLines("the breakwater came in one after another, and the crews, tired but glad,")).toEqual([
    "the breakwater came in one after another,",
    "and the crews, tired but glad,",
  ])
  expect(wrapLines("今天天气很好，我们去公园吧，然后我们一起去吃饭，吃完饭以后")).toEqual([
    "今天天气很好，我们去公园吧，",
    "然后我们一起去吃饭，吃完饭以后",
  ])
  expect(wrapLines("soft\u00adhyphen, zero\u200bwidth and \u202ebidi\u202c marks")).toEqual([
    "softhyphen, zerowidth and bidi marks",
  ])
  const text = "When the harbour opened in the early morning, the ships came in one by one."
  const vtt = writeVtt([{ start: 0, end: 5, text }])
  const parsed = parseVtt(vtt)
  expect(parsed.errors).toEqual([])
  const lines = parsed.cues[0]!.text.split("\n")
  expect(lines.length).toBe(2)
  for (const line of lines) expect(line.length).toBeLessThanOrEqual(42)
  expect(lines.join(" ")).toBe(text)
})
