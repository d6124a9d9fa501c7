// bench/tts: 1000 words of Markdown through POST /api/synthesize with the offline engine (espeak-ng
// through its C API, MP3 encoded in-process), against espeak-ng's command line piped into lame's on the
// same speakable text, at the same bitrate. Figures: seconds of audio per second of wall time, and
// per second of CPU time (all threads and processes), which other load on the machine does not skew.
// Run: bun bench/tts.ts
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { BITRATE } from "../lib/tts/encoder.ts"
import { readDocument } from "../lib/tts/markdown.ts"
import { mp3Info } from "../lib/tts/mp3.ts"
import { median, ratio, startService } from "./support.ts"

const ROUNDS = 5
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
/** Runs `run` (which reports the audio seconds and the CPU seconds it used) ROUNDS times after a warm-up. */
async function timedRounds(run: () => Promise<{ audio: number; cpu: number }>): Promise<Round[]> {
  await run()
  const rounds = []
  for (let i = 0; i < ROUNDS; i++) {
    const t0 = performance.now()
    const { audio, cpu } = await run()
    rounds.push({ audio, cpu, wall: (performance.now() - t0) / 1000 })
  }
  return rounds
}
const perWall = (rounds: Round[]) => median(rounds.map((r) => r.audio / r.wall))
const perCpu = (rounds: Round[]) => median(rounds.map((r) => r.audio / r.cpu))
/** CPU seconds (user + system, every thread) a process has used so far. */
const cpuOf = (pid: number) => readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]!.split(" ").slice(11, 13).reduce((sum, ticks) => sum + Number(ticks) / 100, 0)

const service = await startService({ SVC_TTS_ENGINE: "espeak", DOCKER_HOST: `unix://${join(dir, "no-engine.sock")}` })
try {
  const viaService = await timedRounds(async () => {
    const cpu0 = cpuOf(service.proc.pid)
    const res = await fetch(`${service.url}/api/synthesize`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ text: markdown }) })
    if (res.status !== 200 || res.headers.get("x-tts-engine") !== "espeak") throw new Error(`synthesize answered ${res.status}: ${await res.text()}`)
    const audio = mp3Info(Buffer.from((await res.json()).audio_base64, "base64")).seconds
    return { audio, cpu: cpuOf(service.proc.pid) - cpu0 }
  })
  const outFile = join(dir, "cli.mp3")
  const viaCli = await timedRounds(async () => {
    const cli = Bun.spawn(["sh", "-c", `espeak-ng --stdout -f '${textFile}' | lame --quiet -b ${BITRATE} - '${outFile}'`], { stderr: "inherit" })
    if ((await cli.exited) !== 0) throw new Error("espeak-ng | lame failed")
    const usage = cli.resourceUsage()! // the shell's, with the two commands it waited for
    return { audio: mp3Info(readFileSync(outFile)).seconds, cpu: Number(usage.cpuTime.user + usage.cpuTime.system) / 1e6 }
  })
  console.log(`service (${service.compiled ? "compiled binary" : "bun server.ts"}): ${viaService[0]!.audio.toFixed(1)} s of audio in a median ${median(viaService.map((r) => r.wall)).toFixed(3)} s`)
  console.log(`espeak-ng | lame (CLI, ${BITRATE} kbit/s): ${viaCli[0]!.audio.toFixed(1)} s of audio in a median ${median(viaCli.map((r) => r.wall)).toFixed(3)} s`)
  ratio("audio seconds per wall second, service vs CLI (targets: >= 40, ratio >= 1.0)", perWall(viaService), perWall(viaCli))
  ratio("audio seconds per CPU second, service vs CLI", perCpu(viaService), perCpu(viaCli))
} finally {
  await service.stop()
  rmSync(dir, { recursive: true, force: true })
}
