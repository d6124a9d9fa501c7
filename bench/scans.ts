// bench/scans: on a private engine with 60 containers in 12 compose projects and 20 scanned images,
// GET /metrics against the engine's own GET /containers/json?all=1 (the biggest call a scrape makes),
// and one scan through the API (POST, queue, stand-in scanner, result stored, GET) against running
// the same stand-in scanner directly.
// Run: bun bench/scans.ts (as root, like the tests).
import { rmSync } from "node:fs"
import { dockerEngine } from "#lib/engine/client.ts"
import { fixture, standInPath } from "../tests/support/scanners.ts"
import { engineContainerList, median, ratio, startEngine, startService } from "./support.ts"

const ITERATIONS = 40
const engineInfo = startEngine("scans")
const path = standInPath("trivy")
const report = fixture("trivy-debian-buster.json")

async function timed(fn: () => Promise<unknown>): Promise<number> {
  const t0 = performance.now()
  await fn()
  return performance.now() - t0
}

try {
  const engine = dockerEngine(engineInfo.host)
  const images: string[] = []
  for (let i = 0; i < 20; i++) {
    await engine.tagImage("svc-test/busybox:latest", `bench/img${i}`, "1")
    images.push(`bench/img${i}:1`)
  }
  for (let i = 0; i < 60; i++)
    await engine.createContainer({
      Image: images[i % 20],
      Cmd: ["true"],
      Labels: { "com.docker.compose.project": `p${i % 12}`, "com.docker.compose.service": "s" },
    })
  const service = await startService({
    DOCKER_HOST: engineInfo.host,
    SVC_METRICS: "on",
    PATH: `${path}:${process.env.PATH}`,
    STAND_IN_REPORT: report,
  })
  try {
    await fetch(`${service.url}/api/images/scan`, { method: "POST" })
    // All 20 share one id (tags of one image): wait for the queue to empty.
    while (!/^harbormaster_scan_queue_length 0$/m.test(await (await fetch(`${service.url}/metrics`)).text()))
      await Bun.sleep(20)

    const engineCall = await engineContainerList(engineInfo.host)
    const scrape = () => fetch(`${service.url}/metrics`).then((r) => r.text())
    for (let i = 0; i < 5; i++) await Promise.all([engineCall(), scrape()])
    const base: number[] = []
    const metrics: number[] = []
    for (let i = 0; i < ITERATIONS; i++) {
      base.push(await timed(engineCall))
      metrics.push(await timed(scrape))
    }
    ratio("GET /metrics vs engine GET /containers/json?all=1 (median)", median(metrics), median(base), " ms")

    const id = (await engine.inspectImage("svc-test/busybox:latest")).Id
    const direct = () =>
      new Response(
        Bun.spawn([`${path}/trivy`, "image", "--format", "json", "svc-test/busybox:latest"], {
          env: { STAND_IN_REPORT: report },
          stdout: "pipe",
        }).stdout,
      ).text()
    const viaApi = async () => {
      await fetch(`${service.url}/api/images/${id}/scan`, { method: "POST" })
      for (;;) {
        const body = (await (await fetch(`${service.url}/api/images/${id}/scan`)).json()) as { state: string | null }
        if (!body.state) return
        await Bun.sleep(2)
      }
    }
    const directTimes: number[] = []
    const apiTimes: number[] = []
    for (let i = 0; i < 15; i++) {
      directTimes.push(await timed(direct))
      apiTimes.push(await timed(viaApi))
    }
    ratio(
      "one scan through the API and queue vs the stand-in scanner run directly (median)",
      median(apiTimes),
      median(directTimes),
      " ms",
    )
  } finally {
    await service.stop()
  }
} finally {
  engineInfo.stop()
  rmSync(path, { recursive: true, force: true })
}
