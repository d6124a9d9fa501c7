// The loop every offline (PCM) back end shares, in the worker process: each sentence is spoken in one
// call (a very long one in runs of pieces, so that no back end call gets an unbounded text), the
// back end's own word timings place each cue piece in the sentence's samples, and the audio is encoded
// to MP3 on worker threads in segments of about half a minute while the next sentences are spoken.
import { DECODER_DELAY, type Mp3Encoder } from "./encoder.ts"
import type { Cue, SpeechBackend } from "./types.ts"
import { mp3Info } from "./mp3.ts"
import type { Voice } from "./voice.ts"

/** What one back end call gives back: the audio and where each piece starts in it. */
export interface SpokenRun {
  chunks: Int16Array[]
  samples: number
  /** Sample offset of each piece's start, ascending, the first 0. */
  starts: number[]
}

export interface PcmVoice {
  readonly name: string
  readonly sampleRate: number
  /** Speaks `pieces` (joined with spaces) in one call. Throws an invalid error for a language it lacks. */
  speak(pieces: readonly string[], voice: Voice): SpokenRun
}

/** The longest text handed to a back end in one call; longer sentences are spoken in runs of pieces. */
export const MAX_RUN_CHARS = 600

export function runsOf(pieces: readonly string[], max = MAX_RUN_CHARS): string[][] {
  const runs: string[][] = []
  let size = Infinity
  for (const piece of pieces) {
    if (size + piece.length + 1 > max) {
      runs.push([])
      size = 0
    }
    runs.at(-1)!.push(piece)
    size += piece.length + 1
  }
  return runs
}

/** Volume in percent (-100..+100) applied to the samples, clipped. */
export function applyVolume(chunks: Int16Array[], volume: number): void {
  if (volume === 0) return
  const gain = 1 + volume / 100
  for (const chunk of chunks)
    for (let i = 0; i < chunk.length; i++) chunk[i] = Math.max(-32768, Math.min(32767, Math.round(chunk[i]! * gain)))
}

const concat = <T extends Int16Array | Uint8Array>(parts: T[], make: (n: number) => T): T => {
  const out = make(parts.reduce((n, p) => n + p.length, 0))
  parts.reduce((at, p) => (out.set(p, at), at + p.length), 0)
  return out
}
export const concatBytes = (parts: Uint8Array[]) => concat(parts, (n) => new Uint8Array(n))

/** Samples per MP3 segment handed to the encoder: about 30 s. */
const SEGMENT_SECONDS = 30

export function pcmBackend(load: () => PcmVoice, encoder: Mp3Encoder): SpeechBackend {
  return {
    name: "pcm",
    async synthesize(sentences, voice) {
      const backend = load()
      const segments: Promise<Uint8Array>[] = []
      const placed: { segment: number; start: number; end: number; text: string }[] = []
      let chunks: Int16Array[] = []
      let filled = 0
      const flush = () => {
        segments.push(
          encoder.encode(
            concat(chunks, (n) => new Int16Array(n)),
            backend.sampleRate,
          ),
        )
        chunks = []
        filled = 0
      }
      for (const sentence of sentences) {
        for (const pieces of runsOf(sentence)) {
          const spoken = backend.speak(pieces, voice)
          applyVolume(spoken.chunks, voice.volume)
          pieces.forEach((text, k) =>
            placed.push({
              segment: segments.length,
              start: filled + spoken.starts[k]!,
              end: filled + (spoken.starts[k + 1] ?? spoken.samples),
              text,
            }),
          )
          chunks.push(...spoken.chunks)
          filled += spoken.samples
          if (filled >= SEGMENT_SECONDS * backend.sampleRate) flush()
          if (segments.length > encoder.threads * 2) await segments[segments.length - encoder.threads * 2 - 1]
        }
      }
      if (filled > 0 || segments.length === 0) flush()
      const mp3s = await Promise.all(segments)
      const offsets = [0] // where each segment starts in the decoded audio
      for (const mp3 of mp3s) offsets.push(offsets.at(-1)! + mp3Info(mp3).samples)
      const at = (segment: number, sample: number) => (offsets[segment]! + DECODER_DELAY + sample) / backend.sampleRate
      const cues: Cue[] = placed.map((p) => ({
        start: at(p.segment, p.start),
        end: at(p.segment, p.end),
        text: p.text,
      }))
      return { backend: backend.name, mp3: concatBytes(mp3s), cues }
    },
  }
}
