// The alerts end to end inside the process: engine-shaped events on a bus, the conditions they
// raise, delivery to stand-ins answering as the services do, the history.
import { afterEach, beforeEach, expect, test } from "bun:test"
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { Alerts } from "#lib/alerts/alerts.ts"
import { Fanout } from "#lib/engine/fanout.ts"
import type { ServiceEvent } from "#lib/engine/events.ts"
import { ALL_SECRETS, apiBases, channelUrls, startReceivers, type Receivers } from "../../support/receivers.ts"

let dir: string
let r: Receivers
let bus: Fanout<ServiceEvent>
let published: { type: string; action: string; message?: string }[]
let stop: AbortController
const running: Alerts[] = []

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "hm-alerts-"))
  r = startReceivers()
  bus = new Fanout<ServiceEvent>(1000)
  published = []
  stop = new AbortController()
})
afterEach(async () => {
  stop.abort()
  await Promise.all(running.splice(0).map((a) => a.stop()))
  r.stop()
  rmSync(dir, { recursive: true, force: true })
})

function make(over: Partial<ConstructorParameters<typeof Alerts>[0]> = {}): Alerts {
  const a = new Alerts({
    dataDir: dir,
    server: "srv1",
    events: { publish: (e) => void published.push(e) },
    apiBases: apiBases(r),
    pollSeconds: 3600,
    backoff: [20, 40],
    settleMs: 100,
    ...over,
  })
  running.push(a)
  return a
}
const watch = (a: Alerts) => void a.run({ events: { subscribe: (s) => bus.subscribe(s) } }, stop.signal)
let seq = 0
const event = (action: string, name: string, attributes: Record<string, string> = {}) =>
  bus.publish({
    seq: ++seq,
    time: new Date().toISOString(),
    source: "engine",
    type: "container",
    action,
    id: `${name}-id`,
    name,
    attributes: { "com.docker.compose.project": "shop", ...attributes },
  })
const until = async (what: () => boolean, ms = 3000) => {
  for (const end = Date.now() + ms; !what(); ) {
    if (Date.now() > end) throw new Error("timed out")
    await Bun.sleep(10)
  }
}
const hooks = () => r.received.filter((x) => x.kind === "webhook")

test("a crash is one alert while it lasts; its recovery once the container ran again for the settle time", async () => {
  const a = make()
  const ch = await a.addChannel({ name: "hook", url: channelUrls(r).webhook })
  await a.addRule({ name: "crashes", kind: "container_died", channels: [ch.id] })
  watch(a)
  await Bun.sleep(20)
  event("die", "web-1", { exitCode: "3" })
  await until(() => hooks().length === 1)
  event("die", "web-1", { exitCode: "3" })
  event("start", "web-1")
  event("die", "web-1", { exitCode: "3" }) // within the settle time: the same condition
  await Bun.sleep(200)
  expect(hooks()).toHaveLength(1)
  expect(hooks()[0]!.body).toMatchObject({ title: "container web-1 exited with code 3", severity: "critical" })
  event("start", "web-1")
  await until(() => hooks().length === 2)
  expect(hooks()[1]!.body.title).toBe("resolved: container web-1 exited with code 3")
  // Exit code 0 is no crash; another stack is out of a scoped rule.
  await a.addRule({ name: "db only", kind: "container_died", channels: [ch.id], scope: { stacks: ["db"] } })
  event("die", "web-2", { exitCode: "0" })
  await Bun.sleep(100)
  expect(hooks()).toHaveLength(2)
})

test("a restart loop is one alert with its count; OOM and unhealthy have rules of their own", async () => {
  const a = make()
  const ch = await a.addChannel({ name: "hook", url: channelUrls(r).webhook })
  await a.addRule({ name: "loops", kind: "restart_loop", restarts: 3, minutes: 5, channels: [ch.id] })
  await a.addRule({ name: "oom", kind: "container_oom", channels: [ch.id] })
  await a.addRule({ name: "health", kind: "container_unhealthy", channels: [ch.id] })
  watch(a)
  await Bun.sleep(20)
  for (let i = 0; i < 6; i++) event("die", "loop-1", { exitCode: "1" }), event("start", "loop-1")
  event("oom", "big-1")
  event("health_status: unhealthy", "sick-1")
  event("health_status: unhealthy", "sick-1")
  await until(() => hooks().reduce((n, h) => n + h.body.alerts.length, 0) >= 3)
  await Bun.sleep(100)
  const titles = hooks().flatMap((h) => (h.body.alerts as { title: string }[]).map((x) => x.title))
  expect(titles.sort()).toEqual([
    "container big-1 ran out of memory",
    "container loop-1 restarts in a loop",
    "container sick-1 is unhealthy",
  ])
  expect((await a.active()).find((c) => c.title.includes("loop-1"))!.count).toBe(6)
  event("health_status: healthy", "sick-1")
  await until(() => hooks().some((h) => h.body.title === "resolved: container sick-1 is unhealthy"))
})

