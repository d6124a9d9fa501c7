// The speech engines behind one interface, and the choice among them (SVC_TTS_ENGINE). The offline
// engines (flite, espeak-ng) run in the worker processes of a pool (lib/tts/pool.ts); the online one
// (Edge) is network I/O and runs in the service.
import { edgeEngine } from "./edge.ts"
import type { WorkerPool } from "./pool.ts"
import type { EngineChoice, OfflineChoice, TtsEngine } from "./types.ts"

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

/** An offline engine in the pool's worker processes; each call has a deadline from its length. */
export function pooledEngine(pool: WorkerPool, choice: OfflineChoice, deadlineMs: (chars: number) => number): TtsEngine {
  return {
    name: choice,
    async synthesize(sentences, voice) {
      const pieces = sentences.flat()
      const chars = pieces.reduce((n, p) => n + p.length + 1, 0)
      const { header, payload } = await pool.run({ op: "speak", sentences: sentences.map((s) => [...s]), voice, engine: choice }, deadlineMs(chars))
      const times = header.cues as [number, number][]
      // the payload is the MP3 in base64: the service never holds the audio as a string
      return { engine: String(header.engine), mp3: new Uint8Array(0), base64: payload, cues: times.map(([start, end], i) => ({ start, end, text: pieces[i] ?? "" })) }
    },
  }
}

/** The engine SVC_TTS_ENGINE names; `auto` is Edge with the offline engines behind it. */
export function engineFor(choice: EngineChoice, edgeTimeoutMs: number, pool: WorkerPool, deadlineMs: (chars: number) => number): TtsEngine {
  if (choice === "edge") return edgeEngine(edgeTimeoutMs)
  if (choice === "espeak" || choice === "offline") return pooledEngine(pool, choice, deadlineMs)
  return fallback(edgeEngine(edgeTimeoutMs), pooledEngine(pool, "offline", deadlineMs))
}
