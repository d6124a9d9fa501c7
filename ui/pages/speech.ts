// Speech: text or Markdown in, the MP3 played with the current cue shown as a subtitle, both files
// downloadable.
import { post } from "../api.ts"
import { errorBox, h, render } from "../dom.ts"

const SAMPLE = `---
title: Release notes
---
# Harbormaster

Stacks can now be copied between servers, volume data included.
`

const urls: string[] = []

function blobUrl(data: BlobPart, type: string): string {
  const url = URL.createObjectURL(new Blob([data], { type }))
  urls.push(url)
  return url
}

export function speechPage(main: HTMLElement, _: Record<string, string>, signal: AbortSignal): void {
  const text = h("textarea", { id: "speech-text", rows: 10, class: "mono" }, SAMPLE)
  const result = h("div", { "aria-live": "polite" })
  const button = h("button", { type: "submit", class: "primary" }, "Synthesize")
  const form = h(
    "form",
    null,
    h("div", { class: "field" }, h("label", { for: "speech-text" }, "Text or Markdown (front matter allowed)"), text),
    h("div", { class: "actions" }, button),
  )
  form.addEventListener("submit", async (e) => {
    e.preventDefault()
    button.disabled = true
    render(result, h("p", { class: "loading", "aria-busy": "true" }, "Synthesizing…"))
    try {
      const r = await post<{ audio_base64: string; vtt: string }>("/synthesize", { text: text.value }, { signal })
      render(result, player(r.audio_base64, r.vtt))
    } catch (err) {
      render(result, errorBox(err))
    } finally {
      button.disabled = false
    }
  })
  signal.addEventListener("abort", () => urls.splice(0).forEach((u) => URL.revokeObjectURL(u)))
  render(main, h("h1", null, "Speech"), form, result)
}

/** A cue's text as shown: the browser's own reading of its markup, tags dropped and entities decoded. */
const cueText = (cue: VTTCue) => cue.getCueAsHTML().textContent ?? ""

function player(audioBase64: string, vtt: string): HTMLElement {
  const audio = Uint8Array.from(atob(audioBase64), (c) => c.charCodeAt(0))
  const el = h("audio", { controls: true, src: blobUrl(audio, "audio/mpeg"), preload: "auto" })
  const track = h("track", {
    kind: "subtitles",
    src: blobUrl(vtt, "text/vtt"),
    srclang: "en",
    label: "Subtitles",
    default: true,
  })
  el.appendChild(track)
  // The browser parses the WebVTT and follows the playback: "hidden" keeps both going while the page
  // shows the cues itself.
  track.track.mode = "hidden"
  const cues = () => [...(track.track.cues ?? [])] as VTTCue[]
  const subtitle = h("p", { class: "subtitle", "aria-live": "polite" })
  const list = h("ol", { class: "cues" })
  const count = h("summary", null)
  const show = () => {
    const t = el.currentTime
    const all = cues()
    const at = all.findIndex((c) => t >= c.startTime && t < c.endTime)
    subtitle.textContent = at >= 0 ? cueText(all[at]!) : ""
    list.querySelectorAll("li").forEach((li, i) => li.classList.toggle("current", i === at))
  }
  track.addEventListener("load", () => {
    const all = cues()
    count.textContent = `${all.length} cues`
    render(
      list,
      all.map((c) =>
        h(
          "li",
          null,
          h(
            "button",
            { type: "button", class: "link", onclick: () => ((el.currentTime = c.startTime), void el.play()) },
            h("time", null, c.startTime.toFixed(1), "s"),
            " ",
            cueText(c),
          ),
        ),
      ),
    )
    show()
  })
  // cuechange follows the playback; a seek from the list before the audio has loaded comes with seeked only
  track.track.addEventListener("cuechange", show)
  el.addEventListener("seeked", show)
  return h(
    "section",
    { class: "card player" },
    el,
    subtitle,
    h(
      "div",
      { class: "actions" },
      h("a", { class: "button", href: blobUrl(audio, "audio/mpeg"), download: "speech.mp3" }, "Download MP3"),
      h("a", { class: "button", href: blobUrl(vtt, "text/vtt"), download: "speech.vtt" }, "Download subtitles (VTT)"),
    ),
    h("details", { open: true }, count, list),
  )
}
