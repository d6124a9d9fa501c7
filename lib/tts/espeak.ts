// espeak-ng (Debian libespeak-ng1) through its C API with bun:ffi, for the languages flite lacks. It
// runs in a speech worker process (lib/tts/worker.ts), never in the service's own: espeak-ng 1.51
// overflows its stack on some inputs (a run of 85 "x." pairs) and takes its process down. Each run of
// pieces is synthesised in one synchronous call; the back end's word events (with their sample
// positions) time the pieces.
import { dlopen, FFIType, JSCallback, read, toArrayBuffer, type Pointer } from "bun:ffi"
import { invalid, unavailable } from "../errors/errors.ts"
import type { Mp3Encoder } from "./encoder.ts"
import type { SpeechBackend } from "./types.ts"
import { pcmBackend, type PcmVoice, type SpokenRun } from "./pcm.ts"
import { espeakVoice } from "./lang.ts"
import type { Voice } from "./voice.ts"
const AUDIO_OUTPUT_SYNCHRONOUS = 2
const INITIALIZE_DONT_EXIT = 0x8000
const CHARS_UTF8 = 1
const ENDPAUSE = 0x1000
const EVENT_LIST_TERMINATED = 0
const EVENT_WORD = 1
const EVENT_SIZE = 40 // sizeof(espeak_EVENT) on 64-bit: 6 ints, a pointer, an 8-byte union
const PARAM = { rate: 1, volume: 2, pitch: 3 }

interface Spoken {
  chunks: Int16Array[]
  samples: number
  /** Word starts: character position (1-based, in code points) and sample offset in the sentence. */
  words: { position: number; sample: number }[]
}

/** The loaded library: one per process, as espeak-ng keeps its state in globals. */
class Espeak implements PcmVoice {
  readonly name = "espeak"
  private sink: Spoken = { chunks: [], samples: 0, words: [] }
  private voiceKey = ""
  private readonly lib
  private readonly callback: JSCallback
  readonly sampleRate: number

  constructor() {
    this.lib = dlopen("libespeak-ng.so.1", {
      espeak_Initialize: { args: [FFIType.i32, FFIType.i32, FFIType.ptr, FFIType.i32], returns: FFIType.i32 },
      espeak_SetSynthCallback: { args: [FFIType.function], returns: FFIType.void },
      espeak_SetVoiceByName: { args: [FFIType.cstring], returns: FFIType.i32 },
      espeak_SetParameter: { args: [FFIType.i32, FFIType.i32, FFIType.i32], returns: FFIType.i32 },
      espeak_Synth: {
        args: [FFIType.ptr, FFIType.u64, FFIType.u32, FFIType.i32, FFIType.u32, FFIType.u32, FFIType.ptr, FFIType.ptr],
        returns: FFIType.i32,
      },
    })
    this.sampleRate = this.lib.symbols.espeak_Initialize(AUDIO_OUTPUT_SYNCHRONOUS, 200, null, INITIALIZE_DONT_EXIT)
    if (this.sampleRate <= 0) throw new Error("espeak_Initialize failed (is espeak-ng-data installed?)")
    this.callback = new JSCallback(
      (wav: Pointer | null, count: number, events: Pointer | null) => this.receive(wav, count, events),
      {
        args: [FFIType.ptr, FFIType.i32, FFIType.ptr],
        returns: FFIType.i32,
      },
    )
    this.lib.symbols.espeak_SetSynthCallback(this.callback)
  }

  private receive(wav: Pointer | null, count: number, events: Pointer | null): number {
    if (events !== null) {
      for (let p: Pointer = events; read.i32(p, 0) !== EVENT_LIST_TERMINATED; p = (p + EVENT_SIZE) as Pointer) {
        if (read.i32(p, 0) === EVENT_WORD) this.sink.words.push({ position: read.i32(p, 8), sample: read.i32(p, 20) })
      }
    }
    if (wav && count > 0) {
      this.sink.chunks.push(new Int16Array(toArrayBuffer(wav, 0, count * 2).slice(0)))
      this.sink.samples += count
    }
    return 0
  }

  /** Selects the voice for `lang` (e.g. "en-GB", then "en") and the prosody, when they changed. */
  select(voice: Voice): void {
    const key = JSON.stringify([voice.lang, voice.rate, voice.pitch, voice.volume])
    if (key === this.voiceKey) return
    const name = espeakVoice(voice.lang)
    if (!name || this.lib.symbols.espeak_SetVoiceByName(Buffer.from(`${name}\0`)) !== 0) {
      throw invalid(`no offline voice speaks the language "${voice.lang}"`, "unsupported_language")
    }
    const clamp = (n: number, lo: number, hi: number) => Math.min(hi, Math.max(lo, Math.round(n)))
    this.lib.symbols.espeak_SetParameter(PARAM.rate, clamp(175 * (1 + voice.rate / 100), 80, 450), 0)
    this.lib.symbols.espeak_SetParameter(PARAM.pitch, clamp(50 + voice.pitch, 0, 100), 0)
    this.lib.symbols.espeak_SetParameter(PARAM.volume, clamp(100 * (1 + voice.volume / 100), 0, 200), 0)
    this.voiceKey = key
  }

  /** Speaks one text synchronously. */
  private synth(text: string): Spoken {
    this.sink = { chunks: [], samples: 0, words: [] }
    const bytes = Buffer.from(`${text}\0`)
    const status = this.lib.symbols.espeak_Synth(bytes, bytes.length, 0, 0, 0, CHARS_UTF8 | ENDPAUSE, null, null)
    if (status !== 0) throw new Error(`espeak_Synth failed with status ${status}`)
    return this.sink
  }

  speak(pieces: readonly string[], voice: Voice): SpokenRun {
    this.select(voice)
    const spoken = this.synth(pieces.join(" "))
    return { chunks: spoken.chunks, samples: spoken.samples, starts: pieceStarts(pieces, spoken) }
  }
}

let loaded: Espeak | undefined
function espeak(): Espeak {
  try {
    return (loaded ??= new Espeak())
  } catch (err) {
    throw unavailable(
      `espeak-ng cannot be used: ${err instanceof Error ? err.message : String(err)} (Debian packages espeak-ng, libespeak-ng1)`,
      "tts_unavailable",
    )
  }
}

/** Where each piece starts in the sentence's samples: at the back end's event for its first word. */
function pieceStarts(pieces: readonly string[], spoken: Spoken): number[] {
  let offset = 0 // code points before the piece; espeak-ng counts positions from 1
  let previous = 0
  return pieces.map((piece, k) => {
    const word = k === 0 ? 0 : (spoken.words.find((w) => w.position - 1 >= offset)?.sample ?? spoken.samples)
    offset += [...piece].length + 1
    return (previous = Math.min(Math.max(word, previous), spoken.samples))
  })
}

/** espeak-ng for every language it has. */
export function espeakBackend(encoder: Mp3Encoder): SpeechBackend {
  return pcmBackend(espeak, encoder)
}
