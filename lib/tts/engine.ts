// The speech engines behind one interface, and the choice among them (SVC_TTS_ENGINE).
import { edgeEngine } from "./edge.ts"
import { Mp3Encoder } from "./encoder.ts"
import { espeakEngine } from "./espeak.ts"
import type { Voice } from "./voice.ts"

/** One subtitle: seconds from the start of the audio. */
export interface Cue {
  start: number
  end: number
  text: string
}

export interface Speech {
  /** The engine that spoke ("espeak", "edge"). */
  engine: string
  mp3: Uint8Array
  /** One cue per piece, in order, times measured on the audio itself. */
  cues: Cue[]
}

export interface TtsEngine {
  readonly name: string
  /** Speaks the sentences (each a list of cue pieces) in order. */
  synthesize(sentences: readonly string[][], voice: Voice): Promise<Speech>
}

export type EngineChoice = "auto" | "edge" | "espeak"

/**
 * `auto`: the online engine first, the offline one when it fails. After a failure the online engine
 * rests for `restMs`, so that without a network every request goes straight to the offline engine.
 */
export function fallback(primary: TtsEngine, secondary: TtsEngine, restMs = 60_000, now: () => number = Date.now): TtsEngine {
  let restUntil = 0
  return {
    name: "auto",
    async synthesize(sentences, voice) {
      if (now() >= restUntil) {
        try {
          return await primary.synthesize(sentences, voice)
        } catch (err) {
          restUntil = now() + restMs
          console.warn(`tts: ${primary.name} failed (${err instanceof Error ? err.message : String(err)}); using ${secondary.name} for ${restMs / 1000} s`)
        }
      }
      return secondary.synthesize(sentences, voice)
    },
  }
}

/** The engine SVC_TTS_ENGINE names; `auto` is Edge with espeak-ng behind it. */
export function engineFor(choice: EngineChoice, edgeTimeoutMs: number): TtsEngine {
  if (choice === "edge") return edgeEngine(edgeTimeoutMs)
  const espeak = espeakEngine(new Mp3Encoder())
  return choice === "espeak" ? espeak : fallback(edgeEngine(edgeTimeoutMs), espeak)
}
