import { afterEach, expect, test } from "bun:test"
import { loadConfig } from "#lib/service/config.ts"
import { upstream, type DomainError } from "#lib/errors/errors.ts"
import { fallback } from "#lib/tts/backend.ts"
import type { SpeechBackend } from "#lib/tts/types.ts"
import { Speaker } from "#lib/tts/speaker.ts"
import type { Voice } from "#lib/tts/voice.ts"
import { testApp, type TestApp } from "../../support/app.ts"
import { parseVtt } from "../../support/webvtt.ts"

let t: TestApp
afterEach(() => {
  t.close()
  speaker?.close()
})
let speaker: Speaker | undefined

const MP3 = new Uint8Array([0xff, 0xf3, 0x60, 0xc4, 1, 2, 3])

/** A back end that records what it was asked and speaks each piece for one second. */
function fakeBackend(fail?: DomainError, name = "fake") {
  const calls: { sentences: string[][]; voice: Voice }[] = []
  const backend: SpeechBackend = {
    name,
    async synthesize(sentences, voice) {
      calls.push({ sentences: sentences.map((s) => [...s]), voice })
      if (fail) throw fail
      return { backend: name, mp3: MP3, cues: sentences.flat().map((text, i) => ({ start: i, end: i + 1, text })) }
    },
  }
  return { backend, calls }
}

async function app(env: Record<string, string>, backend: SpeechBackend) {
  speaker = new Speaker(loadConfig(env).tts, backend)
  t = await testApp({ tts: speaker }, env)
}

test("Markdown with front matter: MP3 as base64, WebVTT cues, the back end named in a header", async () => {
  const { backend, calls } = fakeBackend()
  await app({}, backend)
  const text =
    '---\ntitle: Tides\nvoice: en-GB-SoniaNeural\nrate: "-10%"\nmood: calm\n---\n## High water\n\nAt *noon* & after.\n\n```\nskip()\n```\n'
  const res = await t.call("POST", "/api/synthesize", { text })
  expect(res.status).toBe(200)
  expect(res.headers.get("x-tts-engine")).toBe("fake")
  const body = await res.json()
  expect(Object.keys(body).sort()).toEqual(["audio_base64", "vtt"])
  expect(new Uint8Array(Buffer.from(body.audio_base64, "base64"))).toEqual(MP3)
  const vtt = parseVtt(body.vtt)
  expect(vtt.errors).toEqual([])
  expect(vtt.cues.map((c) => [c.startTime, c.endTime, c.text])).toEqual([
    [0, 1, "Tides."],
    [1, 2, "High water."],
    [2, 3, "At noon &amp; after."],
  ])
  expect(calls).toEqual([
    // the back end is given the text as said; the cues above keep it as written
    {
      sentences: [["Tides."], ["High water."], ["At noon and after."]],
      voice: { voice: "en-GB-SoniaNeural", lang: "en-GB", rate: -10, pitch: 0, volume: 0 },
    },
  ])
}, 60_000)

test("plain text is read as it is, with the configured default voice", async () => {
  const { backend, calls } = fakeBackend()
  await app({ SVC_TTS_VOICE: "fr-FR-DeniseNeural" }, backend)
  const res = await t.call("POST", "/api/synthesize", { text: "Bonjour. Ça va?" })
  expect(res.status).toBe(200)
  expect(calls[0]).toEqual({
    sentences: [["Bonjour."], ["Ça va?"]],
    voice: { voice: "fr-FR-DeniseNeural", lang: "fr-FR", rate: 0, pitch: 0, volume: 0 },
  })
}, 60_000)

test("missing, non-string, empty and oversized text, and bad front matter, are 400s that say why", async () => {
  const { backend, calls } = fakeBackend()
  await app({ SVC_TTS_MAX_CHARS: "100" }, backend)
  const cases: [unknown, string, string][] = [
    [{}, "invalid_request", "text"],
    [{ text: 42 }, "invalid_request", "text must be a string"],
    [{ text: "" }, "empty_text", "nothing to read"],
    [{ text: " \n\t " }, "empty_text", "nothing to read"],
    [{ text: "```\ncode only\n```" }, "empty_text", "nothing to read"],
    [{ text: "x".repeat(101) }, "text_too_long", "text has 101 characters; the limit is 100"],
    [{ text: "---\nrate: [oops\n---\nHi." }, "invalid_front_matter", "not valid YAML"],
    [{ text: "---\nrate: fast\n---\nHi." }, "invalid_front_matter", "rate must look like +10% or -20%"],
  ]
  for (const [body, code, message] of cases) {
    const res = await t.call("POST", "/api/synthesize", body)
    expect(res.status).toBe(400)
    const { error } = await res.json()
    expect(error.code).toBe(code)
    expect(error.message).toContain(message)
  }
  expect(calls).toEqual([])
}, 60_000)

test("a back end failure keeps its status: the online back end asked for explicitly is a 502", async () => {
  await app(
    {},
    fakeBackend(upstream("the Edge voice service failed: no answer within 5000 ms", "tts_engine_failed")).backend,
  )
  const res = await t.call("POST", "/api/synthesize", { text: "Hello." })
  expect(res.status).toBe(502)
  expect(await res.json()).toEqual({
    error: { code: "tts_engine_failed", message: "the Edge voice service failed: no answer within 5000 ms" },
  })
}, 60_000)

test("auto: the online back end failing, the offline one speaks the same sentences, and the header names it", async () => {
  const online = fakeBackend(
    upstream("the Edge voice service failed: no answer within 5000 ms", "tts_engine_failed"),
    "edge",
  )
  const offline = fakeBackend(undefined, "flite")
  await app({ SVC_TTS_ENGINE: "auto" }, fallback(online.backend, offline.backend))
  const spoken = async () => {
    const res = await t.call("POST", "/api/synthesize", { text: "Hello. Again." })
    expect(res.status).toBe(200)
    return res.headers.get("x-tts-engine")
  }
  expect(await spoken()).toBe("flite")
  expect(online.calls.map((c) => c.sentences)).toEqual([[["Hello."], ["Again."]]])
  expect(offline.calls).toEqual(online.calls)
  // the failed online back end rests: the next request goes straight to the offline one
  expect(await spoken()).toBe("flite")
  expect([online.calls.length, offline.calls.length]).toEqual([1, 2])
}, 60_000)

test("beyond the running and waiting syntheses: 503 tts_busy with a Retry-After header", async () => {
  let release!: () => void, running!: () => void
  const held = new Promise<void>((resolve) => (release = resolve))
  const first = new Promise<void>((resolve) => (running = resolve))
  const backend: SpeechBackend = {
    name: "slow",
    async synthesize(sentences) {
      running()
      await held
      return { backend: "slow", mp3: MP3, cues: sentences.flat().map((text, i) => ({ start: i, end: i + 1, text })) }
    },
  }
  await app({ SVC_TTS_CONCURRENCY: "1" }, backend)
  const admitted = Array.from({ length: 5 }, () => t.call("POST", "/api/synthesize", { text: "Hello." }))
  await first // the first has been planned in a worker meanwhile: the other four are waiting
  const refused = await t.call("POST", "/api/synthesize", { text: "Hello." })
  expect(refused.status).toBe(503)
  expect(Number(refused.headers.get("retry-after"))).toBeGreaterThanOrEqual(1)
  expect(await refused.json()).toEqual({
    error: { code: "tts_busy", message: "1 syntheses are running and 4 waiting; try again shortly" },
  })
  release()
  expect((await Promise.all(admitted)).map((r) => r.status)).toEqual([200, 200, 200, 200, 200])
}, 60_000)
