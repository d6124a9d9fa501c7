import { expect, test } from "bun:test"
import { FakeEngine } from "../../support/fake-engine.ts"
import { LEASE_MS, mapBounded, StatsSampler } from "#lib/stats/sampler.ts"
import { payload, series } from "./payload.ts"

const T0 = Date.parse("2026-11-23T12:00:00Z")
const shop = (service: string) => ({ "com.docker.compose.project": "shop", "com.docker.compose.service": service })

function setup(history = true) {
  const engine = new FakeEngine()
  let now = T0
  const sampler = new StatsSampler(engine, { interval: 5, history, now: () => now })
  return { engine, sampler, advance: (ms: number) => (now += ms) }
}

test("a round: CPU % from the sampler's own successive readings, memory, rates, stack sums, host", async () => {
  const { engine, sampler, advance } = setup()
  // web burns one core (of two), db half a core with a 0.5-core limit, tool a quarter, outside any stack.
  const web = engine.addContainer({
    name: "web",
    labels: shop("web"),
    stats: series(T0, 1, 3, 5, { rx: 5000, tx: 1000 }),
  })
  const db = engine.addContainer({
    name: "db",
    labels: shop("db"),
    hostConfig: { NanoCpus: 500_000_000 },
    stats: series(T0, 0.5, 3, 5, { memUsage: 300e6, inactiveFile: 100e6, limit: 512e6 }),
  })
  engine.addContainer({ name: "tool", stats: series(T0, 0.25, 3) })
  engine.addContainer({ name: "old", state: "exited" })

  const first = await sampler.round()
  expect(first.host).toEqual({ cpus: 2, memory_bytes: 1 << 30 })
  expect(first.containers.map((c) => c.name)).toEqual(["db", "tool", "web"])
  expect(first.containers.every((c) => c.cpu_percent === null)).toBe(true)
  expect(first.containers.find((c) => c.name === "db")).toMatchObject({
    memory_bytes: 200e6,
    memory_limit_bytes: 512e6,
    cpu_limit_cores: 0.5,
  })

  advance(5000)
  const second = await sampler.round()
  const by = (n: string) => second.containers.find((c) => c.name === n)!
  expect(by("web")).toMatchObject({
    id: web.id,
    stack: "shop",
    service: "web",
    cpu_percent: 100,
    cpu_host_percent: 50,
    cpu_limit_percent: null,
    net_rx_bytes_per_s: 1000,
    net_tx_bytes_per_s: 200,
    pids: 1,
  })
  expect(by("db")).toMatchObject({
    id: db.id,
    cpu_percent: 50,
    cpu_host_percent: 25,
    cpu_limit_percent: 100,
    memory_percent: 39.06,
  })
  expect(by("tool")).toMatchObject({ cpu_percent: 25, stack: null })
  expect(second.stacks).toEqual([
    {
      name: "shop",
      containers: 2,
      cpu_percent: 150,
      cpu_host_percent: 75,
      memory_bytes: 201e6,
      net_rx_bytes_per_s: 1000,
      net_tx_bytes_per_s: 200,
      block_read_bytes_per_s: 0,
      block_write_bytes_per_s: 0,
      pids: 2,
    },
  ])
  // One stats read per running container per round, and each container's limits inspected once.
  expect(engine.calls.filter((c) => c.op === "stats").length).toBe(6)
  expect(engine.calls.filter((c) => c.op === "inspectContainer").length).toBe(3)
  expect(engine.calls.filter((c) => c.op === "info").length).toBe(1)

  const h = sampler.historyOf("container", web.id)
  expect(h.time).toEqual([T0, T0 + 5000])
  expect(h.cpu_percent).toEqual([null, 100])
  expect(sampler.historyOf("stack", "shop").cpu_percent).toEqual([0, 150])
})

test("with history, the host's hour: the containers' share of all its cores and their memory each round, and the data directory's disk space", async () => {
  const engine = new FakeEngine()
  let now = T0
  const sampler = new StatsSampler(engine, { interval: 5, history: true, now: () => now, disk: import.meta.dir })
  engine.addContainer({ name: "web", labels: shop("web"), stats: series(T0, 1, 3) })
  engine.addContainer({ name: "tool", stats: series(T0, 0.5, 3) })
  for (let i = 0; i < 3; i++, now += 5000) await sampler.round()
  const h = sampler.hostHistory()
  expect(h.time).toEqual([T0, T0 + 5000, T0 + 10_000])
  // one core and half a core of two: 75 % of the host; nothing in the first round (no CPU figure yet)
  expect(h.cpu_percent).toEqual([0, 75, 75])
  expect(h.memory_bytes.every((m) => m! > 0)).toBe(true)
  const disk = (await sampler.disk())!
  expect(disk.path).toBe(import.meta.dir)
  expect(disk.used_bytes).toBeGreaterThan(0)
  expect(disk.total_bytes).toBeGreaterThanOrEqual(disk.used_bytes)
  expect(h.disk_used_bytes.every((d) => d! > 0)).toBe(true)
  // An hour later with no round, the hour is empty.
  now += 3_600_000
  expect(sampler.hostHistory().time).toEqual([])
  // Without history, no hour is kept; the disk is read when asked.
  const bare = new StatsSampler(engine, { interval: 5, history: false, now: () => now, disk: import.meta.dir })
  await bare.round()
  expect(bare.hostHistory().time).toEqual([])
  expect((await bare.disk())?.used_bytes).toBeGreaterThan(0)
})

