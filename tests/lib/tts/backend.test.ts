import { expect, test } from "bun:test"
import { fallback } from "#lib/tts/backend.ts"
import type { SpeechBackend } from "#lib/tts/types.ts"
import { voiceOf } from "#lib/tts/voice.ts"

function backend(name: string, fail: boolean, calls: string[]): SpeechBackend {
  return {
    name,
    async synthesize(sentences) {
      calls.push(name)
      if (fail) throw new Error(`${name} is down`)
      return {
        backend: name,
        mp3: new Uint8Array(),
        cues: sentences.flat().map((text, i) => ({ start: i, end: i + 1, text })),
      }
    },
  }
}

test("auto speaks with the first back end while it works", async () => {
  const calls: string[] = []
  const auto = fallback(backend("edge", false, calls), backend("espeak", false, calls))
  expect((await auto.synthesize([["Hi."]], voiceOf({}, "en-US-AriaNeural"))).backend).toBe("edge")
  expect(calls).toEqual(["edge"])
})

test("auto falls back when the first back end fails, and rests it for a while", async () => {
  const calls: string[] = []
  let clock = 0
  const auto = fallback(backend("edge", true, calls), backend("espeak", false, calls), 60_000, () => clock)
  const voice = voiceOf({}, "en-US-AriaNeural")
  expect((await auto.synthesize([["One."]], voice)).backend).toBe("espeak")
  expect((await auto.synthesize([["Two."]], voice)).backend).toBe("espeak")
  expect(calls).toEqual(["edge", "espeak", "espeak"])
  clock = 60_000
  await auto.synthesize([["Three."]], voice)
  expect(calls).toEqual(["edge", "espeak", "espeak", "edge", "espeak"])
})