test("a muted rule sends nothing, its recovery neither; unmuted, a new condition is sent", async () => {
  const a = make()
  const ch = await a.addChannel({ name: "hook", url: channelUrls(r).webhook })
  const rule = await a.addRule({ name: "crashes", kind: "container_died", channels: [ch.id] })
  expect((await a.mute(rule.id, 30)).muted).toBe(true)
  watch(a)
  await Bun.sleep(20)
  event("die", "web-1", { exitCode: "2" })
  event("start", "web-1")
  await Bun.sleep(300)
  expect(hooks()).toHaveLength(0)
  // A caller limited to some stacks mutes only rules limited to them.
  expect(a.mute(rule.id, 0, ["shop"])).rejects.toThrow("no alert rule")
  await a.mute(rule.id, 0)
  event("die", "web-1", { exitCode: "2" })
  await until(() => hooks().length === 1)
})

test("thresholds: above the mark for the minutes fires once; between the marks nothing; at or below the lower mark it recovers", async () => {
  const a = make()
  const ch = await a.addChannel({ name: "hook", url: channelUrls(r).webhook })
  const rule = await a.addRule({
    name: "hot",
    kind: "cpu",
    target: "container",
    above: 80,
    below: 60,
    minutes: 0,
    channels: [ch.id],
  })
  const rounds = new Fanout<any>(10)
  void a.run({ events: { subscribe: (s) => bus.subscribe(s) }, rounds: (s) => rounds.subscribe(s) }, stop.signal)
  await Bun.sleep(50)
  const round = (cpu: number) =>
    rounds.publish({
      host: { cpus: 2, memory_bytes: 1e9 },
      containers: [
        {
          name: "web-1",
          stack: "shop",
          cpu_percent: cpu,
          cpu_host_percent: cpu / 2,
          memory_bytes: 1,
          memory_percent: 1,
        },
      ],
    })
  for (const cpu of [50, 85, 70, 90, 65, 85, 75]) round(cpu), await Bun.sleep(20)
  await until(() => hooks().length === 1)
  round(55)
  await until(() => hooks().length === 2)
  expect(hooks().map((h) => h.body.title)).toEqual([
    "container web-1 uses 85% CPU",
    "resolved: container web-1 uses 85% CPU",
  ])
  expect(rule.description).toBe("a container's cpu above 80% for 0 minutes")
})

test("429 with Retry-After waits and delivers; a refusal is given up at once: history, event, status, count", async () => {
  const a = make({ backoff: [10_000] })
  const urls = channelUrls(r)
  const discord = await a.addChannel({ name: "discord", url: urls.discord })
  const broken = await a.addChannel({ name: "bad telegram", url: urls.telegram.replace("secretToken", "wrong") })
  await a.addRule({ name: "crashes", kind: "container_died", channels: [discord.id, broken.id] })
  r.fail("discord", () =>
    Response.json({ message: "You are being rate limited.", retry_after: 0.3, global: false }, { status: 429 }),
  )
  watch(a)
  await Bun.sleep(20)
  const t0 = Date.now()
  event("die", "web-1", { exitCode: "137" })
  await until(() => r.received.some((x) => x.kind === "discord"))
  expect(Date.now() - t0).toBeGreaterThanOrEqual(300)
  await until(() => published.some((e) => e.type === "alert"))
  // The stand-in keeps a request before it answers: wait for the answer to be read.
  await until(() => a.dispatch.channelStatus(discord.id).state === "ok")
  const failed = published.find((e) => e.type === "alert")!
  expect(failed).toMatchObject({ action: "failed" })
  expect(failed.message).toContain("not delivered after 1 try: Telegram (chat @ops) answered 401: Unauthorized")
  const statuses = Object.fromEntries((await a.channels()).map((c) => [c.name, c.status]))
  expect(statuses.discord).toMatchObject({ state: "ok", pending: 0 })
  expect(statuses["bad telegram"]).toMatchObject({ state: "failing", consecutive_failures: 1 })
  const { entries } = await a.history({ limit: 10 }, () => true)
  expect(entries.map((e) => [e.channel_name, e.result, e.attempts])).toEqual([
    ["discord", "sent", 2],
    ["bad telegram", "failed", 1],
  ])
  expect(a.metrics().alerts).toContainEqual({ rule: "crashes", channel: "discord", result: "sent", n: 1 })
  const shown = JSON.stringify([published, entries, await a.channels()])
  for (const s of ALL_SECRETS) expect(shown).not.toContain(s)
})

