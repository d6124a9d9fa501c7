// Worker thread of the MP3 encoder (lib/tts/encoder.ts): 16-bit mono PCM in, one MP3 stream out.
import { createMp3Encoder } from "wasm-media-encoders"

declare const self: Worker

export interface EncodeRequest {
  id: number
  pcm: Int16Array
  sampleRate: number
  bitrate: 48
}
export type EncodeReply = { id: number; mp3: Uint8Array } | { id: number; error: string }

const BLOCK = 65536
const encoder = createMp3Encoder()

self.onmessage = async ({ data }: MessageEvent<EncodeRequest>) => {
  try {
    const enc = await encoder
    enc.configure({ channels: 1, sampleRate: data.sampleRate, bitrate: data.bitrate })
    const parts: Uint8Array[] = []
    const block = new Float32Array(BLOCK)
    for (let at = 0; at < data.pcm.length; at += BLOCK) {
      const n = Math.min(BLOCK, data.pcm.length - at)
      for (let i = 0; i < n; i++) block[i] = data.pcm[at + i]! / 32768
      parts.push(enc.encode([block.subarray(0, n)]).slice())
    }
    parts.push(enc.finalize().slice())
    const mp3 = new Uint8Array(parts.reduce((sum, p) => sum + p.length, 0))
    parts.reduce((at, p) => (mp3.set(p, at), at + p.length), 0)
    self.postMessage({ id: data.id, mp3 } satisfies EncodeReply, [mp3.buffer])
  } catch (err) {
    self.postMessage({ id: data.id, error: err instanceof Error ? err.message : String(err) } satisfies EncodeReply)
  }
}
