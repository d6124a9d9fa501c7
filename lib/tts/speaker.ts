// What POST /api/synthesize does: the text read as a document, planned as sentences and cue pieces,
// spoken by the engine (a bounded number at a time), and returned as MP3 and WebVTT.
import { badRequest } from "../http-error.ts"
import type { EngineChoice, TtsEngine } from "./engine.ts"
import { Limiter } from "./limiter.ts"
import { planSpeech } from "./sentences.ts"
import { voiceOf } from "./voice.ts"
import { writeVtt } from "./vtt.ts"

export interface TtsConfig {
  engine: EngineChoice
  /** Longest accepted `text`, in characters. */
  maxChars: number
  /** Syntheses running at once; four times as many may wait. */
  concurrency: number
  /** The Edge voice used when the front matter names none. */
  voice: string
  /** Longest wait for the next message of the Edge service. */
  edgeTimeoutMs: number
}

export interface Spoken {
  engine: string
  mp3: Uint8Array
  vtt: string
}

export class Speaker {
  private readonly limiter: Limiter
  private engine: Promise<TtsEngine> | undefined

  constructor(
    readonly config: TtsConfig,
    engine?: TtsEngine,
  ) {
    this.limiter = new Limiter(config.concurrency, config.concurrency * 4)
    this.engine = engine && Promise.resolve(engine)
  }

  /** The engines are loaded on the first synthesis, so a service that never speaks does not hold them. */
  private loadEngine(): Promise<TtsEngine> {
    return (this.engine ??= import("./engine.ts").then((m) => m.engineFor(this.config.engine, this.config.edgeTimeoutMs)))
  }

  async speak(text: string): Promise<Spoken> {
    if (text.length > this.config.maxChars) throw badRequest(`text has ${text.length} characters; the limit is ${this.config.maxChars}`, "text_too_long")
    const { readDocument } = await import("./markdown.ts")
    const document = readDocument(text)
    const voice = voiceOf(document.attributes, this.config.voice)
    const sentences = planSpeech(document.blocks)
    if (sentences.length === 0) throw badRequest("text has nothing to read aloud (it is empty, or only code and HTML)", "empty_text")
    const engine = await this.loadEngine()
    const speech = await this.limiter.run(() => engine.synthesize(sentences, voice))
    return { engine: speech.engine, mp3: speech.mp3, vtt: writeVtt(speech.cues) }
  }
}
