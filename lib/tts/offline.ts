// The offline back ends, chosen per text by its language: flite (cmu_us_slt) for English, espeak-ng for
// every other language it has (and for English where flite is not installed). Runs in the worker.
import type { Mp3Encoder } from "./encoder.ts"
import type { OfflineChoice, SpeechBackend } from "./types.ts"
import { espeakBackend } from "./espeak.ts"
import { fliteBackend, hasFlite } from "./flite.ts"
import { isEnglish } from "./lang.ts"

export function offlineBackend(choice: OfflineChoice, encoder: Mp3Encoder): SpeechBackend {
  const espeak = espeakBackend(encoder)
  if (choice === "espeak") return espeak
  const flite = fliteBackend(encoder)
  return {
    name: "offline",
    synthesize: (sentences, voice) =>
      (isEnglish(voice.lang) && hasFlite() ? flite : espeak).synthesize(sentences, voice),
  }
}
