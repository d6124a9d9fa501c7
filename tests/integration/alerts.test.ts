// Alerts from what the real engine does, through the real service, to a webhook stand-in: a
// container that crashes, one that restarts in a loop, one that goes unhealthy, one killed for
// memory, the data directory's disk (a small tmpfs) filling, a member node's container crashing
// (its events followed by the control plane) and the member going offline.
// Each alert arrives once, its recovery arrives, a muted rule sends nothing, and /api/health
// answers throughout.
import { afterAll, beforeAll, expect, test } from "bun:test"
import { mkdtempSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import type { Engine } from "#lib/engine/client.ts"
import { cleanup, engineHost, insideChroot, realEngine, runContainer } from "../support/engine.ts"
import { startReceivers, type Receivers } from "../support/receivers.ts"
import { startService, type Service } from "../support/service.ts"

const SLOW = 180_000
let engine: Engine
let service: Service
let member: Service | undefined
let r: Receivers
let dataDir: string
const health: number[] = []
let watching = true

const run = (cmd: string[]) => Bun.spawnSync(cmd, { stderr: "pipe" })

beforeAll(async () => {
  engine = realEngine()
  await cleanup(engine)
  r = startReceivers()
  // The data directory on a tmpfs of its own, so that filling it is quick and harms nothing else.
  dataDir = mkdtempSync(join(tmpdir(), "hm-alerts-data-"))
  const mounted = run(["mount", "-t", "tmpfs", "-o", "size=24m", "tmpfs", dataDir])
  if (mounted.exitCode !== 0) throw new Error(`mount tmpfs: ${mounted.stderr}`)
  service = await startService({ DOCKER_HOST: engineHost(), SVC_ALERT_POLL: "1" }, { dataDir })
  void (async () => {
    while (watching) {
      health.push(
        await fetch(`${service.url}/api/health`, { signal: AbortSignal.timeout(5000) }).then(
          (res) => res.status,
          () => 0,
        ),
      )
      await Bun.sleep(250)
    }
  })()
}, SLOW)

afterAll(async () => {
  watching = false
  await cleanup(engine)
  await member?.stop()
  await service?.stop()
  r?.stop()
  run(["umount", dataDir])
  rmSync(dataDir, { recursive: true, force: true })
}, SLOW)

const api = async (method: string, path: string, body?: unknown) => {
  const res = await fetch(`${service.url}/api${path}`, {
    method,
    headers: body === undefined ? {} : { "content-type": "application/json" },
    body: body === undefined ? undefined : JSON.stringify(body),
  })
  const text = await res.text()
  if (!res.ok) throw new Error(`${method} ${path} answered ${res.status}: ${text}`)
  return JSON.parse(text)
}

/** Every alert the webhook received on a path, in order (grouped messages flattened). */
const alerts = (path: string) =>
  r.received
    .filter((x) => x.kind === "webhook" && x.path === path)
    .flatMap((x) => x.body.alerts as { title: string; state: string }[])
/** The alerts whose title has `part`: firing ones, or (a title starting "resolved: ") their recoveries. */
const titled = (path: string, part: string) =>
  alerts(path).filter((a) => a.title.includes(part) && (part.startsWith("resolved: ") || a.state === "firing"))
const until = async (what: () => boolean, ms: number, why: string) => {
  for (const end = Date.now() + ms; !what(); await Bun.sleep(200))
    if (Date.now() > end)
      throw new Error(`waited ${ms} ms for ${why}; received: ${JSON.stringify(alerts("/hook/main"))}`)
}

let main: string
let muted: string
beforeAll(async () => {
  main = (await api("POST", "/alerts/channels", { name: "main", url: `${r.url}/hook/main` })).id
  muted = (await api("POST", "/alerts/channels", { name: "muted", url: `${r.url}/hook/muted` })).id
  const scope = { labels: ["hm.alerts=1"] }
  for (const rule of [
    { name: "crashes", kind: "container_died", scope },
    { name: "loops", kind: "restart_loop", restarts: 3, minutes: 0.25, scope },
    { name: "health", kind: "container_unhealthy", scope },
    { name: "memory", kind: "container_oom", scope },
    { name: "disk", kind: "disk", target: "data", above: 50, below: 30, minutes: 0.05 },
    { name: "nodes", kind: "node_offline" },
  ])
    await api("POST", "/alerts/rules", { ...rule, channels: [main] })
  const quiet = await api("POST", "/alerts/rules", {
    name: "quiet",
    kind: "container_died",
    scope: { labels: ["hm.alerts=1"] },
    channels: [muted],
  })
  await api("POST", `/alerts/rules/${quiet.id}/mute`, { minutes: 60 })
  // The alerts job starts with the first channel or rule (it looks once a second).
  await Bun.sleep(2500)
}, SLOW)

const labels = { Labels: { "hm.test": "1", "hm.alerts": "1" } }

test(
  "a crash: one alert while it lasts, its recovery once the container runs again; the muted rule sends nothing",
  async () => {
    // Exits 3 the first time; started again, it runs.
    const id = await runContainer(
      engine,
      "hm-alert-crash",
      "if [ -f /tmp/ran ]; then exec sleep 3600; fi; touch /tmp/ran; exit 3",
      labels,
    )
    await until(() => titled("/hook/main", "hm-alert-crash exited with code 3").length === 1, 30_000, "the crash")
    await engine.containerAction(id, "start")
    await until(() => titled("/hook/main", "resolved: container hm-alert-crash").length === 1, 60_000, "its recovery")
    expect(titled("/hook/main", "hm-alert-crash exited")).toHaveLength(1)
    expect(alerts("/hook/muted")).toEqual([])
  },
  SLOW,
)

test(
  "a restart loop is one alert with its count, and its recovery when the restarts stop",
  async () => {
    // Restarted by the engine; stops failing at its fifth start.
    await runContainer(
      engine,
      "hm-alert-loop",
      "n=$(cat /tmp/n 2>/dev/null || echo 0); n=$((n+1)); echo $n >/tmp/n; [ $n -ge 5 ] && exec sleep 3600; sleep 0.2; exit 1",
      { ...labels, HostConfig: { RestartPolicy: { Name: "always" } } },
    )
    await until(() => titled("/hook/main", "hm-alert-loop restarts in a loop").length === 1, 60_000, "the loop")
    await until(
      () => titled("/hook/main", "resolved: container hm-alert-loop restarts").length === 1,
      90_000,
      "its end",
    )
    expect(titled("/hook/main", "hm-alert-loop restarts in a loop")).toHaveLength(1)
    const active = await api("GET", "/alerts/active")
    expect(active.filter((c: { rule_name: string }) => c.rule_name === "loops")).toEqual([])
  },
  SLOW,
)

test.skipIf(insideChroot())(
  "unhealthy, then healthy again",
  async () => {
    await runContainer(engine, "hm-alert-sick", "sleep 6; touch /tmp/ok; exec sleep 3600", {
      ...labels,
      Healthcheck: { Test: ["CMD-SHELL", "test -f /tmp/ok"], Interval: 1e9, Timeout: 1e9, Retries: 1 },
    })
    await until(() => titled("/hook/main", "hm-alert-sick is unhealthy").length === 1, 60_000, "unhealthy")
    await until(
      () => titled("/hook/main", "resolved: container hm-alert-sick is unhealthy").length === 1,
      60_000,
      "healthy",
    )
    expect(titled("/hook/main", "hm-alert-sick is unhealthy")).toHaveLength(1)
  },
  SLOW,
)

test(
  "a container killed for memory",
  async () => {
    const limit = 16 * 1024 * 1024
    await runContainer(engine, "hm-alert-oom", "head -c 200m /dev/zero | tail", {
      ...labels,
      HostConfig: { Memory: limit, MemorySwap: limit },
    })
    await until(() => titled("/hook/main", "hm-alert-oom ran out of memory").length === 1, 60_000, "the OOM kill")
    // It died with 137: the crash rule saw it as well, once.
    await until(() => titled("/hook/main", "hm-alert-oom exited with code 137").length === 1, 30_000, "its exit")
  },
  SLOW,
)

test(
  "the data directory's disk filling, then freed",
  async () => {
    const fill = join(dataDir, "fill.bin")
    writeFileSync(fill, new Uint8Array(16 * 1024 * 1024))
    await until(() => titled("/hook/main", "the data directory's disk is").length === 1, 30_000, "the full disk")
    rmSync(fill)
    await until(
      () => titled("/hook/main", "resolved: the data directory's disk").length === 1,
      30_000,
      "the freed disk",
    )
    expect(titled("/hook/main", "the data directory's disk is")).toHaveLength(1)
  },
  SLOW,
)

test(
  "a member node offline, then back online",
  async () => {
    const token = (await api("POST", "/cluster/token")).token
    const memberData = mkdtempSync(join(tmpdir(), "hm-alerts-member-"))
    member = await startService({ DOCKER_HOST: engineHost("b") }, { dataDir: memberData })
    const joined = await fetch(`${member.url}/api/cluster/join`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ control_plane_url: service.url, token, name: "m1" }),
    })
    expect(joined.status).toBe(200)
    // A container rule naming the node covers its containers: their events are followed here.
    await api("POST", "/alerts/rules", {
      name: "m1 crashes",
      kind: "container_died",
      scope: { nodes: ["m1"], labels: ["hm.alerts=1"] },
      channels: [main],
    })
    await Bun.sleep(2500)
    const b = realEngine("b")
    await runContainer(b, "hm-alert-remote", "exit 3", labels)
    await until(
      () => titled("/hook/main", "hm-alert-remote on node m1 exited with code 3").length === 1,
      30_000,
      "the node's crash",
    )
    await cleanup(b)
    const { port } = member
    await member.stop().catch(() => {})
    member = undefined
    await until(() => titled("/hook/main", "node m1 is offline").length === 1, 60_000, "the node offline")
    member = await startService({ DOCKER_HOST: engineHost("b") }, { dataDir: memberData, port })
    await until(() => titled("/hook/main", "resolved: node m1 is offline").length === 1, 60_000, "the node back")
    expect(titled("/hook/main", "node m1 is offline")).toHaveLength(1)
    await member.stop()
    member = undefined
    rmSync(memberData, { recursive: true, force: true })
  },
  SLOW,
)

test("health answered throughout, and the history holds what was sent", async () => {
  expect(health.length).toBeGreaterThan(10)
  expect(health.filter((s) => s !== 200)).toEqual([])
  const { entries } = await api("GET", "/alerts/history?limit=200")
  expect(entries.every((e: { result: string }) => e.result === "sent")).toBe(true)
  expect(entries.filter((e: { channel_name: string }) => e.channel_name === "muted")).toEqual([])
  expect(entries.length).toBe(alerts("/hook/main").length)
})
