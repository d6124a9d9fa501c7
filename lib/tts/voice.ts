// How a text is spoken: the voice and prosody keys of its front matter over the service defaults.
import { invalid } from "../errors/errors.ts"
import { canonicalTag } from "./lang.ts"

export interface Voice {
  /** An Edge voice short name, e.g. "en-US-EmmaMultilingualNeural". */
  voice: string
  /** BCP 47 language; espeak-ng picks its voice by it. Defaults to the voice's locale. */
  lang: string
  /** Speaking rate change in percent (-50..+100). */
  rate: number
  /** Pitch change in hertz (-50..+50). */
  pitch: number
  /** Volume change in percent (-100..+100). */
  volume: number
}

const VOICE_NAME = /^([a-z]{2,3})-([A-Z]{2,})-(\w+Neural)$/
export const isVoiceName = (name: string) => VOICE_NAME.test(name)
const LANG = /^[a-zA-Z]{2,3}([-_][a-zA-Z0-9]{2,8})*$/

const PROSODY = {
  rate: { unit: "%", min: -50, max: 100, example: "+10% or -20%" },
  pitch: { unit: "Hz", min: -50, max: 50, example: "+5Hz or -10Hz" },
  volume: { unit: "%", min: -100, max: 100, example: "+10% or -50%" },
} as const

function prosody(key: keyof typeof PROSODY, value: unknown): number {
  const { unit, min, max, example } = PROSODY[key]
  const m = typeof value === "string" ? new RegExp(`^([+-]?\\d{1,3})${unit}$`).exec(value.trim()) : null
  const n = m ? Number(m[1]) : NaN
  if (!(n >= min && n <= max))
    throw invalid(
      `front matter ${key} must look like ${example} (from ${min}${unit} to +${max}${unit}), got ${JSON.stringify(value)}`,
      "invalid_front_matter",
    )
  return n
}

/** The locale part of a voice name: "de-DE-KatjaNeural" is "de-DE". */
export function voiceLocale(voice: string): string {
  const m = VOICE_NAME.exec(voice)
  return m ? `${m[1]}-${m[2]}` : "en-US"
}

/**
 * The Voice for a document: recognised front matter keys checked; other keys are ignored. The
 * language is `lang`, else the `voice` key's locale, else `detected`, else the default voice's locale.
 */
export function voiceOf(attributes: Record<string, unknown>, defaultVoice: string, detected?: string): Voice {
  const { voice = defaultVoice, lang, rate, pitch, volume } = attributes
  if (typeof voice !== "string" || !isVoiceName(voice))
    throw invalid(
      `front matter voice must be an Edge voice name such as "en-US-AriaNeural", got ${JSON.stringify(voice)}`,
      "invalid_front_matter",
    )
  if (lang !== undefined && (typeof lang !== "string" || !LANG.test(lang)))
    throw invalid(
      `front matter lang must be a language tag such as "en-GB" or "de", got ${JSON.stringify(lang)}`,
      "invalid_front_matter",
    )
  return {
    voice,
    lang: canonicalTag(
      (lang as string | undefined) ?? (attributes.voice === undefined && detected ? detected : voiceLocale(voice)),
    ),
    rate: rate === undefined ? 0 : prosody("rate", rate),
    pitch: pitch === undefined ? 0 : prosody("pitch", pitch),
    volume: volume === undefined ? 0 : prosody("volume", volume),
  }
}

/** "+10%", "-5Hz": the signed form the Edge service takes. */
export const signed = (n: number, unit: string) => `${n < 0 ? "-" : "+"}${Math.abs(n)}${unit}`
