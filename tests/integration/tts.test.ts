// POST /api/synthesize on the real service process (from source and as the compiled binary) with the
// real offline engine: espeak-ng through its C API, MP3 checked with ffprobe, WebVTT with a parser.
import { afterAll, expect, test } from "bun:test"
import { mkdtempSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { readDocument } from "../../lib/tts/markdown.ts"
import { engineHost } from "../support/engine.ts"
import { startService, type Service } from "../support/service.ts"
import { parseVtt } from "../support/webvtt.ts"

const root = join(import.meta.dir, "../..")
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
  const res = await fetch(`${svc.url}/api/synthesize`, { method: "POST", headers: { "content-type": "application/json", accept: "application/json" }, body: JSON.stringify(body) })
  return { res, body: await res.json() }
}

function checkSpeech(name: string, body: { audio_base64: string; vtt: string }) {
  const file = join(dir, `${name}.mp3`)
  writeFileSync(file, Buffer.from(body.audio_base64, "base64"))
  const probe = Bun.spawnSync(["ffprobe", "-v", "error", "-show_entries", "stream=codec_name,channels:format=duration", "-of", "json", file])
  expect(probe.exitCode).toBe(0)
  const info = JSON.parse(probe.stdout.toString())
  expect(info.streams[0]).toEqual({ codec_name: "mp3", channels: 1 })
  const vtt = parseVtt(body.vtt)
  expect(vtt.errors).toEqual([])
  expect(Math.abs(Number(info.format.duration) - vtt.cues.at(-1)!.endTime)).toBeLessThan(0.2)
  const unescape = (s: string) => s.replaceAll("&lt;", "<").replaceAll("&gt;", ">").replaceAll("&amp;", "&")
  expect(vtt.cues.map((c) => unescape(c.text)).join(" ")).toBe(readDocument(text).blocks.join(" "))
}

test("espeak: Markdown in, an MP3 and matching WebVTT out, the engine in a header", async () => {
  const svc = await service({ SVC_TTS_ENGINE: "espeak" })
  const { res, body } = await speak(svc, { text })
  expect(res.status).toBe(200)
  expect(res.headers.get("x-tts-engine")).toBe("espeak")
  checkSpeech("espeak", body)
  const empty = await speak(svc, { text: "   " })
  expect(empty.res.status).toBe(400)
  expect(empty.body.error.code).toBe("empty_text")
})

test("auto: answers with the online voice where it is reachable, else with espeak-ng", async () => {
  const svc = await service({ SVC_TTS_ENGINE: "auto", SVC_TTS_EDGE_TIMEOUT_MS: "3000" })
  const { res, body } = await speak(svc, { text })
  expect(res.status).toBe(200)
  expect(["edge", "espeak"]).toContain(res.headers.get("x-tts-engine")!)
  if (res.headers.get("x-tts-engine") === "espeak") checkSpeech("auto", body)
})

test("the compiled binary speaks too (its MP3 encoder runs on a bundled worker)", async () => {
  const build = Bun.spawnSync(["bun", "run", "build"], { cwd: root, stdout: "pipe", stderr: "pipe" })
  expect(build.exitCode).toBe(0)
  const svc = await service({ SVC_TTS_ENGINE: "espeak" }, ["sh", "-c", `cd '${dir}' && exec '${join(root, "dist/harbormaster")}'`])
  const { res, body } = await speak(svc, { text })
  expect(res.status).toBe(200)
  checkSpeech("binary", body)
}, 120_000)
