import * as v from "valibot"
import { defineRoute } from "#lib/service/handler.ts"
import { speechResponse } from "#lib/tts/speaker.ts"

export default defineRoute({
  role: "viewer",
  detail: {
    operationId: "synthesize",
    summary:
      "Text or Markdown (with optional front matter: voice, lang, rate, pitch, volume, title) to speech: the MP3 as base64 and WebVTT cues in one JSON response; the X-TTS-Engine header names the speech back end that spoke (flite, espeak, edge). Too many syntheses at once: 503 tts_busy with Retry-After",
    tags: ["tts"],
  },
  body: v.object({ text: v.string("text must be a string (plain text or Markdown)") }),
  response: v.object({
    audio_base64: v.pipe(v.string(), v.description("the MP3, base64")),
    vtt: v.pipe(v.string(), v.description("WebVTT cues")),
  }),
  handler: async ({ body, ctx }) => speechResponse(await ctx.tts.speak(body.text)),
})
