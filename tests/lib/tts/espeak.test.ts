// The offline back end for real: libespeak-ng through bun:ffi, MP3 from the WebAssembly encoder,
// checked with ffprobe/ffmpeg.
import { afterAll, expect, test } from "bun:test"
import { mkdtempSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { DomainError } from "#lib/errors/errors.ts"
import { Mp3Encoder } from "#lib/tts/encoder.ts"
import { espeakBackend } from "#lib/tts/espeak.ts"
import { readDocument } from "#lib/tts/markdown.ts"
import { planSpeech } from "#lib/tts/sentences.ts"
import { voiceOf } from "#lib/tts/voice.ts"

const dir = mkdtempSync(join(tmpdir(), "hm-espeak-"))
afterAll(() => rmSync(dir, { recursive: true, force: true }))
const backend = espeakBackend(new Mp3Encoder())

function probe(mp3: Uint8Array, name: string) {
  const file = join(dir, name)
  writeFileSync(file, mp3)
  const out = Bun.spawnSync([
    "ffprobe",
    "-v",
    "error",
    "-show_entries",
    "stream=codec_name,sample_rate,channels:format=duration",
    "-of",
    "json",
    file,
  ])
  expect(out.exitCode).toBe(0)
  const info = JSON.parse(out.stdout.toString())
  const pcm = Bun.spawnSync(["ffmpeg", "-v", "error", "-i", file, "-f", "s16le", "-ac", "1", "-"])
  expect(pcm.exitCode).toBe(0)
  expect(pcm.stderr.toString()).toBe("") // decodes without a complaint
  const samples = new Int16Array(pcm.stdout.buffer, pcm.stdout.byteOffset, pcm.stdout.byteLength >> 1)
  return { stream: info.streams[0], duration: Number(info.format.duration), samples }
}

const rms = (s: Int16Array, from: number, to: number) => {
  const part = s.subarray(Math.max(0, Math.round(from * 22050)), Math.round(to * 22050))
  return Math.sqrt(part.reduce((sum, v) => sum + v * v, 0) / Math.max(1, part.length))
}

const paragraph =
  "The harbour master walked along the quay before sunrise. Ships waited outside the breakwater, their lights swaying in the swell, while gulls circled above the fish market and the first carts rolled over the cobbles. Nobody spoke. "

test("a Markdown document becomes an MP3 whose cues match the audio and give back the text", async () => {
  const doc = readDocument(
    `---\ntitle: Morning\n---\n${paragraph.repeat(5)}\n\n- A list item\n- [A link](https://example.com) & more`,
  )
  const sentences = planSpeech(doc.blocks)
  const speech = await backend.synthesize(sentences, voiceOf(doc.attributes, "en-US-EmmaMultilingualNeural"))
  expect(speech.backend).toBe("espeak")

  const { stream, duration, samples } = probe(speech.mp3, "doc.mp3")
  expect(stream).toEqual({ codec_name: "mp3", sample_rate: "22050", channels: 1 })
  expect(duration).toBeGreaterThan(35) // long enough for more than one encoded segment
  expect(Math.abs(duration - speech.cues.at(-1)!.end)).toBeLessThan(0.2)

  expect(speech.cues.map((c) => c.text).join(" ")).toBe(doc.blocks.join(" "))
  expect(speech.cues.map((c) => c.text)).toEqual(sentences.flat())
  speech.cues.forEach((cue, i) => {
    expect(cue.end).toBeGreaterThan(cue.start)
    if (i > 0) expect(cue.start).toBeGreaterThanOrEqual(speech.cues[i - 1]!.end)
  })

  // Each sentence is preceded by the previous one's pause and opens with speech: the cue times sit
  // on the audio itself, across the joins between encoded segments too.
  let cue = 0
  for (const pieces of sentences) {
    const { start } = speech.cues[cue]!
    cue += pieces.length
    if (start < 0.2) continue
    expect(rms(samples, start - 0.08, start - 0.01)).toBeLessThan(300)
    expect(rms(samples, start, start + 0.4)).toBeGreaterThan(1000)
  }
}, 60_000)

test("long sentences are split into pieces timed by the back end's word events", async () => {
  const sentence =
    "When the tide turned, the fishing boats that had waited in the bay since dawn came in one after another, and the crews, tired but glad, tied up at the quay."
  const pieces = planSpeech([sentence])[0]!
  expect(pieces.length).toBeGreaterThan(1)
  const speech = await backend.synthesize([pieces], voiceOf({}, "en-US-EmmaMultilingualNeural"))
  const { samples } = probe(speech.mp3, "long.mp3")
  for (const cue of speech.cues.slice(1)) {
    // a piece starts on a word, after the comma's short pause: sound follows within a moment
    expect(rms(samples, cue.start, cue.start + 0.25)).toBeGreaterThan(500)
  }
  expect(speech.cues.length).toBe(pieces.length)
}, 60_000)

test("rate changes the speech itself; a language espeak-ng lacks is a 400", async () => {
  const sentence = [["The harbour master walked along the quay before sunrise."]]
  const fast = await backend.synthesize(sentence, voiceOf({ rate: "+80%" }, "en-US-EmmaMultilingualNeural"))
  const slow = await backend.synthesize(sentence, voiceOf({ rate: "-40%" }, "en-US-EmmaMultilingualNeural"))
  expect(slow.cues[0]!.end).toBeGreaterThan(fast.cues[0]!.end * 1.8)
  const german = await backend.synthesize(
    [["Guten Morgen."]],
    voiceOf({ voice: "de-DE-KatjaNeural" }, "en-US-EmmaMultilingualNeural"),
  )
  expect(german.cues).toHaveLength(1)
  const missing = await backend
    .synthesize(sentence, voiceOf({ lang: "xx-YY" }, "en-US-EmmaMultilingualNeural"))
    .catch((err) => err)
  expect(missing).toBeInstanceOf(DomainError)
  expect(missing.kind).toBe("invalid")
  expect(missing.message).toContain('no offline voice speaks the language "xx-YY"')
}, 60_000)

test("syntheses running at once interleave sentence by sentence without mixing voices or audio", async () => {
  const a = planSpeech([paragraph.repeat(4)])
  const b = planSpeech(["Quite another text, read slowly. ".repeat(12)])
  const fast = voiceOf({ rate: "+50%" }, "en-US-EmmaMultilingualNeural")
  const slow = voiceOf({ rate: "-40%", pitch: "-20Hz" }, "en-US-EmmaMultilingualNeural")
  const aloneA = await backend.synthesize(a, fast)
  const aloneB = await backend.synthesize(b, slow)
  const [togetherA, togetherB] = await Promise.all([backend.synthesize(a, fast), backend.synthesize(b, slow)])
  // A cue's length varies a little between runs (espeak-ng's own jitter, a segment join landing
  // elsewhere); a sentence spoken with the other request's voice would take about twice or half as long.
  const lengths = (s: { cues: { start: number; end: number }[] }) => s.cues.map((c) => c.end - c.start)
  for (const [together, alone] of [
    [togetherA, aloneA],
    [togetherB, aloneB],
  ] as const) {
    expect(together.cues.map((c) => c.text)).toEqual(alone.cues.map((c) => c.text))
    lengths(together).forEach((length, i) =>
      expect(Math.abs(length - lengths(alone)[i]!)).toBeLessThan(0.25 * lengths(alone)[i]!),
    )
    expect(Math.abs(probe(together.mp3, "together.mp3").duration - together.cues.at(-1)!.end)).toBeLessThan(0.2)
  }
}, 60_000)
