// The speech back ends behind one interface, and the choice among them (SVC_TTS_ENGINE). The offline
// back ends (flite, espeak-ng) run in the worker processes of a pool (lib/tts/pool.ts); the online one
// (Edge) is network I/O and runs in the service.
import { edgeBackend } from "./edge.ts"
import type { WorkerPool } from "./pool.ts"
import type { BackendChoice, OfflineChoice, SpeechBackend } from "./types.ts"

/**
 * `auto`: the online back end first, the offline one when it fails. After a failure the online back end
 * rests for `restMs`, so that without a network every request goes straight to the offline back end.
 */
export function fallback(
  primary: SpeechBackend,
  secondary: SpeechBackend,
  restMs = 60_000,
  now: () => number = Date.now,
): SpeechBackend {
  let restUntil = 0
  return {
    name: "auto",
    async synthesize(sentences, voice) {
      if (now() >= restUntil) {
        try {
          return await primary.synthesize(sentences, voice)
        } catch (err) {
          restUntil = now() + restMs
          console.warn(
            `tts: ${primary.name} failed (${err instanceof Error ? err.message : String(err)}); using ${secondary.name} for ${restMs / 1000} s`,
          )
        }
      }
      return secondary.synthesize(sentences, voice)
    },
  }
}

/** An offline back end in the pool's worker processes; each call has a deadline from its length. */
export function pooledBackend(
  pool: WorkerPool,
  choice: OfflineChoice,
  deadlineMs: (chars: number) => number,
): SpeechBackend {
  return {
    name: choice,
    async synthesize(sentences, voice) {
      const pieces = sentences.flat()
      const chars = pieces.reduce((n, p) => n + p.length + 1, 0)
      const { header, payload } = await pool.run(
        { op: "speak", sentences: sentences.map((s) => [...s]), voice, backend: choice },
        deadlineMs(chars),
      )
      const times = header.cues as [number, number][]
      // the payload is the MP3 in base64: the service never holds the audio as a string
      return {
        backend: String(header.backend),
        mp3: new Uint8Array(0),
        base64: payload,
        cues: times.map(([start, end], i) => ({ start, end, text: pieces[i] ?? "" })),
      }
    },
  }
}

/** The back end SVC_TTS_ENGINE names; `auto` is Edge with the offline back ends behind it. */
export function backendFor(
  choice: BackendChoice,
  edgeTimeoutMs: number,
  pool: WorkerPool,
  deadlineMs: (chars: number) => number,
): SpeechBackend {
  if (choice === "edge") return edgeBackend(edgeTimeoutMs)
  if (choice === "espeak" || choice === "offline") return pooledBackend(pool, choice, deadlineMs)
  return fallback(edgeBackend(edgeTimeoutMs), pooledBackend(pool, "offline", deadlineMs))
}
