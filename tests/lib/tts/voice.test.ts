import { expect, test } from "bun:test"
import { DomainError } from "#lib/errors/errors.ts"
import { signed, voiceOf } from "#lib/tts/voice.ts"

const DEFAULT = "en-US-EmmaMultilingualNeural"

test("without front matter keys the service default voice speaks, in its own language, unchanged", () => {
  expect(voiceOf({}, DEFAULT)).toEqual({ voice: DEFAULT, lang: "en-US", rate: 0, pitch: 0, volume: 0 })
})

test("voice, lang, rate, pitch and volume are taken; other keys are ignored", () => {
  expect(
    voiceOf({ voice: "de-DE-KatjaNeural", rate: "-20%", pitch: "+5Hz", volume: "+50%", colour: "blue" }, DEFAULT),
  ).toEqual({
    voice: "de-DE-KatjaNeural",
    lang: "de-DE",
    rate: -20,
    pitch: 5,
    volume: 50,
  })
  expect(voiceOf({ lang: "fr", rate: "10%" }, DEFAULT)).toMatchObject({ voice: DEFAULT, lang: "fr", rate: 10 })
})

test("values of the wrong shape or out of range are 400s that say what is expected", () => {
  const cases: [Record<string, unknown>, string][] = [
    [{ voice: "Emma" }, "voice must be an Edge voice name"],
    [{ voice: 42 }, "voice must be an Edge voice name"],
    [{ lang: "english please" }, "lang must be a language tag"],
    [{ rate: 10 }, "rate must look like +10% or -20%"],
    [{ rate: "+500%" }, "rate must look like"],
    [{ pitch: "+5%" }, "pitch must look like +5Hz or -10Hz"],
    [{ volume: "loud" }, "volume must look like"],
  ]
  for (const [attributes, message] of cases) {
    let error: unknown
    try {
      voiceOf(attributes, DEFAULT)
    } catch (err) {
      error = err
    }
    expect(error).toBeInstanceOf(DomainError)
    expect((error as DomainError).kind).toBe("invalid")
    expect((error as DomainError).message).toContain(message)
  }
})

test("signed values are written the way the Edge service takes them", () => {
  expect([signed(0, "%"), signed(15, "%"), signed(-7, "Hz")]).toEqual(["+0%", "+15%", "-7Hz"])
})
