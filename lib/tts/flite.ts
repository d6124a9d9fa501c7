// flite (Debian libflite1, voice cmu_us_slt) through its C API with bun:ffi: the offline voice for
// English, far easier to understand than espeak-ng's (bench/tts-intelligibility.ts measures it). It
// runs in a speech worker process (lib/tts/worker.ts). Each run of pieces is one utterance; the
// utterance's Token relation (one item per whitespace-separated token of the input, its words as
// daughters) with each word's segments gives the back end's own start time of every token, and so of
// every piece.
import { dlopen, FFIType, read, toArrayBuffer, type Pointer } from "bun:ffi"
import { unavailable } from "../errors/errors.ts"
import type { Mp3Encoder } from "./encoder.ts"
import type { SpeechBackend } from "./types.ts"
import { pcmBackend, type PcmVoice, type SpokenRun } from "./pcm.ts"
import type { Voice } from "./voice.ts"

const c = (s: string) => Buffer.from(`${s}\0`)
const FEATURES_OFFSET = 8 // cst_voice: { const char *name; cst_features *features; ... }
const WAVE = { sampleRate: 8, samples: 12, data: 24 } // cst_wave: { char *type; int rate, n, channels; short *samples }
/** A token's start: the end of the segment before its first word's first segment. */
const TOKEN_START = c("R:SylStructure.daughter1.daughter1.R:Segment.p.end")

/** About the slt voice's own mean pitch (Hz); a `pitch` key moves it (unset, the voice's own is used). */
const BASE_F0 = 170

function load() {
  const lib = dlopen("libflite.so.1", {
    flite_init: { args: [], returns: FFIType.i32 },
    flite_synth_text: { args: [FFIType.ptr, FFIType.ptr], returns: FFIType.ptr },
    utt_wave: { args: [FFIType.ptr], returns: FFIType.ptr },
    utt_relation: { args: [FFIType.ptr, FFIType.ptr], returns: FFIType.ptr },
    relation_head: { args: [FFIType.ptr], returns: FFIType.ptr },
    item_next: { args: [FFIType.ptr], returns: FFIType.ptr },
    item_daughter: { args: [FFIType.ptr], returns: FFIType.ptr },
    ffeature_float: { args: [FFIType.ptr, FFIType.ptr], returns: FFIType.f32 },
    delete_utterance: { args: [FFIType.ptr], returns: FFIType.void },
    feat_set_float: { args: [FFIType.ptr, FFIType.ptr, FFIType.f32], returns: FFIType.void },
    feat_remove: { args: [FFIType.ptr, FFIType.ptr], returns: FFIType.i32 },
  })
  const slt = dlopen("libflite_cmu_us_slt.so.1", { register_cmu_us_slt: { args: [FFIType.ptr], returns: FFIType.ptr } })
  lib.symbols.flite_init()
  const voice = slt.symbols.register_cmu_us_slt(null)
  if (!voice) throw new Error("register_cmu_us_slt failed")
  return { lib, voice, features: read.ptr(voice, FEATURES_OFFSET) as Pointer }
}

class Flite implements PcmVoice {
  readonly name = "flite"
  readonly sampleRate = 16000
  private readonly f = load()
  private prosody = ""

  private select(voice: Voice): void {
    const key = `${voice.rate}/${voice.pitch}`
    if (key === this.prosody) return
    const { lib, features } = this.f
    lib.symbols.feat_set_float(features, c("duration_stretch"), 1 / (1 + voice.rate / 100))
    if (voice.pitch === 0) lib.symbols.feat_remove(features, c("int_f0_target_mean"))
    else lib.symbols.feat_set_float(features, c("int_f0_target_mean"), BASE_F0 + voice.pitch)
    this.prosody = key
  }

  speak(pieces: readonly string[], voice: Voice): SpokenRun {
    this.select(voice)
    const { lib } = this.f
    const utt = lib.symbols.flite_synth_text(c(pieces.join(" ")), this.f.voice)
    if (!utt) throw new Error("flite_synth_text failed")
    try {
      const wave = lib.symbols.utt_wave(utt)
      const samples = wave ? read.i32(wave, WAVE.samples) : 0
      const data = wave && samples > 0 ? (read.ptr(wave, WAVE.data) as Pointer) : null
      const pcm = data ? new Int16Array(toArrayBuffer(data, 0, samples * 2).slice(0)) : new Int16Array(0)
      // Start time (seconds) of each token that has words; tokens such as a lone dash have none.
      const itemStarts: (number | undefined)[] = []
      for (
        let tok = lib.symbols.relation_head(lib.symbols.utt_relation(utt, c("Token")));
        tok;
        tok = lib.symbols.item_next(tok)
      ) {
        const word = lib.symbols.item_daughter(tok)
        itemStarts.push(word ? lib.symbols.ffeature_float(word, TOKEN_START) : undefined)
      }
      return { chunks: [pcm], samples, starts: pieceStarts(pieces, itemStarts, samples, this.sampleRate) }
    } finally {
      lib.symbols.delete_utterance(utt)
    }
  }
}

/**
 * Each piece starts at its first token that has words (so at the next piece's start when it has
 * none). When flite's tokens do not line up with the pieces' whitespace tokens, the pieces are
 * placed by their share of the characters instead.
 */
export function pieceStarts(
  pieces: readonly string[],
  itemStarts: readonly (number | undefined)[],
  samples: number,
  rate: number,
): number[] {
  const counts = pieces.map((p) => p.split(/\s+/).filter(Boolean).length)
  if (counts.reduce((a, b) => a + b, 0) !== itemStarts.length) {
    const total = pieces.reduce((n, p) => n + p.length + 1, 0)
    let before = 0
    return pieces.map((p) => {
      const at = Math.round((before / total) * samples)
      before += p.length + 1
      return at
    })
  }
  let token = 0
  let previous = 0
  return pieces.map((_, k) => {
    const first = token
    token += counts[k]!
    if (k === 0) return 0
    const t = itemStarts.slice(first).find((s) => s !== undefined)
    const at = t === undefined ? samples : Math.round(t * rate)
    return (previous = Math.min(Math.max(at, previous), samples))
  })
}

let loaded: Flite | undefined
export function flite(): Flite {
  try {
    return (loaded ??= new Flite())
  } catch (err) {
    throw unavailable(
      `flite cannot be used: ${err instanceof Error ? err.message : String(err)} (Debian packages flite, libflite1)`,
      "tts_unavailable",
    )
  }
}

/** Is flite installed here? (Without it English falls back to espeak-ng.) */
export function hasFlite(): boolean {
  try {
    flite()
    return true
  } catch {
    return false
  }
}

export function fliteBackend(encoder: Mp3Encoder): SpeechBackend {
  return pcmBackend(flite, encoder)
}
