// The offline engines, chosen per text by its language: flite (cmu_us_slt) for English, espeak-ng for
// every other language it has (and for English where flite is not installed). Runs in the worker.
import type { Mp3Encoder } from "./encoder.ts"
import type { OfflineChoice, TtsEngine } from "./types.ts"
import { espeakEngine } from "./espeak.ts"
import { fliteEngine, hasFlite } from "./flite.ts"
import { isEnglish } from "./lang.ts"

export function offlineEngine(choice: OfflineChoice, encoder: Mp3Encoder): TtsEngine {
  const espeak = espeakEngine(encoder)
  if (choice === "espeak") return espeak
  const flite = fliteEngine(encoder)
  return {
    name: "offline",
    synthesize: (sentences, voice) => (isEnglish(voice.lang) && hasFlite() ? flite : espeak).synthesize(sentences, voice),
  }
}
