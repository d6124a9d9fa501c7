// The WebVTT writer: cues in order, never overlapping, times as HH:MM:SS.mmm, text escaped, without
// invisible characters, and wrapped into at most two lines of at most LINE_CHARS columns, broken at a
// phrase boundary (after punctuation, before a conjunction or preposition) near the middle.
import type { Cue } from "./types.ts"
import { isUnspaced, LINE_CHARS, width } from "./sentences.ts"

/** HH:MM:SS.mmm from seconds, rounded to the nearest millisecond (59.9996 s is 00:01:00.000). */
export function timestamp(seconds: number): string {
  const ms = Math.max(0, Math.round(seconds * 1000))
  const pad = (n: number, width = 2) => String(n).padStart(width, "0")
  return `${pad(Math.floor(ms / 3_600_000))}:${pad(Math.floor(ms / 60_000) % 60)}:${pad(Math.floor(ms / 1000) % 60)}.${pad(ms % 1000, 3)}`
}

/** Zero-width and bidi control characters, soft hyphens, BOMs: nothing a reader should get. */
const INVISIBLE = /[\u00ad\u061c\u180e\u200b-\u200f\u202a-\u202e\u2060-\u2064\u2066-\u206f\ufeff]/g

/** Cue text on one line, invisible characters dropped, the characters WebVTT gives a meaning (& < >) escaped; so no "-->" either. */
export function escapeCueText(text: string): string {
  return text
    .replace(INVISIBLE, "")
    .replace(/\s+/g, " ")
    .trim()
    .replaceAll("&", "&amp;")
    .replaceAll("<", "&lt;")
    .replaceAll(">", "&gt;")
}

const BEFORE = new Set(
  "and or but nor so yet because although while when where which who that if than to of in on at for with from by into about after before over under und oder aber weil dass et ou mais que qui dans pour avec sur y o pero que para con en sobre".split(
    " ",
  ),
)

/** A cue's text as at most two lines of at most `max` columns (unescaped), broken where a phrase ends. */
export function wrapLines(text: string, max = LINE_CHARS): string[] {
  const clean = text.replace(INVISIBLE, "").replace(/\s+/g, " ").trim()
  const total = width(clean)
  if (total <= max) return [clean]
  const unspaced = isUnspaced(clean)
  const chars = [...clean]
  let best = -1
  let bestScore = Infinity
  let left = 0
  for (let i = 1; i < chars.length; i++) {
    left += width(chars[i - 1]!)
    const ch = chars[i]!
    if (!unspaced && ch !== " ") continue
    const first = left
    const second = total - first - (ch === " " ? 1 : 0)
    if (first > max || second > max) continue
    const prev = chars[i - 1]!
    const nextWord = chars
      .slice(i + 1, i + 12)
      .join("")
      .split(" ")[0]!
      .toLowerCase()
    let score = Math.abs(first - second)
    if (/[,;:.!?，、；：。！？]/u.test(prev)) score -= 30
    else if (!unspaced && BEFORE.has(nextWord)) score -= 15
    if (score < bestScore) {
      bestScore = score
      best = i
    }
  }
  if (best < 0) return [clean] // longer than two lines: pieces are made to fit, so only odd input gets here
  return [chars.slice(0, best).join("").trim(), chars.slice(best).join("").trim()]
}

/** A WebVTT document. Times are settled in whole milliseconds first, so the written cues stay ordered. */
export function writeVtt(cues: readonly Cue[]): string {
  let previousEnd = 0
  const blocks = cues.map((cue, i) => {
    const start = Math.max(Math.round(cue.start * 1000), previousEnd)
    const end = Math.max(Math.round(cue.end * 1000), start + 1)
    previousEnd = end
    const lines = wrapLines(cue.text).map(escapeCueText).filter(Boolean)
    return `${i + 1}\n${timestamp(start / 1000)} --> ${timestamp(end / 1000)}\n${lines.join("\n") || "…"}\n`
  })
  return ["WEBVTT\n", ...blocks].join("\n")
}
