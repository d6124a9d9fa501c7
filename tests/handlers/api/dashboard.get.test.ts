import { afterEach, expect, test } from "bun:test"
import { writeFileSync } from "node:fs"
import { join } from "node:path"
import { Repos } from "#lib/backups/repos.ts"
import { overview } from "#lib/overview/overview.ts"
import { engineError, type Engine } from "#lib/engine/client.ts"
import { SERVICE_LABEL, STACK_LABEL } from "#lib/engine/containers.ts"
import { stackDirs } from "#lib/stacks/name.ts"
import type { Cve, Severity } from "#lib/images/scanner.ts"
import type { UpdateOutcome, Verdict } from "#lib/updates/records.ts"
import { testApp, type TestApp } from "../../support/app.ts"
import { FakeCompose, twoServices } from "../../support/compose.ts"
import { FakeEngine } from "../../support/fake-engine.ts"
import { watchFileReads } from "../../support/file-reads.ts"

let t: TestApp
afterEach(() => t.close())

const ops = () => t.engine.calls.map((c) => c.op).sort()

test("summarises the engine's answers: states counted, sizes and disk use summed, the version renamed; everything asked at once", async () => {
  t = await testApp()
  t.engine.addContainer({ name: "a" })
  t.engine.addContainer({ name: "b", state: "exited" })
  t.engine.addContainer({ name: "c", state: "paused", labels: { "com.docker.compose.project": "shop" } })
  t.engine.addImage(["busybox:latest"], { Size: 1500 })
  t.engine.addImage([], { Size: 500 })
  await t.engine.createVolume("data")
  const engine: Engine = t.engine
  const [version, df] = [engine.version.bind(engine), engine.df.bind(engine)]
  engine.version = async () => ({
    ...(await version()),
    Version: "26.1.5",
    ApiVersion: "1.45",
    Arch: "arm64",
    KernelVersion: "6.1.0-28",
  })
  // -1 is the engine's "not counted": it adds nothing
  engine.df = async () => ({
    ...(await df()),
    LayersSize: 4000,
    Containers: [{ SizeRw: 10 }, { SizeRw: -1 }, {}],
    Volumes: [{ UsageData: { Size: 300 } }],
    BuildCache: [{ Size: 7 }, { Size: 3 }],
  })
  t.engine.calls = []
  const res = await t.call("GET", "/api/dashboard")
  expect(res.status).toBe(200)
  const body = await res.json()
  expect(body).toMatchObject({
    engine: { version: "26.1.5", api_version: "1.45", os: "linux", arch: "arm64", kernel: "6.1.0-28" },
    container_states: { total: 3, running: 1, exited: 1, paused: 1, created: 0, restarting: 0, dead: 0 },
    images: { count: 2, size: 2000 },
    volumes: { count: 1 },
    networks: { count: 1 },
    disk: { images: 4000, containers: 10, volumes: 300, build_cache: 10, total: 4320 },
  })
  expect(body.containers.map((c: { name: string }) => c.name).sort()).toEqual(["a", "b", "c"])
  expect(body.containers.find((c: { name: string }) => c.name === "c").stack).toBe("shop")
  expect(ops()).toEqual(["df", "info", "listContainers", "listImages", "listNetworks", "listVolumes", "version"])
  // The engine's version and disk use are reused by the next dashboard; the lists and the swarm are asked again.
  t.engine.calls = []
  t.engine.addContainer({ name: "d", state: "created" })
  expect((await (await t.call("GET", "/api/dashboard")).json()).container_states).toMatchObject({
    total: 4,
    created: 1,
  })
  expect(ops()).toEqual(["info", "listContainers", "listImages", "listNetworks", "listVolumes"])
})