test("many at once are grouped per channel within its rate; a hanging channel holds up no other", async () => {
  const a = make({ rate: { burst: 1, everyMs: 200 } })
  const urls = channelUrls(r)
  const hook = await a.addChannel({ name: "hook", url: urls.webhook })
  const slow = await a.addChannel({ name: "slow", url: urls.gotify })
  r.delay("gotify", 1500)
  await a.addRule({ name: "crashes", kind: "container_died", channels: [hook.id, slow.id] })
  watch(a)
  await Bun.sleep(20)
  for (let i = 0; i < 30; i++) event("die", `c-${i}`, { exitCode: "1" })
  await until(() => hooks().reduce((n, h) => n + h.body.alerts.length, 0) === 30, 1400)
  expect(r.received.filter((x) => x.kind === "gotify")).toHaveLength(0) // still waiting for its answer
  expect(hooks().length).toBeLessThanOrEqual(3)
  expect(hooks()[1]!.body.title).toBe(`${hooks()[1]!.body.alerts.length} alerts on srv1`)
  await until(() => r.received.filter((x) => x.kind === "gotify").length >= 1, 4000)
})

test("alerts not yet delivered survive a restart of the service", async () => {
  const first = make({ backoff: [60_000] })
  const ch = await first.addChannel({ name: "hook", url: channelUrls(r).webhook })
  await first.addRule({ name: "crashes", kind: "container_died", channels: [ch.id] })
  r.fail("webhook", () => new Response("down", { status: 503 }))
  watch(first)
  await Bun.sleep(20)
  event("die", "web-1", { exitCode: "1" })
  await until(() => r.received.some((x) => x.kind === "webhook!"))
  await Bun.sleep(100)
  stop.abort()
  await first.stop()
  expect(hooks()).toHaveLength(0)
  stop = new AbortController()
  const second = make()
  await second.load()
  await until(() => hooks().length === 1)
  expect(hooks()[0]!.body.title).toBe("container web-1 exited with code 1")
  // The condition was kept too: the same crash again is not a second alert.
  watch(second)
  await Bun.sleep(20)
  event("die", "web-1", { exitCode: "1" })
  await Bun.sleep(150)
  expect(hooks()).toHaveLength(1)
})

test("the history pages newest first with a cursor; a test is recorded", async () => {
  const a = make()
  const ch = await a.addChannel({ name: "hook", url: channelUrls(r).webhook })
  for (let i = 0; i < 5; i++) expect(await a.testChannel(ch.id)).toMatchObject({ ok: true, error: null })
  const page1 = await a.history({ limit: 2 }, () => true)
  const page2 = await a.history({ limit: 2, cursor: page1.next! }, () => true)
  const page3 = await a.history({ limit: 2, cursor: page2.next! }, () => true)
  const seqs = [...page1.entries, ...page2.entries, ...page3.entries].map((e) => e.seq)
  expect(seqs).toEqual([5, 4, 3, 2, 1])
  expect(page3.next).toBeNull()
  expect(page1.entries[0]).toMatchObject({ state: "test", result: "sent", channel_name: "hook" })
  const bad = await a.addChannel({ name: "nowhere", url: "http://127.0.0.1:1/x" })
  expect((await a.testChannel(bad.id)).ok).toBe(false)
})

test("channels: a name taken, a channel in use, a removed one; the URL shown masked", async () => {
  const a = make()
  const urls = channelUrls(r)
  const ch = await a.addChannel({ name: "matrix", url: urls.matrix })
  expect(ch.url).not.toContain("matrixPassw0rd")
  expect(a.addChannel({ name: "matrix", url: urls.discord })).rejects.toMatchObject({ code: "name_taken" })
  const rule = await a.addRule({ name: "x", kind: "node_offline", channels: [ch.id] })
  expect(a.removeChannel(ch.id)).rejects.toMatchObject({ code: "channel_in_use" })
  await a.updateRule(rule.id, { channels: [] })
  await a.removeChannel(ch.id)
  expect(await a.channels()).toEqual([])
  expect(a.addRule({ name: "y", kind: "cpu", channels: [] })).rejects.toThrow("needs its threshold")
})

