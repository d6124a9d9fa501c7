// POST /api/synthesize on the real service process (from source and as the compiled binary) with the
// real offline speech back ends (flite and espeak-ng through their C APIs, in worker processes), MP3 checked
// with ffprobe, WebVTT with a parser; and every input that once crashed, blocked or 500'd the service,
// with /api/health checked between them.
import { afterAll, expect, test } from "bun:test"
import { mkdtempSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { readDocument } from "#lib/tts/markdown.ts"
import { builtBinary } from "../support/build.ts"
import { engineHost } from "../support/engine.ts"
import { startService, type Service } from "../support/service.ts"
import { parseVtt } from "../support/webvtt.ts"

const dir = mkdtempSync(join(tmpdir(), "hm-tts-"))
const services: Service[] = []
afterAll(async () => {
  await Promise.all(services.map((s) => s.stop()))
  rmSync(dir, { recursive: true, force: true })
})

async function service(env: Record<string, string>, cmd?: string[]): Promise<Service> {
  const svc = await startService({ DOCKER_HOST: engineHost(), ...env }, cmd ? { cmd } : {})
  services.push(svc)
  return svc
}

const text = `---
title: The harbour at dawn
rate: "+20%"
---
The harbour master walks the quay before sunrise & counts the boats.

- Three trawlers, back from the north.
- One ferry, [late again](https://example.com/ferry).

| Berth | Ship |
|---|---|
| 4 | Marie |

\`\`\`
not read()
\`\`\`
`

async function speak(svc: Service, body: unknown) {
  const res = await fetch(`${svc.url}/api/synthesize`, {
    method: "POST",
    headers: { "content-type": "application/json", accept: "application/json" },
    body: JSON.stringify(body),
  })
  return { res, body: await res.json() }
}

function checkSpeech(name: string, body: { audio_base64: string; vtt: string }) {
  const file = join(dir, `${name}.mp3`)
  writeFileSync(file, Buffer.from(body.audio_base64, "base64"))
  const probe = Bun.spawnSync([
    "ffprobe",
    "-v",
    "error",
    "-show_entries",
    "stream=codec_name,channels:format=duration",
    "-of",
    "json",
    file,
  ])
  expect(probe.exitCode).toBe(0)
  const info = JSON.parse(probe.stdout.toString())
  expect(info.streams[0]).toEqual({ codec_name: "mp3", channels: 1 })
  const vtt = parseVtt(body.vtt)
  expect(vtt.errors).toEqual([])
  expect(Math.abs(Number(info.format.duration) - vtt.cues.at(-1)!.endTime)).toBeLessThan(0.2)
  const unescape = (s: string) => s.replaceAll("&lt;", "<").replaceAll("&gt;", ">").replaceAll("&amp;", "&")
  expect(vtt.cues.map((c) => unescape(c.text).replace(/\s+/g, " ")).join(" ")).toBe(readDocument(text).blocks.join(" "))
}

test("espeak: Markdown in, an MP3 and matching WebVTT out, the back end in a header", async () => {
  const svc = await service({ SVC_TTS_ENGINE: "espeak" })
  const { res, body } = await speak(svc, { text })
  expect(res.status).toBe(200)
  expect(res.headers.get("x-tts-engine")).toBe("espeak")
  checkSpeech("espeak", body)
  const empty = await speak(svc, { text: "   " })
  expect(empty.res.status).toBe(400)
  expect(empty.body.error.code).toBe("empty_text")
}, 60_000)

test("auto: answers with the online voice where this machine reaches it, else with the offline back end", async () => {
  const online = await fetch("https://speech.platform.bing.com/", { signal: AbortSignal.timeout(3000) }).then(
    () => true,
    () => false,
  )
  const svc = await service({ SVC_TTS_ENGINE: "auto", SVC_TTS_EDGE_TIMEOUT_MS: "3000" })
  const { res, body } = await speak(svc, { text })
  expect(res.status).toBe(200)
  // offline English is flite
  expect(res.headers.get("x-tts-engine")).toBe(online ? "edge" : "flite")
  if (!online) checkSpeech("auto", body)
}, 60_000)

test("the compiled binary speaks too (its MP3 encoder runs on a bundled worker)", async () => {
  const svc = await service({ SVC_TTS_ENGINE: "espeak" }, ["sh", "-c", `cd '${dir}' && exec '${await builtBinary()}'`])
  const { res, body } = await speak(svc, { text })
  expect(res.status).toBe(200)
  checkSpeech("binary", body)
}, 120_000)

/** Whether /api/health answered 200. */
async function healthy(svc: Service): Promise<boolean> {
  const res = await fetch(`${svc.url}/api/health`)
  await res.text()
  return res.status === 200
}

test("bad inputs: none crashes, blocks or 500s the service; health answers between them", async () => {
  const svc = await service({ SVC_TTS_ENGINE: "espeak" })
  const crash = "Hello " + "x.".repeat(90) + " world."
  const inputs: [string, string][] = [
    ["crash", crash],
    ["crash in a list", "- " + crash],
    ["quote bomb", "> ".repeat(9000) + "x"],
    ["list bomb", "- ".repeat(8000) + "x"],
    ["deep list bomb", "- ".repeat(24999) + "x"],
    ["numbered bomb", "1. ".repeat(16000) + "x"],
    ["stars", "*".repeat(50000)],
    ["emphasis bomb", "*a".repeat(25000)],
    ["strong bomb", "**a".repeat(16000)],
    ["brackets", "[".repeat(50000)],
    ["words without a stop", "word ".repeat(10000)],
    ["setext bomb", "a\n".repeat(25000) + "==="],
    ["emoji over the limit", "😀".repeat(50001)],
  ]
  for (const [name, text] of inputs) {
    const { res, body } = await speak(svc, { text })
    if (res.status !== 200 && !(res.status >= 400 && res.status < 500)) {
      // only a crash of the speech back end's process itself may answer 5xx, and then with its own code
      expect({ name, status: res.status, code: body.error?.code }).toEqual({
        name,
        status: 502,
        code: "tts_engine_crashed",
      })
    }
    if (res.status === 200) expect(parseVtt(body.vtt).errors).toEqual([])
    expect(svc.proc.exitCode).toBeNull()
    expect(await healthy(svc)).toBe(true)
  }
  // the speech back end's own crash, reached directly: one 502, and the next request is served
  const direct = await speak(svc, { text: `---\nlang: de\n---\n${crash}` })
  expect([200, 502]).toContain(direct.res.status)
  const after = await speak(svc, { text: "The next request is served." })
  expect(after.res.status).toBe(200)
  expect(svc.proc.exitCode).toBeNull()
}, 600_000)

test("health answers while the heaviest allowed input is synthesised", async () => {
  // How fast it answers, against idle health in the same run, is bench/tts-isolation.ts's figure.
  const svc = await service({ SVC_TTS_ENGINE: "espeak" })
  const sentence = "The harbour master walked along the quay before sunrise, while the ships waited outside. "
  const heavy = speak(svc, { text: sentence.repeat(Math.floor(50000 / sentence.length)) })
  let done = false
  void heavy.finally(() => (done = true))
  const during: boolean[] = [] // each answer that came back while the synthesis was still running
  while (!done) {
    const ok = await healthy(svc)
    if (!done) during.push(ok)
    await Bun.sleep(20)
  }
  const { res } = await heavy
  expect(res.status).toBe(200)
  expect(during.length).toBeGreaterThan(10)
  expect(during.every(Boolean)).toBe(true)
}, 600_000)
