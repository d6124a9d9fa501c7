// MP3 encoding in-process (LAME compiled to WebAssembly, `wasm-media-encoders`) on up to two worker
// threads, so a long text encodes on two cores while the event loop stays free. Each call encodes one
// independent MP3 stream; streams concatenate into one playable file.
import type { EncodeReply, EncodeRequest } from "./encoder-worker.ts"

/** Constant bitrate for speech, mono: 48 kbit/s. */
export const BITRATE = 48
/**
 * Samples of silence a decoder plays before the first input sample of a stream: LAME's encoder delay
 * (576) plus the decoder's (529). Checked by decoding a click with ffmpeg.
 */
export const DECODER_DELAY = 1105

/**
 * The worker's module. A compiled binary (`bun build --compile`, which must list this file as an
 * entrypoint) keeps it under its own root, where import.meta.url names the binary itself.
 */
export const ENCODER_WORKER = import.meta.url.startsWith("file:///$bunfs/")
  ? new URL("lib/tts/encoder-worker.ts", import.meta.url)
  : new URL("./encoder-worker.ts", import.meta.url)

/** Bun's Worker: a DOM Worker that can also stop holding the process open. */
type Thread = Worker & { ref(): void; unref(): void }

interface Slot {
  worker: Thread
  pending: Map<number, { resolve(mp3: Uint8Array): void; reject(err: Error): void }>
}

export class Mp3Encoder {
  private slots: Slot[] = []
  private nextId = 1

  constructor(readonly threads = Math.max(1, Math.min(2, navigator.hardwareConcurrency))) {}

  /** Encodes `pcm` (mono, 16-bit) as one MP3 stream; the array is handed over to the worker. */
  encode(pcm: Int16Array, sampleRate: number): Promise<Uint8Array> {
    const slot = this.slot()
    const id = this.nextId++
    return new Promise((resolve, reject) => {
      slot.pending.set(id, { resolve, reject })
      slot.worker.ref()
      slot.worker.postMessage({ id, pcm, sampleRate, bitrate: BITRATE } satisfies EncodeRequest, [pcm.buffer])
    })
  }

  /** The least busy worker, started on first use. */
  private slot(): Slot {
    const idle = this.slots.find((s) => s.pending.size === 0)
    if (idle || this.slots.length >= this.threads)
      return idle ?? this.slots.reduce((a, b) => (b.pending.size < a.pending.size ? b : a))
    const slot: Slot = { worker: new Worker(ENCODER_WORKER) as Thread, pending: new Map() }
    slot.worker.onmessage = ({ data }: MessageEvent<EncodeReply>) => {
      const job = slot.pending.get(data.id)
      slot.pending.delete(data.id)
      if (slot.pending.size === 0) slot.worker.unref()
      if ("mp3" in data) job?.resolve(data.mp3)
      else job?.reject(new Error(`MP3 encoding failed: ${data.error}`))
    }
    slot.worker.onerror = (event) => {
      this.slots = this.slots.filter((s) => s !== slot)
      for (const job of slot.pending.values()) job.reject(new Error(`MP3 encoder worker failed: ${event.message}`))
      slot.worker.terminate()
    }
    this.slots.push(slot)
    return slot
  }
}
