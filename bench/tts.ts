// bench/tts: 1000 words of Markdown through POST /api/synthesize with the offline speech back end (espeak-ng
// through its C API, MP3 encoded in-process), against espeak-ng's command line and lame's on the same
// speakable text at the same bitrate: piped into each other (both running at once), and one after the
// other through a WAV file. Figures: seconds of audio per second of wall time, and
// per second of CPU time (all threads and processes), which other load on the machine does not skew.
// Run: bun bench/tts.ts
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { BITRATE } from "#lib/tts/encoder.ts"
import { readDocument } from "#lib/tts/markdown.ts"
import { mp3Info } from "#lib/tts/mp3.ts"
import { median, ratio, startService } from "./support.ts"

const ROUNDS = 7
const dir = mkdtempSync(join(tmpdir(), "hm-bench-tts-"))

/** A deterministic article of exactly `words` words: headings, paragraphs, a list, a table, links. */
function article(words: number): string {
  const vocabulary = (
    "the harbour master walked along quay before sunrise ships waited outside breakwater their lights swaying in swell " +
    "while gulls circled above fish market and first carts rolled over cobbles crews tied ropes to iron rings tide turned slowly"
  ).split(" ")
  let i = 0
  const word = () => vocabulary[(i++ * 7 + Math.floor(i / 13)) % vocabulary.length]!
  const sentence = (n: number) => {
    const w = Array.from({ length: n }, word)
    return `${w[0]![0]!.toUpperCase()}${w.join(" ").slice(1)}.`
  }
  const parts: string[] = ["---", "title: Morning at the harbour", "---"]
  let count = 4
  for (let section = 1; count < words; section++) {
    parts.push(`## Part ${section}`)
    count += 2
    for (const n of [14, 18, 11, 16]) {
      if (count + n > words) break
      parts.push(count % 3 === 0 ? `${sentence(n - 2)} See [the chart](https://example.com/${section}).` : sentence(n))
      count += n
    }
    if (count + 12 <= words) {
      parts.push(`- ${sentence(4)}`, `- ${sentence(4)}`, `- **${sentence(4).slice(0, -1)}**.`)
      count += 12
    }
  }
  if (count < words) parts.push(sentence(words - count))
  return parts.join("\n\n")
}

const markdown = article(1000)
const speakable = readDocument(markdown).blocks.join("\n")
const textFile = join(dir, "text.txt")
writeFileSync(textFile, speakable)
console.log(`text: ${speakable.split(/\s+/).length} words read aloud (${markdown.length} characters of Markdown)`)

interface Round {
  audio: number
  wall: number
  cpu: number
}
type Run = () => Promise<{ audio: number; cpu: number }>

/**
 * Each run (reporting the audio seconds it made and the CPU seconds it used) once to warm up, then
 * ROUNDS times, the runs taking turns within a round so that other load on the machine falls on all.
 */
async function timedRounds(runs: Run[]): Promise<Round[][]> {
  for (const run of runs) await run()
  const results: Round[][] = runs.map(() => [])
  for (let i = 0; i < ROUNDS; i++) {
    for (const [k, run] of runs.entries()) {
      const t0 = performance.now()
      const { audio, cpu } = await run()
      results[k]!.push({ audio, cpu, wall: (performance.now() - t0) / 1000 })
    }
  }
  return results
}
const perWall = (rounds: Round[]) => median(rounds.map((r) => r.audio / r.wall))
const perCpu = (rounds: Round[]) => median(rounds.map((r) => r.audio / r.cpu))
const wall = (rounds: Round[]) =>
  `${rounds[0]!.audio.toFixed(1)} s of audio in a median ${median(rounds.map((r) => r.wall)).toFixed(3)} s`
/** CPU seconds (user + system, every thread) a process has used so far. */
const cpuOf = (pid: number) =>
  readFileSync(`/proc/${pid}/stat`, "utf8")
    .split(") ")[1]!
    .split(" ")
    .slice(11, 13)
    .reduce((sum, ticks) => sum + Number(ticks) / 100, 0)

const service = await startService({ SVC_TTS_ENGINE: "espeak", DOCKER_HOST: `unix://${join(dir, "no-engine.sock")}` })
try {
  const viaService: Run = async () => {
    const cpu0 = cpuOf(service.proc.pid)
    const res = await fetch(`${service.url}/api/synthesize`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ text: markdown }),
    })
    if (res.status !== 200 || res.headers.get("x-tts-engine") !== "espeak")
      throw new Error(`synthesize answered ${res.status}: ${await res.text()}`)
    const audio = mp3Info(Buffer.from((await res.json()).audio_base64, "base64")).seconds
    return { audio, cpu: cpuOf(service.proc.pid) - cpu0 }
  }
  const outFile = join(dir, "cli.mp3")
  const wavFile = join(dir, "cli.wav")
  const cli =
    (script: string): Run =>
    async () => {
      const shell = Bun.spawn(["sh", "-c", script], { stderr: "inherit" })
      if ((await shell.exited) !== 0) throw new Error(`${script} failed`)
      const usage = shell.resourceUsage()! // the shell's, with the two commands it waited for
      return {
        audio: mp3Info(readFileSync(outFile)).seconds,
        cpu: Number(usage.cpuTime.user + usage.cpuTime.system) / 1e6,
      }
    }
  const [api, pipe, file] = await timedRounds([
    viaService,
    cli(`espeak-ng --stdout -f '${textFile}' | lame --quiet -b ${BITRATE} - '${outFile}'`),
    cli(`espeak-ng -w '${wavFile}' -f '${textFile}' && lame --quiet -b ${BITRATE} '${wavFile}' '${outFile}'`),
  ])
  console.log(`service (${service.compiled ? "compiled binary" : "bun server.ts"}): ${wall(api!)}`)
  console.log(`espeak-ng | lame (${BITRATE} kbit/s): ${wall(pipe!)}`)
  console.log(`espeak-ng -w, then lame: ${wall(file!)}`)
  ratio("audio s per wall s, service vs espeak-ng | lame (targets: >= 40, ratio >= 1.0)", perWall(api!), perWall(pipe!))
  ratio("audio s per wall s, service vs espeak-ng -w, then lame", perWall(api!), perWall(file!))
  ratio("audio s per CPU s, service vs espeak-ng | lame", perCpu(api!), perCpu(pipe!))
} finally {
  await service.stop()
  rmSync(dir, { recursive: true, force: true })
}