test("a failed disk count fails the dashboard with the engine's error and is not kept: the next dashboard counts again", async () => {
  t = await testApp()
  const df = t.engine.df.bind(t.engine)
  let busy = true
  t.engine.df = async () => {
    if (busy) throw engineError(500, "a disk usage operation is already running")
    return df()
  }
  const res = await t.call("GET", "/api/dashboard")
  expect(res.status).toBe(502)
  expect(await res.json()).toEqual({
    error: { code: "engine_error", message: "a disk usage operation is already running" },
  })
  busy = false
  t.engine.calls = []
  expect((await t.call("GET", "/api/dashboard")).status).toBe(200)
  expect(ops()).toContain("df")
})

test("an unreachable engine is a 503 with the error shape", async () => {
  t = await testApp()
  t.engine.down = true
  const res = await t.call("GET", "/api/dashboard")
  expect(res.status).toBe(503)
  expect((await res.json()).error).toMatchObject({
    code: "engine_unavailable",
    message: expect.stringContaining("unreachable"),
  })
})

test("the dashboard says the engine's place in a swarm", async () => {
  t = await testApp()
  t.engine.swarm.seed(1)
  expect((await (await t.call("GET", "/api/dashboard")).json()).swarm).toMatchObject({
    active: true,
    role: "manager",
    nodes: 2,
  })
})

const cve = (id: string, severity: Severity): Cve => ({
  id,
  package: "libfoo",
  installed: "1.0",
  fixed: null,
  severity,
  title: null,
  link: null,
})
const outcome = (stack: string, verdict: Verdict): UpdateOutcome => ({
  stack,
  action: "update",
  trigger: "policy",
  verdict,
  reason: verdict === "updated" ? null : "web exited with code 1",
  fix: null,
  version: 1,
  images: [],
  watch: 30,
  decided_early: true,
  started_at: "2026-11-27T10:00:00.000Z",
  finished_at: "2026-11-27T10:01:00.000Z",
  duration_ms: 60_000,
})

