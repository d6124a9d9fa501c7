// What POST /api/synthesize does: the text read as a document and planned as sentences and cue
// pieces (in a worker process), spoken by the back end (a bounded number at a time; offline back ends in
// worker processes too), and returned as MP3 and WebVTT. The service's own process only moves bytes:
// a crash, a hang or a memory blow-up of parsing or synthesis ends one worker, never the service.
import { invalid } from "../errors/errors.ts"
import type { BackendChoice, SpeechBackend } from "./types.ts"
import { Limiter } from "./limiter.ts"
import { WorkerPool } from "./pool.ts"
import type { Plan } from "./prepare.ts"
import { writeVtt } from "./vtt.ts"

export interface TtsConfig {
  backend: BackendChoice
  /** Longest accepted `text`, in characters (code points). */
  maxChars: number
  /** Syntheses running at once (and worker processes); four times as many may wait. */
  concurrency: number
  /** The Edge voice used when the front matter names none. */
  voice: string
  /** Longest wait for the next message of the Edge service. */
  edgeTimeoutMs: number
  /** Deadline of one offline synthesis: this many ms, plus `timeoutMsPerChar` per character. */
  timeoutMs?: number
  timeoutMsPerChar?: number
  /** Address-space cap of each worker process, in MiB. */
  workerMemoryMb?: number
  /** The worker processes' environment. */
  workerEnv?: Record<string, string>
}

export const TTS_DEFAULTS = { timeoutMs: 30_000, timeoutMsPerChar: 4, workerMemoryMb: 4096, prepareTimeoutMs: 20_000 }

export interface Spoken {
  backend: string
  /** The MP3 in base64, as ASCII bytes. */
  base64: Uint8Array
  vtt: string
}

/**
 * The JSON answer, {"audio_base64": ..., "vtt": ...}, assembled from its parts: the audio is already
 * base64 (no character to escape), so the service never builds a string of the whole answer (for the
 * longest text, JSON.stringify of it blocked the event loop for about a second on a loaded machine).
 */
export function speechResponse(spoken: Spoken): Response {
  const body = new Blob([
    '{"audio_base64":"',
    spoken.base64 as Uint8Array<ArrayBuffer>,
    '","vtt":',
    JSON.stringify(spoken.vtt),
    "}",
  ])
  return new Response(body, { headers: { "content-type": "application/json", "x-tts-engine": spoken.backend } })
}

/** Characters as a person counts them: code points, not UTF-16 units. */
export function codePoints(text: string): number {
  let pairs = 0
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i)
    if (c >= 0xd800 && c <= 0xdbff) {
      const d = text.charCodeAt(i + 1)
      if (d >= 0xdc00 && d <= 0xdfff) {
        pairs++
        i++
      }
    }
  }
  return text.length - pairs
}

export class Speaker {
  private readonly limiter: Limiter
  private backend: SpeechBackend | undefined
  readonly pool: WorkerPool

  constructor(
    readonly config: TtsConfig,
    backend?: SpeechBackend,
  ) {
    this.limiter = new Limiter(config.concurrency, config.concurrency * 4)
    this.pool = new WorkerPool({
      size: config.concurrency,
      memoryMb: config.workerMemoryMb ?? TTS_DEFAULTS.workerMemoryMb,
      env: config.workerEnv,
    })
    this.backend = backend
  }

  private deadline = (chars: number) =>
    (this.config.timeoutMs ?? TTS_DEFAULTS.timeoutMs) +
    chars * (this.config.timeoutMsPerChar ?? TTS_DEFAULTS.timeoutMsPerChar)

  /** The back ends are loaded on the first synthesis, so a service that never speaks does not hold them. */
  private async loadBackend(): Promise<SpeechBackend> {
    return (this.backend ??= (await import("./backend.ts")).backendFor(
      this.config.backend,
      this.config.edgeTimeoutMs,
      this.pool,
      this.deadline,
    ))
  }

  /** The reading plan, made in a worker process (parsing is bounded, but stays off the event loop). */
  async plan(text: string): Promise<Plan> {
    const { header } = await this.pool.run(
      { op: "prepare", text, defaultVoice: this.config.voice },
      TTS_DEFAULTS.prepareTimeoutMs,
    )
    return header.plan as Plan
  }

  /** The speech of `text`; too many syntheses running and waiting: a 503 tts_busy with Retry-After. */
  async speak(text: string): Promise<Spoken> {
    const length = codePoints(text)
    if (length > this.config.maxChars)
      throw invalid(`text has ${length} characters; the limit is ${this.config.maxChars}`, "text_too_long")
    return this.limiter.run(async () => {
      const plan = await this.plan(text)
      if (plan.sentences.length === 0)
        throw invalid("text has nothing to read aloud (it is empty, or only code)", "empty_text")
      const backend = await this.loadBackend()
      const speech = await backend.synthesize(
        plan.sentences.map((s) => s.map((p) => p.spoken)),
        plan.voice,
      )
      // cues show the text as written; the back end said its spoken form
      const written = plan.sentences.flat()
      const cues = speech.cues.map((cue, i) => ({
        ...cue,
        text: speech.cues.length === written.length ? written[i]!.text : cue.text,
      }))
      const base64 = speech.base64 ?? Buffer.from(Buffer.from(speech.mp3).toString("base64"), "latin1")
      return { backend: speech.backend, base64, vtt: writeVtt(cues) }
    })
  }

  close(): void {
    this.pool.close()
  }
}
