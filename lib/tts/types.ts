// What a speech back end is and what it answers: the types every back end, the pool's workers and the
// speaker share. Imports no back end.
import type { Voice } from "./voice.ts"

/** One subtitle: seconds from the start of the audio. */
export interface Cue {
  start: number
  end: number
  text: string
}

export interface Speech {
  /** The back end that spoke ("flite", "espeak", "edge"). */
  backend: string
  mp3: Uint8Array
  /** The MP3 as base64 (ASCII bytes), when the back end made it already (the worker processes do). */
  base64?: Uint8Array
  /** One cue per piece, in order, times measured on the audio itself. */
  cues: Cue[]
}

export interface SpeechBackend {
  readonly name: string
  /** Speaks the sentences (each a list of cue pieces) in order. */
  synthesize(sentences: readonly string[][], voice: Voice): Promise<Speech>
}

/**
 * `offline`: flite for English, espeak-ng for other languages; `espeak`: espeak-ng for all; `edge`:
 * the online voices; `auto`: edge, and `offline` when it fails.
 */
export type BackendChoice = "auto" | "edge" | "offline" | "espeak"

/** `offline`: flite for English, espeak-ng for the rest; `espeak`: espeak-ng for all. */
export type OfflineChoice = "offline" | "espeak"
