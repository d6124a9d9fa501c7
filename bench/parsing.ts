// bench/parsing: /api/health while the service is sent hostile inputs (tests/support/hostile.ts:
// nested JSON of 20 and 100 KB, 1 MiB of top-level keys, 1 MiB of labels, 1 MiB of keys that take
// the YAML parser minutes, a 2 MiB compose file, an alias bomb in an extends file, an `up` that never
// ends), against health on the idle service in the same run. Health is asked one request after the
// other; prints the median and 99th percentile latency during each input as a ratio of the idle ones
// (target: the medians within a few times idle, never seconds), on each engine flavour
// (BENCH_FLAVOURS). Run: bun bench/parsing.ts   (as root)
import {
  aliasBomb,
  manyKeys,
  nestedArrays,
  nestedObjects,
  neverEnding,
  probeHealth,
  slowKeys,
  tooLarge,
} from "../tests/support/hostile.ts"
import { benchFlavours, composeTools, type Flavour, median, percentile, startEngine, startService } from "./support.ts"

const IMAGE = "svc-test/busybox:latest"
const NAME = "bench-parsing"
const IDLE_MS = 3000
const COMPOSE_TIMEOUT = 10

const labels = (bytes: number) => {
  let text = `services:\n  web:\n    image: ${IMAGE}\n    labels:\n`
  for (let i = 0; text.length < bytes - 24; i++) text += `      k${i.toString(36)}: "1"\n`
  return text
}
const deploy = (content: string, files?: Record<string, string>) =>
  JSON.stringify({ name: NAME, content, ...(files ? { files } : {}) })
const extending = "services:\n  web:\n    extends: { file: ./base.yaml, service: base }\n"

const inputs: [string, string][] = [
  ["nested arrays, 20 KB", nestedArrays(20_000)],
  ["nested objects, 100 KB", nestedObjects(100_000)],
  ["1 MiB of top-level keys", deploy(manyKeys(IMAGE))],
  ["1 MiB of labels", deploy(labels(1024 * 1024 - 64))],
  ["1 MiB of keys slow to parse", deploy(slowKeys())],
  ["2 MiB compose file", deploy(tooLarge(IMAGE))],
  ["alias bomb in an extends file", deploy(extending, { "base.yaml": aliasBomb(IMAGE) })],
  ["an up that never ends", deploy(neverEnding(IMAGE, "bench"))],
]

const row = (label: string, xs: number[], idle: number[]) =>
  console.log(
    `${label.padEnd(52)} ${String(xs.length).padStart(5)} answers  median ${median(xs).toFixed(2)} ms (x${(median(xs) / median(idle)).toFixed(1)})  p99 ${percentile(xs, 0.99).toFixed(2)} ms (x${(percentile(xs, 0.99) / percentile(idle, 0.99)).toFixed(1)})`,
  )

async function measure(flavour: Flavour): Promise<void> {
  const tools = composeTools(flavour)
  const engine = startEngine("parse", flavour)
  try {
    const svc = await startService({ ...tools, DOCKER_HOST: engine.host, SVC_COMPOSE_TIMEOUT: String(COMPOSE_TIMEOUT) })
    try {
      const idle = probeHealth(svc.url)
      await Bun.sleep(IDLE_MS)
      await idle.stop()
      console.log(
        `\n${flavour}: ${svc.compiled ? "compiled binary" : "bun server.ts"}; health asked one request after the other`,
      )
      row("idle", idle.latencies, idle.latencies)
      for (const [label, body] of inputs) {
        const probe = probeHealth(svc.url)
        const res = await fetch(`${svc.url}/api/stacks`, {
          method: "POST",
          headers: { "content-type": "application/json" },
          body,
        })
        const answer = (await res.json()) as { error?: { code: string } }
        await probe.stop()
        row(`${label}: ${res.status} ${answer.error?.code ?? ""}`, probe.latencies, idle.latencies)
        if (probe.failures.length) console.log(`  health failed ${probe.failures.length} times: ${probe.failures[0]}`)
      }
      await fetch(`${svc.url}/api/stacks/${NAME}`, { method: "DELETE" })
    } finally {
      await svc.stop()
    }
  } finally {
    engine.stop()
  }
}

for (const flavour of benchFlavours()) await measure(flavour)
