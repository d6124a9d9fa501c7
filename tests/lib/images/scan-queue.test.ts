import { afterEach, expect, test } from "bun:test"
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { FakeEngine } from "../../support/fake-engine.ts"
import { EventBus } from "#lib/engine/events.ts"
import { resultName, ScanQueue } from "#lib/images/scan-queue.ts"
import { createScanner, type Report } from "#lib/images/scanner.ts"
import { fixture, standInPath } from "../../support/scanners.ts"

const id = (n: number) => `sha256:${String(n).repeat(64).slice(0, 64)}`
const report = (ref: string): Report => ({
  scanner: "trivy",
  version: "1",
  via: "binary",
  vulnerabilities: [
    { id: `CVE-${ref}`, package: "p", installed: "1", fixed: null, severity: "high", title: null, link: null },
  ],
})
let dirs: string[] = []
const temp = () => {
  const d = mkdtempSync(join(tmpdir(), "hm-queue-"))
  dirs.push(d)
  return d
}
afterEach(() => {
  dirs.forEach((d) => rmSync(d, { recursive: true, force: true }))
  dirs = []
})

test("scans run one at a time in the order asked, a repeated request waiting once", async () => {
  const order: string[] = []
  let active = 0
  const queue = new ScanQueue(temp(), async (ref) => {
    expect(++active).toBe(1)
    order.push(ref)
    await Bun.sleep(5)
    active--
    return report(ref)
  })
  await queue.enqueue(id(1), "a:1")
  await queue.enqueue(id(2), "b:1")
  await queue.enqueue(id(2), "b:1")
  await queue.enqueue(id(3), "c:1")
  await queue.idle()
  expect(order).toEqual(["a:1", "b:1", "c:1"])
  expect(queue.length).toBe(0)
  const result = await queue.result(id(2))
  expect(result).toMatchObject({
    image: id(2),
    ref: "b:1",
    status: "done",
    scanner: "trivy",
    counts: { high: 1, critical: 0 },
    error: null,
  })
  expect(result!.vulnerabilities.map((v) => v.id)).toEqual(["CVE-b:1"])
  expect([...(await queue.results()).keys()].sort()).toEqual([id(1), id(2), id(3)])
})

test("pending jobs survive a restart: a new queue on the same data dir resumes them in order", async () => {
  const dataDir = temp()
  const stuck = new ScanQueue(dataDir, () => new Promise<Report>(() => {}))
  await stuck.enqueue(id(1), "a:1")
  await stuck.enqueue(id(2), "b:1")
  expect(stuck.state(id(1))).toBe("running")
  expect(stuck.state(id(2))).toBe("queued")
  expect(
    JSON.parse(readFileSync(join(dataDir, "scans/queue.json"), "utf8")).map((j: { ref: string }) => j.ref),
  ).toEqual(["a:1", "b:1"])

  const order: string[] = []
  const restarted = new ScanQueue(dataDir, async (ref) => (order.push(ref), report(ref)))
  await restarted.resume()
  expect(order).toEqual(["a:1", "b:1"])
  expect(JSON.parse(readFileSync(join(dataDir, "scans/queue.json"), "utf8"))).toEqual([])
  expect((await restarted.result(id(1)))?.status).toBe("done")
})

test("a failed scan is recorded with its error, published as an event, and the queue goes on", async () => {
  const events = new EventBus()
  const queue = new ScanQueue(
    temp(),
    async (ref) => {
      if (ref === "bad:1") throw new Error("trivy exited with 1: FATAL no such image")
      return report(ref)
    },
    events,
  )
  await queue.enqueue(id(1), "bad:1")
  await queue.enqueue(id(2), "good:1")
  await queue.idle()
  expect(await queue.result(id(1))).toMatchObject({
    status: "failed",
    error: "trivy exited with 1: FATAL no such image",
    vulnerabilities: [],
  })
  expect((await queue.result(id(2)))?.status).toBe("done")
  expect(events.history().map((e) => [e.action, e.level])).toEqual([
    ["scan_failed", "error"],
    ["scan", "info"],
  ])
})

test("a scan past SVC_SCAN_TIMEOUT fails with the timeout, through the real adapter", async () => {
  const path = standInPath("trivy")
  dirs.push(path)
  const scanner = createScanner({
    choice: "auto",
    timeout: 1,
    engine: new FakeEngine(),
    env: { PATH: `${path}:/usr/bin:/bin`, STAND_IN_REPORT: fixture("trivy-alpine-310.json"), STAND_IN_SLEEP: "20" },
  })
  const queue = new ScanQueue(temp(), (ref) => scanner.scan(ref))
  await queue.enqueue(id(4), "slow:1")
  await queue.idle()
  expect(await queue.result(id(4))).toMatchObject({ status: "failed", error: "trivy did not finish within 1 s" })
})

test("only full image ids become file names", async () => {
  expect(resultName(id(7))).toBe(`${"7".repeat(64)}.json`)
  for (const bad of ["../../etc/passwd", "sha256:abc", `sha256:${"g".repeat(64)}`])
    expect(() => resultName(bad)).toThrow("is not a full image id")
  const dataDir = temp()
  await expect(new ScanQueue(dataDir, async (r) => report(r)).enqueue("../x", "x")).rejects.toThrow()
  expect(existsSync(join(dataDir, "scans"))).toBe(false)
})