test("health: stacks by health with failed updates first, updates and CVEs of the images here, nodes, swarm services below their replicas, overdue backups; ok only when none", async () => {
  let clock = Date.parse("2026-11-27T12:00:00Z")
  const engine = new FakeEngine()
  const compose = new FakeCompose(engine)
  const report = {
    scanner: "trivy" as const,
    version: "0.50",
    via: "binary" as const,
    vulnerabilities: [cve("CVE-1", "critical"), cve("CVE-2", "high"), cve("CVE-3", "high"), cve("CVE-4", "low")],
  }
  t = { ...(await testApp({ engine, compose, now: () => clock, scanner: { scan: async () => report } })), engine }
  for (const name of ["good", "half", "sick", "failing"])
    expect((await t.call("POST", "/api/stacks", { name, content: twoServices })).status).toBe(201)
  const containerOf = (stack: string, service: string) =>
    [...engine.containers.values()].find((c) => c.labels[STACK_LABEL] === stack && c.labels[SERVICE_LABEL] === service)!
  containerOf("half", "db").state = "exited"
  containerOf("sick", "web").status = "Up 3 minutes (unhealthy)"
  await t.ctx.updateRecords.addHistory("good", outcome("good", "updated"))
  await t.ctx.updateRecords.addHistory("failing", outcome("failing", "rolled_back"))
  engine.addContainer({
    name: "other-app-1",
    state: "exited",
    labels: { [STACK_LABEL]: "other", [SERVICE_LABEL]: "app" },
  })

  // app:1 has an update (its newer image is not here) and a scan with 1 critical and 2 high; old:1's update record is past: the newer image was pulled.
  const app = engine.addImage(["registry.test/app:1"])
  containerOf("good", "web").imageId = app.Id
  engine.addImage(["registry.test/old:1"], { Id: "sha256:" + "b".repeat(64) })
  engine.addImage(["registry.test/old:2"], { RepoDigests: ["registry.test/old@sha256:new"] })
  const record = (ref: string, image: string, remote: string) => ({
    ref,
    image,
    local_digests: ["sha256:local"],
    remote_digest: remote,
    update_available: true,
    checked_at: "2026-11-27T11:00:00.000Z",
    error: null,
  })
  writeFileSync(
    join(t.dataDir, "updates.json"),
    JSON.stringify({
      images: {
        a: record("registry.test/app:1", app.Id, "sha256:newer"),
        b: record("registry.test/old:1", "sha256:" + "b".repeat(64), "sha256:new"),
      },
      stacks: {},
    }),
  )
  expect((await t.call("POST", `/api/images/${app.Id}/scan`)).status).toBe(202)
  await t.ctx.scans.idle()

  const online = await t.ctx.nodes.register({ server_id: "s1", name: "node-a", url: "http://10.0.0.2:8080" })
  await t.ctx.nodes.settle(online.node, { status: "online", error: null })
  const offline = await t.ctx.nodes.register({ server_id: "s2", name: "node-b", url: "http://10.0.0.3:8080" })
  await t.ctx.nodes.settle(offline.node, { status: "offline", error: "connection refused" })

  engine.swarm.seed(1)
  const web = engine.swarm.addService({
    name: "edge_web",
    replicas: 2,
    labels: { "com.docker.stack.namespace": "edge" },
  })
  engine.swarm.addService({ name: "edge_db", labels: { "com.docker.stack.namespace": "edge" } })
  ;[...engine.swarm.tasks.values()].find((task) => task.ServiceID === web.ID)!.Status.State = "starting"

  await new Repos(t.dataDir).add({
    name: "nightly",
    repository: "/nowhere",
    password: "pw",
    schedule: "1h",
    stacks: ["good"],
  })
  clock += 30 * 60_000
  const early = (await (await t.call("GET", "/api/dashboard")).json()).health
  expect(early.backups.overdue).toEqual([])
  // Due an hour after the service started, and late an hour (the grace) after that.
  clock += 2 * 3_600_000

  const { health } = await (await t.call("GET", "/api/dashboard")).json()
  expect(health.stacks.counts).toEqual({ running: 2, degraded: 2, stopped: 1, failed_update: 1 })
  expect(health.stacks.items.map((s: any) => [s.name, s.health, s.reason])).toEqual([
    ["failing", "running", null],
    ["half", "degraded", "1 of 2 containers running"],
    ["sick", "degraded", "unhealthy: web"],
    ["other", "stopped", "1 container stopped"],
    ["good", "running", null],
  ])
  expect(health.stacks.items[0].failed_update).toEqual({
    verdict: "rolled_back",
    reason: "web exited with code 1",
    finished_at: "2026-11-27T10:01:00.000Z",
  })
  expect(health.stacks.items.find((s: any) => s.name === "other").managed).toBe(false)
  expect(health.updates).toEqual([
    { ref: "registry.test/app:1", image: app.Id, stacks: ["good"], checked_at: "2026-11-27T11:00:00.000Z" },
  ])
  expect(health.cves).toEqual([
    {
      image: app.Id,
      ref: "registry.test/app:1",
      critical: 1,
      high: 2,
      scanned_at: expect.any(String),
      stacks: ["good"],
    },
  ])
  expect(health.nodes).toMatchObject({
    total: 2,
    online: 1,
    items: [
      { name: "node-a", status: "online" },
      { name: "node-b", status: "offline", error: "connection refused" },
    ],
  })
  expect(health.swarm).toEqual({
    manager: true,
    services: 2,
    below: [{ id: web.ID, name: "edge_web", stack: "edge", desired: 2, running: 1 }],
  })
  expect(health.backups.overdue).toEqual([
    {
      repository: "nightly",
      stack: "good",
      schedule: "1h",
      last_success: null,
      due: "2026-11-27T13:00:00.000Z",
      failures: 0,
    },
  ])
  expect(health.errors).toEqual([])
  expect(health.ok).toBe(false)

  // A caller who sees some stacks sees only theirs, and of the rest what concerns them.
  const scoped = (await overview(t.ctx, ["half"])).health
  expect(scoped.stacks.items.map((s) => s.name)).toEqual(["half"])
  expect(scoped.stacks.counts).toEqual({ running: 0, degraded: 1, stopped: 0, failed_update: 0 })
  expect([scoped.updates, scoped.cves, scoped.backups.overdue]).toEqual([[], [], []])
  expect((await overview(t.ctx, ["good"])).health.cves.map((c) => c.stacks)).toEqual([["good"]])
})

