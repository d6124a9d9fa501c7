import { afterAll, expect, test } from "bun:test"
import { mkdtempSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { createMp3Encoder } from "wasm-media-encoders"
import { mp3Info } from "#lib/tts/mp3.ts"

const dir = mkdtempSync(join(tmpdir(), "hm-mp3-"))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

async function encode(sampleRate: 22050 | 24000 | 44100, seconds: number): Promise<Uint8Array> {
  const encoder = await createMp3Encoder()
  encoder.configure({ channels: 1, sampleRate, outputSampleRate: sampleRate, bitrate: 48 })
  const tone = new Float32Array(Math.round(sampleRate * seconds)).map((_, i) => Math.sin(i / 10) * 0.3)
  return Buffer.concat([encoder.encode([tone]).slice(), encoder.finalize().slice()])
}

test("frames are counted for MPEG-1 and MPEG-2 streams, agreeing with ffprobe", async () => {
  for (const rate of [22050, 24000, 44100] as const) {
    const mp3 = await encode(rate, 1.5)
    const info = mp3Info(mp3)
    expect(info.sampleRate).toBe(rate)
    expect(info.samples).toBe(info.frames * (rate === 44100 ? 1152 : 576))
    writeFileSync(join(dir, `${rate}.mp3`), mp3)
    const probe = Bun.spawnSync([
      "ffprobe",
      "-v",
      "error",
      "-show_entries",
      "format=duration",
      "-of",
      "csv=p=0",
      join(dir, `${rate}.mp3`),
    ])
    expect(Math.abs(Number(probe.stdout.toString()) - info.seconds)).toBeLessThan(0.001)
    expect(info.seconds).toBeGreaterThan(1.5)
  }
}, 60_000)

test("streams concatenate; an ID3v2 tag is skipped; anything else is refused", async () => {
  const a = await encode(24000, 1)
  const b = await encode(24000, 2)
  expect(mp3Info(Buffer.concat([a, b])).frames).toBe(mp3Info(a).frames + mp3Info(b).frames)
  const id3 = Buffer.from([0x49, 0x44, 0x33, 4, 0, 0, 0, 0, 0, 5, 1, 2, 3, 4, 5])
  expect(mp3Info(Buffer.concat([id3, a])).frames).toBe(mp3Info(a).frames)
  expect(() => mp3Info(new TextEncoder().encode("<html>nope</html>"))).toThrow("not an MP3 frame at byte 0")
  expect(mp3Info(new Uint8Array())).toEqual({ frames: 0, sampleRate: 0, samples: 0, seconds: 0 })
}, 60_000)