test("a container that stops leaves the next round and its previous reading is dropped", async () => {
  const { engine, sampler, advance } = setup()
  const web = engine.addContainer({ name: "web", stats: series(T0, 1, 4) })
  await sampler.round()
  advance(5000)
  expect((await sampler.round()).containers).toHaveLength(1)
  web.state = "exited"
  advance(5000)
  expect((await sampler.round()).containers).toEqual([])
  // Started again: its first round back has no CPU figure (no stale delta across the gap).
  web.state = "running"
  advance(5000)
  expect((await sampler.round()).containers[0]!.cpu_percent).toBeNull()
  // Its history stays (a chart of what it did before it stopped), with the gap.
  expect(sampler.historyOf("container", web.id).time).toEqual([T0, T0 + 5000, T0 + 15000])
})

test("a container gone between the list and its read leaves the round quietly", async () => {
  const { engine, sampler } = setup()
  engine.addContainer({ name: "web", stats: series(T0, 1, 2) })
  const gone = engine.addContainer({ name: "gone" })
  const stats = engine.stats.bind(engine)
  engine.stats = async (id) => (id === gone.id ? Promise.reject(new Error("No such container")) : stats(id))
  expect((await sampler.round()).containers.map((c) => c.name)).toEqual(["web"])
})

test("an engine that is down gives a round with its error and no containers", async () => {
  const { engine, sampler } = setup()
  engine.addContainer({ name: "web", stats: series(T0, 1, 2) })
  engine.down = true
  const r = await sampler.round()
  expect(r.containers).toEqual([])
  expect(r.error).toContain("unreachable")
})

test("reads run a few at a time", async () => {
  let running = 0
  let most = 0
  await mapBounded(
    Array.from({ length: 50 }, (_, i) => i),
    8,
    async () => {
      most = Math.max(most, ++running)
      await Bun.sleep(1)
      running--
    },
  )
  expect(most).toBe(8)
})

test("without history the sampler sleeps until someone listens, and stops when they leave", async () => {
  const engine = new FakeEngine()
  engine.addContainer({ name: "web", stats: [payload({ read: T0, cpuNs: 0, systemNs: 1e12 })] })
  const sampler = new StatsSampler(engine, { interval: 1, history: false })
  const stop = new AbortController()
  const running = sampler.run(stop.signal)
  await Bun.sleep(50)
  expect(engine.calls.filter((c) => c.op === "stats")).toHaveLength(0)
  expect(sampler.active()).toBe(false)

  const listener = new AbortController()
  const rounds = sampler.subscribe(listener.signal)
  const first = await rounds.next()
  expect(first.value.containers.map((c: { name: string }) => c.name)).toEqual(["web"])
  // A priming read one second before the first round, so that round has rates.
  expect(engine.calls.filter((c) => c.op === "stats").length).toBe(2)
  listener.abort()
  await rounds.return(undefined)
  expect(sampler.active()).toBe(false)
  await Bun.sleep(1100)
  const after = engine.calls.filter((c) => c.op === "stats").length
  await Bun.sleep(1100)
  expect(engine.calls.filter((c) => c.op === "stats").length).toBe(after)
  // Nothing is kept without history.
  expect(sampler.history.size).toBe(0)
  stop.abort()
  await running
})

test("a GET wakes a sleeping sampler for a lease and waits for its round", async () => {
  const engine = new FakeEngine()
  engine.addContainer({ name: "web", stats: series(Date.now(), 1, 5, 1) })
  let now = Date.now()
  const sampler = new StatsSampler(engine, { interval: 1, history: false, now: () => now })
  const stop = new AbortController()
  const running = sampler.run(stop.signal)
  const r = await sampler.fresh()
  expect(r.containers.map((c) => c.name)).toEqual(["web"])
  expect(r.containers[0]!.cpu_percent).toBe(100)
  expect(sampler.active()).toBe(true)
  now += LEASE_MS + 1
  expect(sampler.active()).toBe(false)
  stop.abort()
  await running
})