test("health: a server with nothing on it is fine", async () => {
  t = await testApp()
  const { health } = await (await t.call("GET", "/api/dashboard")).json()
  expect(health).toMatchObject({
    ok: true,
    stacks: { counts: { running: 0, degraded: 0, stopped: 0, failed_update: 0 }, items: [] },
    updates: [],
    cves: [],
    nodes: { total: 0, online: 0, items: [] },
    swarm: { manager: false, services: 0, below: [] },
    backups: { overdue: [] },
    errors: [],
  })
})

test("health: a part that fails is named with its error, and the rest is answered", async () => {
  t = await testApp()
  t.ctx.nodes.list = async () => {
    throw new Error("nodes.json: unexpected end of JSON input")
  }
  const res = await t.call("GET", "/api/dashboard")
  expect(res.status).toBe(200)
  const { health, container_states } = await res.json()
  expect(health.errors).toEqual([{ part: "nodes", message: "nodes.json: unexpected end of JSON input" }])
  expect(health.ok).toBe(false)
  expect(container_states.total).toBe(0)
})

test("health: the host's hour from the stats sampler, and the data directory's disk", async () => {
  t = await testApp({}, { SVC_STATS_INTERVAL: "1" })
  t.engine.addContainer({ name: "busy" })
  await t.ctx.stats.round()
  await t.ctx.stats.round()
  const { host } = (await (await t.call("GET", "/api/dashboard")).json()).health
  expect(host).toMatchObject({
    cpus: expect.any(Number),
    memory_bytes: expect.any(Number),
    cpu_percent: expect.any(Number),
    used_memory_bytes: expect.any(Number),
  })
  expect(host.history.time).toHaveLength(2)
  expect(host.history.cpu_percent).toHaveLength(2)
  expect(host.disk.path).toBe(t.dataDir)
  expect(host.disk.used_bytes).toBeGreaterThan(0)
  expect(host.history.disk_used_bytes.every((d: number) => d > 0)).toBe(true)
})

test("health reads no stack's files: its stacks' states and last updates come from memory, and follow each change", async () => {
  const engine = new FakeEngine()
  t = { ...(await testApp({ engine, compose: new FakeCompose(engine) })), engine }
  const names = Array.from({ length: 10 }, (_, i) => `s${i}`)
  for (const name of names)
    expect((await t.call("POST", "/api/stacks", { name, content: twoServices })).status).toBe(201)
  await t.ctx.updateRecords.addHistory("s1", outcome("s1", "updated"))
  const health = async () => {
    const res = await t.call("GET", "/api/dashboard")
    expect(res.status).toBe(200)
    return (await res.json()).health.stacks
  }
  await health()
  const reads = watchFileReads(Object.values(stackDirs(t.dataDir)))
  try {
    expect((await health()).counts).toEqual({ running: 10, degraded: 0, stopped: 0, failed_update: 0 })
    await t.ctx.updateRecords.addHistory("s2", outcome("s2", "rolled_back"))
    expect((await t.call("DELETE", "/api/stacks/s3")).status).toBe(200)
    reads.reset()
    const now = await health()
    expect(reads.paths()).toEqual([])
    expect(now.counts).toEqual({ running: 9, degraded: 0, stopped: 0, failed_update: 1 })
    expect(now.items[0]).toMatchObject({ name: "s2", failed_update: { verdict: "rolled_back" } })
  } finally {
    reads.stop()
  }
})
