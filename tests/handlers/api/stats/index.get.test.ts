import { afterEach, expect, test } from "bun:test"
import { testApp, type TestApp } from "../../../support/app.ts"
import { series } from "../../../lib/stats/payload.ts"

let t: TestApp
afterEach(() => t.close())

const fixture = (name: string) => Bun.file(`${import.meta.dir}/../../../lib/stats/fixtures/${name}.json`).json()
const shop = (service: string) => ({ "com.docker.compose.project": "shop", "com.docker.compose.service": service })

test("the latest round: every running container's figures from two recorded payloads, stack sums, the host", async () => {
  t = await testApp()
  // Two real one-shot answers of Debian 12's engine for a container in a busy loop, 7.2 s apart.
  const burn = t.engine.addContainer({
    name: "burn",
    labels: shop("burn"),
    stats: [await fixture("debian12-burn-1"), await fixture("debian12-burn-2")],
  })
  t.engine.addContainer({ name: "idle", labels: shop("idle"), stats: series(Date.now() - 10_000, 0, 2) })
  t.engine.addContainer({ name: "stopped", state: "exited" })
  const info = t.engine.info.bind(t.engine)
  t.engine.info = async () => ({ ...(await info()), NCPU: 6, MemTotal: 8 * 2 ** 30 })
  await t.ctx.stats.round()
  await t.ctx.stats.round()
  const res = await t.call("GET", "/api/stats")
  expect(res.status).toBe(200)
  const body = await res.json()
  expect(body).toMatchObject({ interval: 5, history: true, host: { cpus: 6, memory_bytes: 8 * 2 ** 30 }, error: null })
  expect(body.containers.map((c: any) => c.name)).toEqual(["burn", "idle"])
  const b = body.containers[0]
  // (30581121938 - 28508101493) / (8456580000000 - 8442190000000) × 2 cores × 100
  expect(b).toMatchObject({
    id: burn.id,
    stack: "shop",
    service: "burn",
    cpu_percent: 28.81,
    cpu_host_percent: 14.41,
    memory_bytes: 335872,
    pids: 1,
  })
  expect(b.net_rx_bytes_per_s).toBe(0)
  expect(body.containers[1].cpu_percent).toBe(0)
  expect(body.stacks).toEqual([
    expect.objectContaining({ name: "shop", containers: 2, cpu_percent: 28.81, memory_bytes: 335872 + 1_000_000 }),
  ])
  expect(b.history).toBeUndefined()
})

test("history=true adds each container's and stack's columns; points averages them down", async () => {
  t = await testApp()
  const web = t.engine.addContainer({ name: "web", labels: shop("web"), stats: series(Date.now() - 30_000, 1, 5) })
  for (let i = 0; i < 5; i++) await t.ctx.stats.round()
  const body = await (await t.call("GET", "/api/stats?history=true")).json()
  const h = body.containers[0].history
  expect(h.interval).toBe(5)
  expect(h.time).toHaveLength(5)
  expect(h.cpu_percent).toEqual([null, 100, 100, 100, 100])
  expect(Object.keys(h).sort()).toEqual([
    "block_read_bytes_per_s",
    "block_write_bytes_per_s",
    "cpu_percent",
    "interval",
    "memory_bytes",
    "net_rx_bytes_per_s",
    "net_tx_bytes_per_s",
    "pids",
    "time",
  ])
  expect(body.stacks[0].history.cpu_percent).toEqual([0, 100, 100, 100, 100])
  const spark = await (await t.call("GET", "/api/stats?history=true&points=2")).json()
  expect(spark.containers[0].history.cpu_percent).toEqual([100, 100])
  expect(spark.containers[0].id).toBe(web.id)
})

test("with SVC_STATS_HISTORY=off nothing is kept and history=true adds nothing", async () => {
  t = await testApp({}, { SVC_STATS_HISTORY: "off" })
  t.engine.addContainer({ name: "web", stats: series(Date.now() - 10_000, 1, 2) })
  await t.ctx.stats.round()
  const body = await (await t.call("GET", "/api/stats?history=true")).json()
  expect(body.history).toBe(false)
  expect(body.containers[0].history).toBeUndefined()
  expect(t.ctx.stats.history.size).toBe(0)
})

test("a malformed query is a 400 naming the field", async () => {
  t = await testApp()
  for (const q of ["history=maybe", "points=abc", "points=0"]) {
    const res = await t.call("GET", `/api/stats?${q}`)
    expect(res.status).toBe(400)
    expect((await res.json()).error.code).toBe("invalid_request")
  }
})
