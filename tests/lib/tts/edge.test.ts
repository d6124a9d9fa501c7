// The online back end against a local fake of the Edge read-aloud WebSocket protocol. The library's
// endpoint is hard-coded, so the WebSocket module it loads ("ws") is replaced by one that sends
// connections for speech.platform.bing.com to the fake instead.
import { afterAll, beforeEach, expect, mock, test } from "bun:test"
import type { ServerWebSocket, Socket } from "bun"
import { createRequire } from "node:module"
import { createMp3Encoder } from "wasm-media-encoders"
import { DomainError } from "#lib/errors/errors.ts"
import { mp3Info } from "#lib/tts/mp3.ts"
import { planSpeech } from "#lib/tts/sentences.ts"
import { voiceOf } from "#lib/tts/voice.ts"

const EDGE = "wss://speech.platform.bing.com/"
let target = "" // where Edge connections go in the current test
// The real module (its class, with WebSocketServer and the rest as properties), taken before the mock.
const RealWebSocket = createRequire(import.meta.url)("ws") as new (address: string, ...rest: unknown[]) => object
class RedirectedWebSocket extends RealWebSocket {
  constructor(address: string | URL, ...rest: unknown[]) {
    const url = String(address)
    super(url.startsWith(EDGE) ? target + new URL(url).search : url, ...rest)
  }
}
mock.module("ws", () => ({ ...RealWebSocket, default: RedirectedWebSocket, WebSocket: RedirectedWebSocket }))
const { CHUNK_BYTES, chunkPieces, cuesFromWords, edgeBackend } = await import("#lib/tts/edge.ts")

// ---- the fake service ------------------------------------------------------------------------
type Mode = "speak" | "forbidden" | "silent"
let mode: Mode = "speak"
let handshakes: { url: URL; headers: Headers }[] = []
let frames: string[][] = [] // text frames received, per connection
let closed = 0
const WORD_SECONDS = 0.3
const LEAD = 0.1

const encoder = await createMp3Encoder()
function silence(seconds: number): Uint8Array {
  encoder.configure({ channels: 1, sampleRate: 24000, bitrate: 48 })
  return Buffer.concat([
    encoder.encode([new Float32Array(Math.round(seconds * 24000))]).slice(),
    encoder.finalize().slice(),
  ])
}
const textFrame = (path: string, body: string) =>
  `X-RequestId:fake\r\nContent-Type:application/json; charset=utf-8\r\nPath:${path}\r\n\r\n${body}`
function audioFrame(data: Uint8Array): Uint8Array {
  const header = new TextEncoder().encode(
    "X-RequestId:fake\r\nContent-Type:audio/mpeg\r\nX-StreamId:1\r\nPath:audio\r\n",
  )
  return Buffer.concat([Buffer.from([header.length >> 8, header.length & 255]), header, data])
}
const unescapeXml = (s: string) =>
  s
    .replace(/&lt;/g, "<")
    .replace(/&gt;/g, ">")
    .replace(/&quot;/g, '"')
    .replace(/&apos;/g, "'")
    .replace(/&amp;/g, "&")

