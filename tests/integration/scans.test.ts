// Scans against the real engine: the service process runs the stand-in scanner found on its PATH
// (printing a real scanner's recorded report), resumes its queue after a restart, and without a
// binary runs the scanner's image as a container with the engine socket mounted.
import { afterAll, beforeAll, expect, test } from "bun:test"
import { mkdtempSync, readFileSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import type { Engine } from "#lib/engine/client.ts"
import { cacheVolume } from "#lib/images/scanner.ts"
import { cleanup, engineHost, realEngine, TEST_LABEL, testImage } from "../support/engine.ts"
import { fixture, standInPath } from "../support/scanners.ts"
import { startService, type Service } from "../support/service.ts"
import { promtool } from "../support/promtool.ts"

let engine: Engine
let path: string
let second: string
const made: string[] = []
const services: Service[] = []
const dataDir = mkdtempSync(join(tmpdir(), "hm-scans-"))

/** Runs a labelled container of the test image to completion and commits it as repo:tag. */
async function commit(
  script: string,
  repo: string,
  tag: string,
  env: string[] = [],
  changes: string[] = [],
): Promise<string> {
  const { Id } = await engine.createContainer({
    Image: testImage(),
    Cmd: ["sh", "-c", script],
    Env: env,
    Labels: { [TEST_LABEL]: "1" },
  })
  await engine.containerAction(Id, "start")
  expect((await engine.waitContainer(Id)).StatusCode).toBe(0)
  const image = (await engine.commitContainer(Id, repo, tag, changes)).Id
  made.push(image)
  return image
}

beforeAll(async () => {
  engine = realEngine()
  path = standInPath("trivy")
  second = await commit("echo two > /second", "hm-scan/second", "1")
}, 60_000)

afterAll(async () => {
  for (const s of services) await s.stop()
  await cleanup(engine)
  for (const id of made) await engine.removeImage(id, { force: true }).catch(() => {})
  await engine.removeVolume(cacheVolume("grype"), { force: true }).catch(() => {})
  rmSync(path, { recursive: true, force: true })
  rmSync(dataDir, { recursive: true, force: true })
}, 60_000)

async function start(env: Record<string, string>): Promise<Service> {
  const s = await startService(
    { DOCKER_HOST: engineHost(), SVC_METRICS: "on", PATH: `${path}:${process.env.PATH}`, ...env },
    { dataDir },
  )
  services.push(s)
  return s
}

/** Polls the result until the queue is done with the image. */
async function result(s: Service, image: string): Promise<any> {
  for (;;) {
    const res = await fetch(`${s.url}/api/images/${image}/scan`)
    const body = res.status === 200 ? await res.json() : undefined
    if (body?.status && !body.state) return body
    await Bun.sleep(100)
  }
}

test("a restarted service resumes its queue; results and summaries of the real images; /metrics passes promtool", async () => {
  const slow = await start({ STAND_IN_REPORT: fixture("trivy-alpine-310.json"), STAND_IN_SLEEP: "60" })
  const first = await (
    await fetch(`${slow.url}/api/images/${encodeURIComponent(testImage())}/scan`, { method: "POST" })
  ).json()
  expect((await fetch(`${slow.url}/api/images/${second}/scan`, { method: "POST" })).status).toBe(202)
  expect(
    JSON.parse(readFileSync(join(dataDir, "scans/queue.json"), "utf8")).map((j: { image: string }) => j.image),
  ).toEqual([first.image, second])
  await slow.stop()
  services.pop()

  const fast = await start({ STAND_IN_REPORT: fixture("trivy-debian-buster.json") })
  const a = await result(fast, first.image)
  const b = await result(fast, second)
  expect(a).toMatchObject({ status: "done", ref: testImage(), scanner: "trivy", counts: { critical: 1, low: 1 } })
  expect(a.vulnerabilities.map((v: { id: string }) => v.id)).toEqual(["CVE-2019-18276", "CVE-2019-18224"])
  expect(b).toMatchObject({ status: "done", ref: "hm-scan/second:1" })

  const images = (await (await fetch(`${fast.url}/api/images`)).json()) as any[]
  expect(images.find((i) => i.id === first.image)).toMatchObject({
    scan: { status: "done", scanner: "trivy", counts: { critical: 1, low: 1 } },
    scan_state: null,
  })

  const metrics = await (await fetch(`${fast.url}/metrics`)).text()
  expect(await promtool(metrics)).toEqual({ code: 0, output: "" })
  expect(metrics).toMatch(/^harbormaster_image_vulnerabilities\{severity="critical"\} [1-9]/m)
  expect(metrics).toMatch(/^harbormaster_engine_up 1$/m)
  expect(metrics).toMatch(/^harbormaster_last_engine_event_timestamp_seconds \d/m)
  await fast.stop()
  services.pop()
}, 60_000)

test("without a binary the scanner's image runs as a container, with the engine socket and the cache volume mounted", async () => {
  // A stand-in of anchore/grype: refuses to run without the engine socket and the cache, prints a recorded report.
  const script = [
    'printf "%s" "$REPORT" > /report.json',
    `printf '%s\\n' '#!/bin/sh' 'test -S /var/run/docker.sock || { echo "no engine socket" >&2; exit 3; }' 'test -d "$GRYPE_DB_CACHE_DIR" || exit 4' 'test "$1 $2" = "-o json" || exit 5' 'cat /report.json' > /scan.sh`,
  ].join(" && ")
  await commit(
    script,
    "anchore/grype",
    "latest",
    [`REPORT=${readFileSync(fixture("grype-image.json"), "utf8")}`],
    ['ENTRYPOINT ["/bin/sh", "/scan.sh"]'],
  )
  const s = await start({ SVC_SCANNER: "grype", PATH: "/usr/bin:/bin" })
  expect((await fetch(`${s.url}/api/images/${second}/scan`, { method: "POST" })).status).toBe(202)
  const r = await result(s, second)
  expect(r).toMatchObject({ status: "done", scanner: "grype", error: null, counts: { critical: 1, low: 1 } })
  expect(r.vulnerabilities.map((v: { id: string }) => v.id)).toEqual(["CVE-1999-0001", "CVE-1999-0002"])
  expect((await engine.inspectVolume(cacheVolume("grype"))).Name).toBe(cacheVolume("grype"))
  expect(await engine.listContainers({ all: true, filters: { label: ["harbormaster.scanner"] } })).toEqual([])
}, 60_000)
