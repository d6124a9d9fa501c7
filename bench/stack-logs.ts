// Stack logs throughput: a stack of 5 chatty services writes LINES lines each; then the same lines
// are read (tail=all, no follow) once through GET /api/stacks/{name}/logs (SSE, merged, one JSON
// object per line) and once straight from the engine's logs API, all containers in parallel, as
// lines with timestamps. Prints lines/s of both and their ratio (target: at least 0.8).
// Starts its own private engine and service process.
import { STACK_LABEL } from "#lib/engine/containers.ts"
import { dockerEngine } from "#lib/engine/client.ts"
import { startEngine } from "./support.ts"
import { startService } from "../tests/support/service.ts"

const SERVICES = 5
const LINES = Number(process.env.BENCH_LINES ?? 100_000)
const ROUNDS = 5
const bench = startEngine("logs")
const svc = await startService({ DOCKER_HOST: bench.host })
try {
  const engine = dockerEngine(bench.host)
  const service = (i: number) => `  s${i}:
    image: svc-test/busybox:latest
    command: ["sh", "-c", "i=0; while [ $$i -lt ${LINES} ]; do echo \\"s${i} line $$i of the chatty service\\"; i=$$((i+1)); done"]
`
  const content = `services:\n${Array.from({ length: SERVICES }, (_, i) => service(i)).join("")}`
  const res = await fetch(`${svc.url}/api/stacks`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ name: "chatty", content }),
  })
  if (res.status !== 201) throw new Error(`deploy failed: ${await res.text()}`)
  const ids = (await engine.listContainers({ all: true, filters: { label: [`${STACK_LABEL}=chatty`] } })).map(
    (c) => c.Id,
  )
  for (const id of ids) await engine.waitContainer(id)

  async function viaService(): Promise<number> {
    const res = await fetch(`${svc.url}/api/stacks/chatty/logs?follow=false&tail=all`)
    const decoder = new TextDecoder()
    let n = 0
    let carry = ""
    for await (const chunk of res.body!) {
      const text = carry + decoder.decode(chunk, { stream: true })
      n += text.split("\ndata: ").length - 1
      carry = text.slice(-6)
    }
    return n
  }
  async function viaEngine(): Promise<number> {
    const counts = await Promise.all(
      ids.map(async (id) => {
        let n = 0
        for await (const _ of engine.logs(id, { follow: false, tail: "all" })) n++
        return n
      }),
    )
    return counts.reduce((a, b) => a + b, 0)
  }
  /** Lines per second of one read; the count must be the whole log. */
  async function rate(read: () => Promise<number>): Promise<number> {
    const t0 = performance.now()
    const n = await read()
    if (n !== total) throw new Error(`read ${n} lines, expected ${total}`)
    return n / ((performance.now() - t0) / 1000)
  }

  // The engine may still be writing the last lines to its log files when a container has exited,
  // and a busybox echo can lose a line to a full pipe: both readers must read what the log holds.
  let total = await viaEngine()
  for (let again = 0; again !== total; await Bun.sleep(500)) [again, total] = [total, await viaEngine()]

  // The two readers take turns, so that a busy moment of the machine does not favour one of them.
  let engineRate = 0
  let serviceRate = 0
  for (let r = 0; r < ROUNDS; r++) {
    engineRate = Math.max(engineRate, await rate(viaEngine))
    serviceRate = Math.max(serviceRate, await rate(viaService))
  }
  console.log(`stack-logs: ${SERVICES} services, ${total.toLocaleString()} lines in all, best of ${ROUNDS}`)
  console.log(`  engine logs API (baseline): ${Math.round(engineRate).toLocaleString()} lines/s`)
  console.log(`  GET /api/stacks/{name}/logs: ${Math.round(serviceRate).toLocaleString()} lines/s`)
  console.log(`  ratio: ${(serviceRate / engineRate).toFixed(2)} (target >= 0.8)`)
  await fetch(`${svc.url}/api/stacks/chatty`, { method: "DELETE" })
} finally {
  await svc.stop()
  bench.stop()
}