/** Speaks an SSML request as the service does: turn.start, audio, one word boundary per word, turn.end. */
function answer(ws: ServerWebSocket<{ id: number }>, ssml: string) {
  const text = unescapeXml(/<prosody[^>]*>([\s\S]*)<\/prosody>/.exec(ssml)![1]!)
  const words = text.split(/\s+/).filter(Boolean)
  ws.send(textFrame("turn.start", "{}"))
  const audio = silence(LEAD + words.length * WORD_SECONDS + 0.3)
  const half = mp3FrameBoundary(audio)
  ws.send(audioFrame(audio.subarray(0, half)))
  words.forEach((word, i) => {
    const Data = {
      Offset: Math.round((LEAD + i * WORD_SECONDS) * 1e7),
      Duration: 2_000_000,
      text: { Text: word.replace(/[^\p{L}\p{N}']/gu, ""), Length: word.length, BoundaryType: "WordBoundary" },
    }
    ws.send(textFrame("audio.metadata", JSON.stringify({ Metadata: [{ Type: "WordBoundary", Data }] })))
  })
  ws.send(audioFrame(audio.subarray(half)))
  ws.send(textFrame("turn.end", "{}"))
}
/** A frame start near the middle, so the audio arrives in two messages. */
function mp3FrameBoundary(mp3: Uint8Array): number {
  const size = Math.floor(((576 / 8) * 48_000) / 24_000)
  return size * Math.floor(mp3.length / size / 2)
}

const server = Bun.serve<{ id: number }>({
  port: 0,
  fetch(req, srv) {
    handshakes.push({ url: new URL(req.url), headers: req.headers })
    if (mode === "forbidden") return new Response("Forbidden", { status: 403 })
    frames.push([])
    return srv.upgrade(req, { data: { id: frames.length - 1 } })
      ? undefined
      : new Response("upgrade failed", { status: 400 })
  },
  websocket: {
    message(ws, message) {
      const text = String(message)
      frames[ws.data.id]!.push(text)
      if (mode === "speak" && text.includes("Path:ssml")) answer(ws, text.slice(text.indexOf("<speak")))
    },
    close() {
      closed++
    },
  },
})
// A TCP server that accepts and never answers: a handshake that stalls.
const stalled: Socket[] = []
const tarpit = Bun.listen({
  hostname: "127.0.0.1",
  port: 0,
  socket: { open: (s) => void stalled.push(s), data() {}, close: () => void closed++ },
})
afterAll(() => {
  server.stop(true)
  tarpit.stop(true)
})

beforeEach(() => {
  mode = "speak"
  target = `ws://127.0.0.1:${server.port}/edge`
  handshakes = []
  frames = []
  closed = 0
})

const voice = voiceOf(
  { voice: "de-DE-KatjaNeural", rate: "-20%", pitch: "+5Hz", volume: "+10%" },
  "en-US-EmmaMultilingualNeural",
)

async function failure(promise: Promise<unknown>): Promise<DomainError> {
  const err = await promise.then(
    () => new Error("expected a failure"),
    (e) => e,
  )
  expect(err).toBeInstanceOf(DomainError)
  return err as DomainError
}

// ---- tests ------------------------------------------------------------------------------------
test("request frames: the handshake, speech.config, then SSML with the voice, prosody and escaped text", async () => {
  const speech = await edgeBackend(10_000).synthesize([["Fish & chips <b>now</b>, \"quoted\" and 'single'."]], voice)
  expect(speech.backend).toBe("edge")
  expect(handshakes).toHaveLength(1)
  const { url, headers } = handshakes[0]!
  expect(url.searchParams.get("TrustedClientToken")).toMatch(/^[0-9A-F]{32}$/)
  expect(url.searchParams.get("Sec-MS-GEC")).toMatch(/^[0-9A-F]{64}$/)
  expect(url.searchParams.get("ConnectionId")).toMatch(/^[0-9a-f]{32}$/)
  expect(headers.get("origin")).toBe("chrome-extension://jdiccldimpdaibmpdkjnbmckianbfold")
  expect(headers.get("user-agent")).toContain("Edg/")

  const [config, ssml] = frames[0]!
  expect(config).toContain("Path:speech.config\r\n")
  const settings = JSON.parse(config!.slice(config!.indexOf("\r\n\r\n") + 4))
  expect(settings.context.synthesis.audio).toEqual({
    metadataoptions: { sentenceBoundaryEnabled: "false", wordBoundaryEnabled: "true" },
    outputFormat: "audio-24khz-48kbitrate-mono-mp3",
  })
  expect(ssml).toMatch(
    /^X-RequestId:[0-9a-f]{32}\r\nContent-Type:application\/ssml\+xml\r\nX-Timestamp:.+\r\nPath:ssml\r\n\r\n<speak /,
  )
  expect(ssml).toContain("<voice name='Microsoft Server Speech Text to Speech Voice (de-DE, KatjaNeural)'>")
  expect(ssml).toContain("<prosody pitch='+5Hz' rate='-20%' volume='+10%'>")
  expect(ssml).toContain(
    "Fish &amp; chips &lt;b&gt;now&lt;/b&gt;, &quot;quoted&quot; and &apos;single&apos;.</prosody>",
  )
  expect(closed).toBe(1)
})

test("word boundaries become cues; audio from all messages is kept and measured", async () => {
  const sentences = [["The first sentence is short."], ["A second one,", "split in two pieces."]]
  const speech = await edgeBackend(10_000).synthesize(sentences, voice)
  const seconds = mp3Info(speech.mp3).seconds
  expect(seconds).toBeGreaterThan(LEAD + 12 * WORD_SECONDS)
  const at = (word: number) => LEAD + word * WORD_SECONDS
  expect(speech.cues).toEqual([
    { start: 0, end: at(5), text: "The first sentence is short." },
    { start: at(5), end: at(8), text: "A second one," },
    { start: at(8), end: seconds, text: "split in two pieces." },
  ])
})

test("long texts go in chunks under the size limit, each chunk's cues shifted by the audio before it", async () => {
  const paragraph = "The harbour master walked along the quay before sunrise, counting the boats. ".repeat(80)
  const sentences = planSpeech([paragraph])
  const chunks = chunkPieces(sentences.flat())
  expect(chunks.length).toBeGreaterThan(1)
  const speech = await edgeBackend(10_000).synthesize(sentences, voice)
  expect(handshakes).toHaveLength(chunks.length)
  for (const connection of frames)
    expect(
      Buffer.byteLength(connection[1]!.replace(/^[\s\S]*<prosody[^>]*>|<\/prosody>[\s\S]*$/g, "")),
    ).toBeLessThanOrEqual(CHUNK_BYTES)
  expect(speech.cues.map((c) => c.text)).toEqual(sentences.flat())
  const firstChunkAudio = LEAD + chunks[0]!.join(" ").split(" ").length * WORD_SECONDS + 0.3
  const second = speech.cues[chunks[0]!.length]!
  expect(second.start).toBeGreaterThan(firstChunkAudio) // after the whole first chunk's audio...
  expect(second.start).toBeLessThan(firstChunkAudio + 0.2) // ...as measured from its MP3 frames
  speech.cues.forEach((c, i) => i > 0 && expect(c.start).toBeGreaterThanOrEqual(speech.cues[i - 1]!.end))
  expect(Math.abs(speech.cues.at(-1)!.end - mp3Info(speech.mp3).seconds)).toBeLessThan(1e-9)
}, 60_000)

test("a 403 from the service is a 502 naming it", async () => {
  mode = "forbidden"
  const err = await failure(edgeBackend(10_000).synthesize([["Hello."]], voice))
  expect(err.kind).toBe("upstream")
  expect(err.message).toContain("403")
  expect(err.message).not.toContain("no answer")
})

test("a name that does not resolve is a 502 naming the DNS failure", async () => {
  target = "ws://edge-tts.invalid/edge"
  const err = await failure(edgeBackend(10_000).synthesize([["Hello."]], voice))
  expect(err.kind).toBe("upstream")
  expect(err.message).toMatch(/ENOTFOUND|EAI_AGAIN|resolve|DNS/i)
  expect(err.message).not.toContain("no answer")
})

test("a service that accepts but never answers hits the deadline, and the connection is closed", async () => {
  mode = "silent"
  const err = await failure(edgeBackend(300).synthesize([["Hello."]], voice))
  expect(err.kind).toBe("upstream")
  expect(err.message).toBe("the Edge voice service failed: no answer within 300 ms")
  for (let i = 0; i < 100 && closed === 0; i++) await Bun.sleep(10)
  expect(closed).toBe(1)
})

test("a handshake that stalls hits the deadline too", async () => {
  target = `ws://127.0.0.1:${tarpit.port}/edge`
  const err = await failure(edgeBackend(300).synthesize([["Hello."]], voice))
  expect(err.message).toBe("the Edge voice service failed: no answer within 300 ms")
  expect(stalled.length).toBe(1)
  for (let i = 0; i < 100 && closed === 0; i++) await Bun.sleep(10)
  expect(closed).toBe(1)
})

test("cues from words: pieces without a spoken word take no time of their own", () => {
  const words = [
    { offset: 0.1, text: "One" },
    { offset: 0.5, text: "two" },
    { offset: 1.2, text: "four" },
  ]
  expect(cuesFromWords(["One two,", "—", "four."], words, 2)).toEqual([
    { start: 0, end: 1.2, text: "One two," },
    { start: 1.2, end: 1.2, text: "—" },
    { start: 1.2, end: 2, text: "four." },
  ])
})
