// The online back end: Microsoft Edge's read-aloud voices through `edge-tts-universal`. The text goes in
// chunks under the service's message size, one connection each; every wait on the service has a
// deadline (the library waits forever on a connection that stalls); word boundaries from the service
// time the cues, and each chunk's cues are shifted by the measured length of the audio before it.
import { UniversalCommunicate } from "edge-tts-universal"
import { upstream } from "../errors/errors.ts"
import type { Cue, SpeechBackend } from "./types.ts"
import { mp3Info } from "./mp3.ts"
import { signed, type Voice } from "./voice.ts"

/** Escaped text bytes per request (the library's own limit is 4096; a piece is never split). */
export const CHUNK_BYTES = 4000

export interface Word {
  /** Seconds from the start of the chunk's audio. */
  offset: number
  text: string
}

const XML_ESCAPES: Record<string, string> = { "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&apos;" }
const escapeXml = (text: string) => text.replace(/[&<>"']/g, (c) => XML_ESCAPES[c]!)

/** Consecutive pieces grouped so that each group's escaped text stays within `limit` bytes. */
export function chunkPieces(pieces: readonly string[], limit = CHUNK_BYTES): string[][] {
  const chunks: string[][] = []
  let size = 0
  for (const piece of pieces) {
    const n = Buffer.byteLength(escapeXml(piece)) + 1
    if (chunks.length === 0 || size + n > limit) {
      chunks.push([])
      size = 0
    }
    chunks.at(-1)!.push(piece)
    size += n
  }
  return chunks
}

const normalize = (s: string) => s.toLowerCase().replace(/[^\p{L}\p{N}]/gu, "")

/**
 * Cues for one chunk from the service's word boundaries: a piece starts where its first spoken word
 * starts and ends where the next piece starts; the last one ends with the chunk's audio.
 */
export function cuesFromWords(pieces: readonly string[], words: readonly Word[], seconds: number): Cue[] {
  const parts = pieces.map(normalize)
  let length = 0
  const bounds = parts.map((p) => (length += p.length) - p.length) // where each piece starts in `text`
  const text = parts.join("")
  const starts: (number | undefined)[] = pieces.map(() => undefined)
  let cursor = 0
  for (const word of words) {
    const w = normalize(word.text)
    const at = w ? text.indexOf(w, cursor) : -1
    if (at < 0) continue
    cursor = at + w.length
    const piece = bounds.findLastIndex((b) => b <= at)
    starts[piece] ??= word.offset
  }
  starts[0] = 0 // the first cue opens the audio, with its leading silence
  for (let k = pieces.length - 1; k > 0; k--) starts[k] ??= starts[k + 1] ?? seconds
  return pieces.map((text, k) => ({ start: starts[k]!, end: starts[k + 1] ?? seconds, text }))
}

/**
 * Two internals of the library's client, adjusted: the text goes out XML-escaped as written (the client
 * itself deletes characters such as & % + ( ) from it), and the socket is kept so that a deadline can
 * close it (the client polls a stalled socket forever). tests/lib/tts/edge.test.ts checks both.
 */
interface ClientInternals {
  texts: Iterator<Uint8Array>
  createWebSocket(url: string): Promise<{ close(): void }>
}

async function speakChunk(
  text: string,
  voice: Voice,
  timeoutMs: number,
): Promise<{ audio: Uint8Array; seconds: number; words: Word[] }> {
  const communicate = new UniversalCommunicate("", {
    voice: voice.voice,
    rate: signed(voice.rate, "%"),
    pitch: signed(voice.pitch, "Hz"),
    volume: signed(voice.volume, "%"),
  })
  const client = communicate as unknown as ClientInternals
  client.texts = [new TextEncoder().encode(escapeXml(text))][Symbol.iterator]()
  let socket: { close(): void } | undefined
  const open = client.createWebSocket.bind(communicate)
  client.createWebSocket = async (url) => (socket = await open(url))
  const stream = communicate.stream()
  const audio: Uint8Array[] = []
  const words: Word[] = []
  try {
    for (;;) {
      let timer: Timer | undefined
      const timeout = new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new Error(`no answer within ${timeoutMs} ms`)), timeoutMs)
      })
      const next = await Promise.race([stream.next(), timeout]).finally(() => clearTimeout(timer))
      if (next.done) break
      const chunk = next.value
      if (chunk.type === "audio" && chunk.data) audio.push(chunk.data)
      else if (chunk.type === "WordBoundary") words.push({ offset: (chunk.offset ?? 0) / 1e7, text: chunk.text ?? "" })
    }
    const mp3 = Buffer.concat(audio)
    return { audio: mp3, seconds: mp3Info(mp3).seconds, words }
  } catch (err) {
    socket?.close()
    const reason = (err as { message?: string } | undefined)?.message || String(err)
    throw upstream(`the Edge voice service failed: ${reason}`, "tts_engine_failed")
  }
}

export function edgeBackend(timeoutMs: number): SpeechBackend {
  return {
    name: "edge",
    async synthesize(sentences, voice) {
      const mp3s: Uint8Array[] = []
      const cues: Cue[] = []
      let offset = 0
      for (const pieces of chunkPieces(sentences.flat())) {
        const { audio, seconds, words } = await speakChunk(pieces.join(" "), voice, timeoutMs)
        for (const cue of cuesFromWords(pieces, words, seconds))
          cues.push({ start: offset + cue.start, end: offset + cue.end, text: cue.text })
        offset += seconds
        mp3s.push(audio)
      }
      return { backend: "edge", mp3: Buffer.concat(mp3s), cues }
    },
  }
}
