// bench/tts-intelligibility: how well an independent recogniser understands each offline voice. A
// small corpus of ordinary prose (written for this benchmark, shared with no test) goes through the
// service's synthesis path (Speaker: worker process, normalisation, back end, MP3) for each back end,
// and, in the same run, through each back end's plain command line; every MP3/WAV is decoded to 16 kHz
// mono and recognised by pocketsphinx (Debian's US English model). The figure is the word error rate
// against the text (lower is better). Target: <= 0.35 for the default offline English voice (flite).
// Needs: flite, espeak-ng, ffmpeg, pocketsphinx, pocketsphinx-en-us. Run: bun bench/tts-intelligibility.ts
import { mkdtempSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { Speaker } from "#lib/tts/speaker.ts"

const CORPUS = [
  "My grandmother kept a small garden behind her house. Every spring she planted beans, carrots and a long row of sunflowers along the fence. The neighbours often stopped to talk with her while she worked.",
  "The train was late again this morning, so I walked to the office instead. It took me almost an hour, but the weather was mild and I enjoyed the quiet streets before the shops opened.",
  "When the library moved into the new building, the children were given a room of their own. There are soft chairs by the window, and on Saturday afternoons a teacher reads stories aloud.",
  "We decided to paint the kitchen a pale shade of green. My brother brought a ladder and some old sheets to cover the floor, and by the evening the first wall was finished.",
]

const MODEL = "/usr/share/pocketsphinx/model/en-us" // holds en-us/ (acoustic model), en-us.lm.bin, cmudict-en-us.dict
const dir = mkdtempSync(join(tmpdir(), "hm-bench-wer-"))

const words = (text: string) =>
  text
    .toLowerCase()
    .replace(/[^a-z' ]+/g, " ")
    .split(/\s+/)
    .filter(Boolean)

/** Word error rate: word-level edit distance over the reference length. */
export function wer(reference: string, hypothesis: string): { errors: number; words: number } {
  const r = words(reference)
  const h = words(hypothesis)
  let prev = Array.from({ length: h.length + 1 }, (_, j) => j)
  for (let i = 1; i <= r.length; i++) {
    const row = [i]
    for (let j = 1; j <= h.length; j++)
      row[j] = Math.min(prev[j]! + 1, row[j - 1]! + 1, prev[j - 1]! + (r[i - 1] === h[j - 1] ? 0 : 1))
    prev = row
  }
  return { errors: prev[h.length]!, words: r.length }
}

function run(cmd: string[]): string {
  const out = Bun.spawnSync(cmd, { stdout: "pipe", stderr: "pipe" })
  if (out.exitCode !== 0) throw new Error(`${cmd[0]} failed: ${out.stderr.toString().slice(-500)}`)
  return out.stdout.toString()
}

/** Any audio file to 16 kHz mono 16-bit WAV, then pocketsphinx's transcript. */
function recognise(audio: string): string {
  const wav = `${audio}.16k.wav`
  run(["ffmpeg", "-v", "error", "-y", "-i", audio, "-ar", "16000", "-ac", "1", "-c:a", "pcm_s16le", wav])
  const out = run([
    "pocketsphinx_continuous",
    "-infile",
    wav,
    "-hmm",
    `${MODEL}/en-us`,
    "-lm",
    `${MODEL}/en-us.lm.bin`,
    "-dict",
    `${MODEL}/cmudict-en-us.dict`,
    "-logfn",
    "/dev/null",
  ])
  return out.split("\n").filter(Boolean).join(" ")
}

type Synth = (text: string, file: string) => Promise<void>

const speakers = new Map<string, Speaker>()
const viaService =
  (backend: "offline" | "espeak"): Synth =>
  async (text, file) => {
    let speaker = speakers.get(backend)
    if (!speaker)
      speakers.set(
        backend,
        (speaker = new Speaker({
          backend,
          maxChars: 50_000,
          concurrency: 1,
          voice: "en-US-EmmaMultilingualNeural",
          edgeTimeoutMs: 1000,
        })),
      )
    const spoken = await speaker.speak(text)
    writeFileSync(file, Buffer.from(Buffer.from(spoken.base64).toString("latin1"), "base64"))
  }
const cli =
  (command: (text: string, file: string) => string[]): Synth =>
  async (text, file) =>
    void run(command(text, file))

const runs: [string, Synth, string][] = [
  ["service, offline default (flite cmu_us_slt)", viaService("offline"), "mp3"],
  ["flite -voice slt (plain CLI)", cli((t, f) => ["flite", "-voice", "slt", "-t", t, "-o", f]), "wav"],
  ["service, SVC_TTS_ENGINE=espeak (espeak-ng en-us)", viaService("espeak"), "mp3"],
  ["espeak-ng -v en-us (plain CLI)", cli((t, f) => ["espeak-ng", "-v", "en-us", "-w", f, t]), "wav"],
]

try {
  console.log(
    `corpus: ${CORPUS.length} paragraphs, ${CORPUS.reduce((n, p) => n + words(p).length, 0)} words; recogniser: pocketsphinx_continuous, ${MODEL}`,
  )
  console.log("(the service's MP3 is 48 kbit/s; the CLIs write WAV: the comparison includes the encoding)")
  for (const [name, synth, ext] of runs) {
    let errors = 0
    let total = 0
    for (const [i, text] of CORPUS.entries()) {
      const file = join(dir, `${name.replace(/\W+/g, "-")}-${i}.${ext}`)
      await synth(text, file)
      const result = wer(text, recognise(file))
      errors += result.errors
      total += result.words
    }
    console.log(`${name.padEnd(52)} WER ${(errors / total).toFixed(2)} (${errors}/${total} words)`)
  }
} finally {
  for (const s of speakers.values()) s.close()
  rmSync(dir, { recursive: true, force: true })
}