test("polled conditions: a degraded stack (not one stopped through the service), an overdue backup, a swarm service short of replicas, a node", async () => {
  const a = make()
  const ch = await a.addChannel({ name: "hook", url: channelUrls(r).webhook })
  for (const kind of ["stack_degraded", "backup_overdue", "swarm_replicas", "node_offline"])
    await a.addRule({ name: kind, kind: kind as never, minutes: 0, channels: [ch.id] })
  const state = {
    stacks: [
      { name: "shop", health: "degraded" as const, reason: "1 of 2 containers running" },
      { name: "old", health: "stopped" as const, reason: "2 containers stopped" },
      { name: "db", health: "running" as const, reason: null },
    ],
    overdue: [{ repository: "nas", stack: "shop", due: "2026-01-01T00:00:00.000Z" }],
    swarm: [{ name: "web", stack: "shop", desired: 3, running: 1 }],
    nodes: [{ name: "m1", status: "offline", error: "no answer within 5000 ms" as string | null }],
  }
  void a.run(
    {
      events: { subscribe: (s) => bus.subscribe(s) },
      stacks: async () => state.stacks,
      overdue: async () => state.overdue,
      swarm: async () => state.swarm,
      nodes: async () => state.nodes,
    },
    stop.signal,
  )
  const titles = () => hooks().flatMap((h) => (h.body.alerts as { title: string }[]).map((x) => x.title))
  await until(() => titles().length >= 4)
  expect(titles().sort()).toEqual([
    "backup of shop to nas is overdue",
    "node m1 is offline",
    "stack shop is degraded",
    "swarm service web runs 1 of 3 replicas",
  ])
  // "old" was stopped at the first look: taken as meant. "db" stopped through the service: no alert either.
  bus.publish({ seq: ++seq, time: "", source: "service", type: "stack", action: "stop", name: "db" })
  state.stacks = [
    { name: "shop", health: "running", reason: null },
    { name: "old", health: "stopped", reason: "2 containers stopped" },
    { name: "db", health: "stopped", reason: "1 container stopped" },
  ]
  state.overdue = []
  state.swarm = [{ name: "web", stack: "shop", desired: 3, running: 3 }]
  state.nodes = [{ name: "m1", status: "online", error: null }]
  await Bun.sleep(50) // the stop event read by the watch
  // The polls run every pollSeconds (an hour here): ask them now.
  const w = (
    a as unknown as {
      watch: {
        checkStacks(): Promise<void>
        checkBackups(): Promise<void>
        checkSwarm(): Promise<void>
        checkNodes(): Promise<void>
      }
    }
  ).watch
  await Promise.all([w.checkStacks(), w.checkBackups(), w.checkSwarm(), w.checkNodes()])
  await until(() => titles().filter((t) => t.startsWith("resolved: ")).length === 4)
  expect(titles().filter((t) => !t.startsWith("resolved: "))).toHaveLength(4)
})

test("the events that already notify reach the event rules naming them, once each", async () => {
  const a = make()
  const ch = await a.addChannel({ name: "hook", url: channelUrls(r).webhook })
  await a.addRule({ name: "updates", kind: "event", events: ["rolled_back", "rollback_failed"], channels: [ch.id] })
  await a.load()
  a.notification({
    event: "rolled_back",
    stack: "shop",
    message: "update of shop: rolled_back: service web: exited with code 3",
  })
  a.notification({
    event: "rolled_back",
    stack: "shop",
    message: "update of shop: rolled_back: service web: exited with code 3",
  })
  a.notification({ event: "updated", stack: "shop", message: "update of shop: updated" })
  await until(() => hooks().length === 1)
  await Bun.sleep(100)
  expect(hooks().flatMap((h) => h.body.alerts)).toHaveLength(1)
  expect(hooks()[0]!.body).toMatchObject({
    title: "rolled back (shop)",
    message: "update of shop: rolled_back: service web: exited with code 3",
  })
})

test("a control plane's container rules cover the nodes their scope names, and only those", async () => {
  const a = make()
  const ch = await a.addChannel({ name: "hook", url: channelUrls(r).webhook })
  await a.addRule({ name: "m1 crashes", kind: "container_died", scope: { nodes: ["m1"] }, channels: [ch.id] })
  await a.addRule({ name: "local crashes", kind: "container_died", channels: [ch.id] })
  const asked: (string[] | "*")[] = []
  let deliver: (node: string, e: ServiceEvent) => void = () => {}
  void a.run(
    {
      events: { subscribe: (s) => bus.subscribe(s) },
      nodeEvents: async (wanted, onEvent) => {
        asked.push(wanted())
        deliver = onEvent
      },
    },
    stop.signal,
  )
  await until(() => asked.length === 1)
  expect(asked[0]).toEqual(["m1"])
  const die = (name: string) => ({
    seq: ++seq,
    time: "",
    source: "engine" as const,
    type: "container",
    action: "die",
    name,
    attributes: { exitCode: "2" },
  })
  deliver("m1", die("api-1"))
  deliver("m2", die("api-2"))
  event("die", "local-1", { exitCode: "2" })
  await until(() => hooks().reduce((n, h) => n + h.body.alerts.length, 0) === 3)
  await Bun.sleep(100)
  const alerts = hooks().flatMap((h) => h.body.alerts as { rule: string; title: string }[])
  // A rule naming m1 covers this server's containers and m1's; one naming no node, this server's only.
  expect(alerts.map((x) => [x.rule, x.title]).sort()).toEqual([
    ["local crashes", "container local-1 exited with code 2"],
    ["m1 crashes", "container api-1 on node m1 exited with code 2"],
    ["m1 crashes", "container local-1 exited with code 2"],
  ])
})
