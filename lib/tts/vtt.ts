// The WebVTT writer: cues in order, never overlapping, times as HH:MM:SS.mmm, text escaped.
import type { Cue } from "./engine.ts"

/** HH:MM:SS.mmm from seconds, rounded to the nearest millisecond (59.9996 s is 00:01:00.000). */
export function timestamp(seconds: number): string {
  const ms = Math.max(0, Math.round(seconds * 1000))
  const pad = (n: number, width = 2) => String(n).padStart(width, "0")
  return `${pad(Math.floor(ms / 3_600_000))}:${pad(Math.floor(ms / 60_000) % 60)}:${pad(Math.floor(ms / 1000) % 60)}.${pad(ms % 1000, 3)}`
}

/** Cue text on one line, with the characters WebVTT gives a meaning (& < >) escaped; so no "-->" either. */
export function escapeCueText(text: string): string {
  return text.replace(/\s+/g, " ").trim().replaceAll("&", "&amp;").replaceAll("<", "&lt;").replaceAll(">", "&gt;")
}

/** A WebVTT document. Times are settled in whole milliseconds first, so the written cues stay ordered. */
export function writeVtt(cues: readonly Cue[]): string {
  let previousEnd = 0
  const blocks = cues.map((cue, i) => {
    const start = Math.max(Math.round(cue.start * 1000), previousEnd)
    const end = Math.max(Math.round(cue.end * 1000), start + 1)
    previousEnd = end
    return `${i + 1}\n${timestamp(start / 1000)} --> ${timestamp(end / 1000)}\n${escapeCueText(cue.text)}\n`
  })
  return ["WEBVTT\n", ...blocks].join("\n")
}
