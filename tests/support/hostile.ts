// Hostile inputs for the service's parsers and its compose runs, shared by the integration test of
// bounded parsing (tests/integration/bounded.test.ts) and its benchmark (bench/parsing.ts), and a
// health prober that keeps asking /api/health while they are sent.
const MiB = 1024 * 1024

/** A JSON text of `bytes` bytes: arrays nested inside each other. */
export const nestedArrays = (bytes: number) => "[".repeat(bytes / 2) + "]".repeat(bytes / 2)

/** A JSON text of about `bytes` bytes: objects nested inside each other. */
export const nestedObjects = (bytes: number) => {
  const depth = Math.floor(bytes / 6)
  return '{"a":'.repeat(depth) + "1" + "}".repeat(depth)
}

/** A compose file of just under `bytes` bytes: one service, then top-level keys compose does not know. */
export function manyKeys(image: string, bytes = MiB): string {
  const head = `services:\n  web:\n    image: ${image}\n`
  const keys: string[] = []
  let size = head.length
  for (let i = 0; size + 16 < bytes; i++) {
    const line = `k${i.toString(36)}: 1\n`
    keys.push(line)
    size += line.length
  }
  return head + keys.join("")
}

/** A compose file over `bytes` bytes. */
export const tooLarge = (image: string, bytes = 2 * MiB) =>
  `services:\n  web:\n    image: ${image}\nx-pad: "${"y".repeat(bytes)}"\n`

/** About 1 MiB of mapping keys that are themselves deep collections: minutes for the YAML parser. */
export const slowKeys = () => ("? " + "[".repeat(500) + "]".repeat(500) + "\n: x\n").repeat(MiB / 1010)

/** The classic alias bomb as a compose file compose would `extends` from: nine levels of nine aliases. */
export function aliasBomb(image: string): string {
  const lines = ['x-a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]']
  for (let i = 1; i < 9; i++) {
    const [prev, name] = [String.fromCharCode(96 + i), String.fromCharCode(97 + i)]
    lines.push(`x-${name}: &${name} [${Array(9).fill(`*${prev}`).join(",")}]`)
  }
  return `services:\n  base:\n    image: ${image}\n${lines.join("\n")}\n`
}

/** A stack whose `up` never ends: web waits for a job to complete, and the job never exits (it stops promptly on SIGTERM). */
export const neverEnding = (image: string, label: string) => `services:
  job:
    image: ${image}
    command: ["sh", "-c", "trap 'exit 0' TERM; while true; do sleep 0.2; done"]
    labels: { ${label}: "1" }
  web:
    image: ${image}
    command: ["sh", "-c", "trap 'exit 0' TERM; while true; do sleep 0.2; done"]
    labels: { ${label}: "1" }
    depends_on:
      job: { condition: service_completed_successfully }
`

export interface Probe {
  /** Milliseconds each answer took, in order. */
  latencies: number[]
  /** When each answer came (performance.now()). */
  answered: number[]
  /** Answers other than 200, and errors. */
  failures: string[]
  stop(): Promise<void>
}

/** Asks `url`/api/health one request after the other (a pause of `everyMs` between) until stopped. */
export function probeHealth(url: string, everyMs = 20): Probe {
  let running = true
  const probe: Probe = {
    latencies: [],
    answered: [],
    failures: [],
    async stop() {
      running = false
      await loop
    },
  }
  const loop = (async () => {
    while (running) {
      const t0 = performance.now()
      const res = await fetch(`${url}/api/health`).catch((err: Error) => err)
      if (res instanceof Response && res.status === 200) {
        await res.arrayBuffer()
        probe.latencies.push(performance.now() - t0)
        probe.answered.push(performance.now())
      } else probe.failures.push(res instanceof Response ? `status ${res.status}` : res.message)
      await Bun.sleep(everyMs)
    }
  })()
  return probe
}
